#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build and build-old): the ILU's sweeps adding into CPR's z
# (this build, "new") against the base commit's build (.gpu-old, "old"), and the pressure AMG's
# coarse levels in one launch at the backend's choice (linear.amg_tail_rows = -1, "tail": 1 100
# rows on an OpenCL GPU, none on cuda) with this build. Fully implicit decks (DECKS: HETERO, THIN,
# LAYERED) on NVIDIA's OpenCL (old, new, tail) and cuda (old, new), REPS (3) repetitions, the
# variants' order rotated each repetition; then SPE10's whole deck on OpenCL with this build, tail
# and then without (SPE10=0 skips it). Each run's output goes to $OUT/logs/it_DECK_VARIANT_BACKEND_REP.log.
#   tools/device/experiments/ilu_tail_compare.sh
new=${PF:-build-gpu/apps/poreflow}
old=${PF_OLD:-build-gpu-old/apps/poreflow}
mkdir -p "$OUT/logs"
run() {  # variant backend deck rep
  local bin=$new extra=()
  [ "$1" = old ] && bin=$old
  [ "$1" = tail ] && extra=(--set linear.amg_tail_rows=-1)
  local name log
  name=$(basename "$3" .DATA)
  log="$OUT/logs/it_${name}_$1_$2_$4.log"
  "$bin" run "$3" --backend "$2" --cl-platform NVIDIA --no-output "${extra[@]}" > "$log" 2>&1
  echo "$name $1 $2 $4 (exit $?): $(grep -E 'steps to t' "$log" | sed 's/ on .*//') $(grep -E 'linear_iterations_total|newton_iterations_total' "$log" | tr -s ' ' | tr '\n' ' ')"
}
orders=("old new tail" "new tail old" "tail old new")
for rep in $(seq "${REPS:-3}"); do
  order=${orders[$(((rep - 1) % 3))]}
  for deck in ${DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
    for v in $order; do
      run "$v" opencl "$deck" "$rep"
      [ "$v" = tail ] || run "$v" cuda "$deck" "$rep"
    done
  done
done
if [ "${SPE10:-1}" = 1 ]; then
  [ -f validation/decks/spe10/PORO.INC ] || validation/gen_spe10.sh "$new" > "$OUT/logs/it_gen_spe10.log" 2>&1
  run tail opencl validation/decks/SPE10.DATA 1
  run new opencl validation/decks/SPE10.DATA 1
fi
