#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): NVIDIA's OpenCL with a clFlush after every N
# launches (POREFLOW_CL_FLUSH = N; 0 or unset: never, as main), against cuda. Fully implicit decks
# (DECKS: HETERO, THIN, LAYERED), each of FLUSHES (0 1 4 16) on OpenCL and cuda once, REPS (2)
# repetitions, the order reversed every other one; then bench linalg's SIZES with each of
# LINALG_FLUSHES (0 4) on OpenCL and once on cuda. Logs: $OUT/logs/fl_DECK_VARIANT_REP.log.
pf=${PF:-build-gpu/apps/poreflow}
mkdir -p "$OUT/logs"
run() {  # variant deck rep: variant "cuda" or "clN"
  local name log b=opencl n=0
  name=$(basename "$2" .DATA)
  log="$OUT/logs/fl_${name}_$1_$3.log"
  if [ "$1" = cuda ]; then b=cuda; else n=${1#cl}; fi
  POREFLOW_CL_FLUSH=$n "$pf" run "$2" --backend $b --cl-platform NVIDIA --no-output > "$log" 2>&1
  echo "$name $1 $3 (exit $?): $(grep -E 'steps to t' "$log" | sed 's/ on .*//') $(grep -E 'linear_iterations_total|newton_iterations_total|oil_produced' "$log" | tr -s ' ' | tr '\n' ' ')"
}
variants="cuda"
for n in ${FLUSHES:-0 1 4 16}; do variants="$variants cl$n"; done
for rep in $(seq "${REPS:-2}"); do
  order=$variants
  [ $((rep % 2)) = 0 ] && order=$(echo $variants | tr ' ' '\n' | tac | tr '\n' ' ')
  for deck in ${DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
    for v in $order; do run "$v" "$deck" "$rep"; done
  done
done
if [ "${LINALG:-1}" = 1 ]; then
  "$pf" bench linalg --backends cuda --sizes "${SIZES:-spe10,spe10-2p}" --solvers amg,cpr \
    --json "$OUT/fl_linalg_cuda.json" > "$OUT/logs/fl_linalg_cuda.log" 2>&1
  echo "bench linalg cuda (exit $?): $(grep -E 'iterations, setup' "$OUT/logs/fl_linalg_cuda.log" | sed 's/.*bench linalg: //' | tr '\n' ';')"
  for n in ${LINALG_FLUSHES:-0 4}; do
    POREFLOW_CL_FLUSH=$n "$pf" bench linalg --backends opencl --cl-platform NVIDIA --sizes "${SIZES:-spe10,spe10-2p}" \
      --solvers amg,cpr --json "$OUT/fl_linalg_cl$n.json" > "$OUT/logs/fl_linalg_cl$n.log" 2>&1
    echo "bench linalg opencl, flush $n (exit $?): $(grep -E 'iterations, setup' "$OUT/logs/fl_linalg_cl$n.log" | sed 's/.*bench linalg: //' | tr '\n' ';')"
  done
fi
