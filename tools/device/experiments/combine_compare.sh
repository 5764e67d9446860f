#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): the pressure AMG's coarse correction above the
# coarsest as one dense product (linear.amg_combine_rows = ROWS, "one") against the levels apart
# (0, "apart"), one build. Fully implicit decks (DECKS: HETERO, THIN, LAYERED) on cuda and NVIDIA's
# OpenCL, REPS (3) repetitions, the two settings' order alternated; then bench linalg's systems
# (SIZES) with --amg-combine-rows of each of LINALG_ROWS (0 and ROWS) on both backends (LINALG=0 skips them). Each run's
# output goes to $OUT/logs/cc_DECK_VARIANT_BACKEND_REP.log, the bench JSON to $OUT/cc_linalg_N_K.json (N the rows, K the run).
# linear.amg_combine_rows and --amg-combine-rows existed at 2ce628c only: it did not pay and was
# taken out (bench/results/2026-12-02_h200_combine_2ce628c/); build that commit to rerun this.
#   tools/device/experiments/combine_compare.sh
pf=${PF:-build-gpu/apps/poreflow}
rows=${ROWS:-2000}
mkdir -p "$OUT/logs"
run() {  # variant backend deck rep
  local n=0
  [ "$1" = one ] && n=$rows
  local name log
  name=$(basename "$3" .DATA)
  log="$OUT/logs/cc_${name}_$1_$2_$4.log"
  "$pf" run "$3" --backend "$2" --cl-platform NVIDIA --no-output --set linear.amg_combine_rows=$n > "$log" 2>&1
  echo "$name $1 $2 $4 (exit $?): $(grep -E 'steps to t' "$log" | sed 's/ on .*//') $(grep -E 'linear_iterations_total|newton_iterations_total' "$log" | tr -s ' ' | tr '\n' ' ')"
}
for rep in $(seq "${REPS:-3}"); do
  order="apart one"
  [ $((rep % 2)) = 0 ] && order="one apart"
  for deck in ${DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
    for b in cuda opencl; do
      for v in $order; do run "$v" "$b" "$deck" "$rep"; done
    done
  done
done
if [ "${LINALG:-1}" = 1 ]; then
  k=0
  for n in ${LINALG_ROWS:-0 $rows}; do
    k=$((k + 1))
    "$pf" bench linalg --backends cuda,opencl --cl-platform NVIDIA --sizes "${SIZES:-spe10,spe10-2p}" \
      --solvers amg,cpr --amg-combine-rows "$n" --json "$OUT/cc_linalg_${n}_$k.json" > "$OUT/logs/cc_linalg_${n}_$k.log" 2>&1
    echo "bench linalg, combine rows $n (exit $?): $(grep -E 'amg|cpr' "$OUT/logs/cc_linalg_${n}_$k.log" | tr -s ' ' | tail -8 | tr '\n' ';')"
  done
fi
