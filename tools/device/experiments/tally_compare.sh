#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build and build-old, with .gpu-old holding this tree and
# cl_arena.patch applied): where an OpenCL run's host time goes, by the run's launch tally
# (opencl_launches, seconds_opencl_enqueue, seconds_opencl_wait; docs/opencl.md), with and without
# the arena. The fully implicit decks REPS (3) times on NVIDIA's OpenCL, the two builds
# alternating, one cuda run of each deck a repetition as a control, then SPE10 once on OpenCL with
# this build (SPE10=0 leaves it out). Each run's output: $OUT/logs/tc_DECK_VARIANT_BACKEND_REP.log.
#   tools/device/experiments/tally_compare.sh
base=${PF:-build-gpu/apps/poreflow}
arena=${PF_OLD:-build-gpu-old/apps/poreflow}
mkdir -p "$OUT/logs"
show() {
  echo "$1: $(grep -E 'steps to t' "$2" | sed 's/ on .*//') $(grep -E 'opencl_launches|seconds_opencl_(enqueue|wait)|linear_iterations_total|newton_iterations_total' "$2" | tr -s ' ' | tr '\n' ' ')"
}
for rep in $(seq "${REPS:-3}"); do
  for deck in ${DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
    name=$(basename "$deck" .DATA)
    order="base arena"
    [ $((rep % 2)) = 0 ] && order="arena base"
    for v in $order; do
      bin=$base
      [ $v = arena ] && bin=$arena
      log="$OUT/logs/tc_${name}_${v}_opencl_$rep.log"
      "$bin" run "$deck" --backend opencl --cl-platform NVIDIA --no-output > "$log" 2>&1
      show "$name $v opencl $rep (exit $?)" "$log"
    done
    log="$OUT/logs/tc_${name}_base_cuda_$rep.log"
    "$base" run "$deck" --backend cuda --no-output > "$log" 2>&1
    show "$name base cuda $rep (exit $?)" "$log"
  done
done
if [ "${SPE10:-1}" = 1 ]; then
  log="$OUT/logs/tc_SPE10_base_opencl_1.log"
  "$base" run validation/decks/SPE10.DATA --backend opencl --cl-platform NVIDIA --no-output > "$log" 2>&1
  show "SPE10 base opencl 1 (exit $?)" "$log"
fi
