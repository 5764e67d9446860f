#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build and build-old): this build's OpenCL launch path
# (kernels looked up by views, launch shapes without allocation) and its linear.batch = 0 (the
# backend's choice) against the base commit's (.gpu-old). Variants: old (the base), new (this
# build, defaults), new_b2 (this build with the base's linear.batch = 2: the launch path alone).
# Fully implicit decks (DECKS: HETERO, THIN, LAYERED) on cuda and NVIDIA's OpenCL, REPS (2) times,
# the variants' order rotated by repetition (VARIANTS narrows them, e.g. "old new"). Each run's output: $OUT/logs/hl_DECK_VARIANT_BACKEND_REP.log.
#   tools/device/experiments/host_launch_compare.sh
new=${PF:-build-gpu/apps/poreflow}
old=${PF_OLD:-build-gpu-old/apps/poreflow}
mkdir -p "$OUT/logs"
read -r -a variants <<< "${VARIANTS:-old new new_b2}"
nv=${#variants[@]}
for rep in $(seq "${REPS:-2}"); do
  for deck in ${DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
    name=$(basename "$deck" .DATA)
    for k in $(seq 0 $((nv - 1))); do
      v=${variants[$(((k + rep) % nv))]}
      bin=$new
      extra=()
      [ $v = old ] && bin=$old
      [ $v = new_b2 ] && extra=(--set linear.batch=2)
      for b in opencl cuda; do
        log="$OUT/logs/hl_${name}_${v}_${b}_$rep.log"
        "$bin" run "$deck" --backend $b --cl-platform NVIDIA --no-output "${extra[@]}" > "$log" 2>&1
        echo "$name $v $b $rep (exit $?): $(grep -E 'steps to t' "$log" | sed 's/ on .*//') $(grep -E 'linear_iterations_(total|enqueued)|newton_iterations_total' "$log" | tr -s ' ' | tr '\n' ' ')"
      done
    done
  done
done
