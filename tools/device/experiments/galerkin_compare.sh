#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build and build-old): the AMG refresh with the Galerkin
# product a work-item a row (the old build, .gpu-old) against a work-item an entry (this build).
# bench linalg's SPE10-like systems (CG + AMG, BiCGSTAB + CPR) on cuda and NVIDIA's OpenCL with the
# debug log, whose "AMG refresh" lines time each part of a refresh, then the SPE10 deck on cuda
# (DECK_RUNS=0 skips it; BUILDS=new runs this build alone). JSON: $OUT/ga_BUILD_BACKEND.json; logs in $OUT/logs.
mkdir -p "$OUT/logs"
for build in ${BUILDS:-old new}; do
  pf=build-gpu/apps/poreflow
  [ $build = old ] && pf=build-gpu-old/apps/poreflow
  for b in cuda opencl; do
    log="$OUT/logs/ga_${build}_$b.log"
    "$pf" bench linalg -v --backends $b --cl-platform NVIDIA --sizes spe10,spe10-2p --solvers amg,cpr --solves 7 \
      --json "$OUT/ga_${build}_$b.json" > "$log" 2>&1
    echo "$build $b (exit $?): $(grep -E 'iterations, setup' "$log" | sed 's/.*bench linalg: //' | tr '\n' ';')"
    grep -E 'AMG refresh' "$log" | sed 's/^.*AMG refresh/  AMG refresh/' | tail -2
  done
done
[ "${DECK_RUNS:-1}" = 0 ] && exit 0
[ -f validation/decks/spe10/PORO.INC ] || validation/gen_spe10.sh build-gpu/apps/poreflow > "$OUT/logs/ga_gen_spe10.log" 2>&1
for build in ${BUILDS:-new old}; do
  pf=build-gpu/apps/poreflow
  [ $build = old ] && pf=build-gpu-old/apps/poreflow
  log="$OUT/logs/ga_SPE10_${build}_cuda.log"
  "$pf" run validation/decks/SPE10.DATA --backend cuda --no-output > "$log" 2>&1
  echo "SPE10 $build cuda (exit $?): $(grep -E 'steps to t' "$log" | sed 's/ on .*//') $(grep -E 'newton_iterations_total|linear_iterations_total|pressure_amg_refreshes|seconds_preconditioner_refresh|seconds_linear|oil_produced|retried_steps' "$log" | tr -s ' ' | tr '\n' ' ')"
done
