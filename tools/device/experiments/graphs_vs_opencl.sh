#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): bench linalg's SPE10-like systems (SIZES) on cuda
# with and without CUDA graphs and on NVIDIA's OpenCL, REPS (2) rounds in a rotated order, to tell
# whether OpenCL's gap there is the graphs' replay (cuda without graphs as slow as OpenCL) or the
# kernels (cuda without graphs still faster). JSON: $OUT/gv_VARIANT_REP.json; logs in $OUT/logs.
pf=${PF:-build-gpu/apps/poreflow}
mkdir -p "$OUT/logs"
one() {  # variant rep
  local args=(--backends cuda --cuda-graphs true)
  [ "$1" = cuda_nographs ] && args=(--backends cuda --cuda-graphs false)
  [ "$1" = opencl ] && args=(--backends opencl --cl-platform NVIDIA)
  "$pf" bench linalg "${args[@]}" --sizes "${SIZES:-spe10,spe10-2p}" --solvers amg,cpr --solves 7 \
    --json "$OUT/gv_$1_$2.json" > "$OUT/logs/gv_$1_$2.log" 2>&1
  echo "$1 $2 (exit $?): $(grep -E 'iterations, setup' "$OUT/logs/gv_$1_$2.log" | sed 's/.*bench linalg: //' | tr '\n' ';')"
}
orders=("cuda_graphs opencl cuda_nographs" "cuda_nographs cuda_graphs opencl" "opencl cuda_nographs cuda_graphs")
for rep in $(seq "${REPS:-2}"); do
  for v in ${orders[$(((rep - 1) % 3))]}; do one "$v" "$rep"; done
done
