#!/usr/bin/env bash
# The fully implicit decks on cuda (CUDA Graphs on) with linear.batch = each of BATCHES, alternating,
# REPS times: logs batch_DECK_B_REP.log under $OUT/logs (gpu.sh "cmd:tools/device/batch_runs.sh").
# tools/device/batch_json.py makes their JSON.
set -uo pipefail
PF=${PF:-build-gpu/apps/poreflow}
for deck in ${DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
  name=$(basename "$deck" .DATA)
  for rep in $(seq "${REPS:-2}"); do
    for b in ${BATCHES:-2 16}; do
      env PYTHONHOME=/opt/kit/usr "$PF" run "$deck" --backend cuda --no-output --set linear.batch=$b > "$OUT/logs/batch_${name}_${b}_$rep.log" 2>&1
      echo "batch_${name}_${b}_$rep: exit $? $(grep -E '^\s*wall_seconds_total' "$OUT/logs/batch_${name}_${b}_$rep.log")"
    done
  done
done
