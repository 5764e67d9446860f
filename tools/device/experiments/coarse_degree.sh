#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): the SPE10-like CG + AMG (SIZES) with the coarse
# levels' Chebyshev degree (--amg-coarse-degree) of each of DEGREES (3 1 2; the finest keeps 3) on
# cuda and NVIDIA's OpenCL: fewer launches on the coarse levels against more iterations.
# JSON: $OUT/cd_BACKEND_DEGREE.json; logs in $OUT/logs.
pf=${PF:-build-gpu/apps/poreflow}
mkdir -p "$OUT/logs"
for d in ${DEGREES:-3 1 2}; do
  for b in cuda opencl; do
    "$pf" bench linalg --backends $b --cl-platform NVIDIA --sizes "${SIZES:-spe10}" --solvers amg --amg-coarse-degree "$d" \
      --solves 7 --json "$OUT/cd_${b}_$d.json" > "$OUT/logs/cd_${b}_$d.log" 2>&1
    echo "coarse degree $d $b (exit $?): $(grep -E 'iterations, setup' "$OUT/logs/cd_${b}_$d.log" | sed 's/.*bench linalg: //' | tr '\n' ';')"
  done
done
