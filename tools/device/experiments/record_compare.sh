#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build and build-old): fully implicit decks on NVIDIA's
# OpenCL with the base commit's build (.gpu-old), this build with linear.record = false and this
# build with it true, alternating REPS (2) times; cuda with recording once a rep for the ratio.
# Each run's output goes to $OUT/logs/rc_DECK_VARIANT_REP.log ("N steps to t in X s": the steps'
# time, OpenCL's program builds left out).
#   tools/device/experiments/record_compare.sh [DECK.DATA ...]   (default HETERO and LAYERED)
new=${PF:-build-gpu/apps/poreflow}
old=${PF_OLD:-build-gpu-old/apps/poreflow}
mkdir -p "$OUT/logs"
decks=("$@")
[ ${#decks[@]} -eq 0 ] && decks=(validation/decks/HETERO.DATA validation/decks/LAYERED.DATA)
for deck in "${decks[@]}"; do
  name=$(basename "$deck" .DATA)
  for rep in $(seq "${REPS:-2}"); do
    for v in old norecord record cuda; do
      case $v in
        old) cmd=("$old" run "$deck" --backend opencl --cl-platform NVIDIA) ;;
        norecord) cmd=("$new" run "$deck" --backend opencl --cl-platform NVIDIA --set linear.record=false) ;;
        record) cmd=("$new" run "$deck" --backend opencl --cl-platform NVIDIA --set linear.record=true) ;;
        cuda) cmd=("$new" run "$deck" --backend cuda) ;;
      esac
      "${cmd[@]}" --no-output > "$OUT/logs/rc_${name}_${v}_$rep.log" 2>&1
      echo "$name $v $rep: $(grep -E 'steps to t' "$OUT/logs/rc_${name}_${v}_$rep.log")"
    done
  done
done
