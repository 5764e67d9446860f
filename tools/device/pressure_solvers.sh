#!/usr/bin/env bash
# impes3d's pressure solvers side by side on one machine (docs/impes3d.md, "Which pressure solver
# is faster"): paper 003's cases with SOR (the default) and with the Krylov solvers, on cuda and on
# NVIDIA's OpenCL (and omp), each run's log with its statistics under $OUT/pressure_solvers/.
#   [CASES="impes_case2 ..."] tools/device/pressure_solvers.sh BUILD_DIR [BACKENDS]
set -uo pipefail
PF=${1:?the build directory}/apps/poreflow
BACKENDS=${2:-cuda opencl}
OUT=${OUT:-device-out}/pressure_solvers
mkdir -p "$OUT"
for case in ${CASES:-impes_case2 impes_case1}; do
  for be in $BACKENDS; do
    extra=()
    [ "$be" = opencl ] && extra=(--cl-platform NVIDIA)
    for solver in sor cg:amg cg:ilu0 bicgstab:amg; do
      s=${solver%%:*} p=${solver#*:}
      sets=(--set pressure.solver=\"$s\")
      [ "$s" != sor ] && sets+=(--set pressure.preconditioner=\"$p\")
      tag=${case}_${be}_${s}${p:+_$p}
      [ "$s" = sor ] && tag=${case}_${be}_sor
      echo "=== $tag"
      "$PF" run "cases/$case.toml" -b "$be" "${extra[@]}" --no-output "${sets[@]}" > "$OUT/$tag.log" 2>&1
      grep -E "error|steps_total|wall_seconds_total|seconds_pressure|pressure_iterations_per_step|sor_iterations_per_step|mass_balance" \
        "$OUT/$tag.log" | tr -s ' ' | paste -sd ' '
    done
  done
done
