#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build and build-old): the Krylov solves' first batch (this
# build) against the base commit's (.gpu-old). Fully implicit decks (DECKS: HETERO and LAYERED) on
# cuda and NVIDIA's OpenCL, REPS (2) times, the base first in odd repetitions and this build first
# in even ones. Each run's output goes to $OUT/logs/bc_DECK_BUILD_BACKEND_REP.log.
#   tools/device/experiments/batch_compare.sh
new=${PF:-build-gpu/apps/poreflow}
old=${PF_OLD:-build-gpu-old/apps/poreflow}
mkdir -p "$OUT/logs"
for rep in $(seq "${REPS:-2}"); do
  order="old new"
  [ $((rep % 2)) = 0 ] && order="new old"
  for deck in ${DECKS:-validation/decks/HETERO.DATA validation/decks/LAYERED.DATA}; do
    name=$(basename "$deck" .DATA)
    for v in $order; do
      bin=$new
      [ $v = old ] && bin=$old
      for b in opencl cuda; do
        log="$OUT/logs/bc_${name}_${v}_${b}_$rep.log"
        "$bin" run "$deck" --backend $b --cl-platform NVIDIA --no-output > "$log" 2>&1
        echo "$name $v $b $rep (exit $?): $(grep -E 'steps to t' "$log" | sed 's/ on .*//') $(grep -E 'linear_iterations_(total|enqueued)' "$log" | tr -s ' ' | tr '\n' ' ')"
      done
    done
  done
done
