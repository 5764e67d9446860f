#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): the validation decks (DECKS) on BACKENDS (cuda)
# with each of CONTROLS (time.control = "changes" and "newton", OPM Flow's Newton-iteration rule),
# once. Their summaries are packed in $OUT/deck-runs.tar.gz (deck-runs/NAME_BACKEND_CONTROL; the
# device tool brings back few loose files) for validation/compare.py against OPM Flow's committed
# results (validation/reference/NAME/default_steps). Logs: $OUT/logs/sc_*.log.
pf=${PF:-build-gpu/apps/poreflow}
runs=$(mktemp -d)
mkdir -p "$OUT/logs" "$runs/deck-runs"
[ -f validation/decks/spe10/PORO.INC ] || validation/gen_spe10.sh "$pf" > "$OUT/logs/sc_gen_spe10.log" 2>&1
for deck in ${DECKS:-validation/decks/QFS.DATA validation/decks/LAYERED.DATA validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/SPE10.DATA}; do
  name=$(basename "$deck" .DATA)
  for b in ${BACKENDS:-cuda}; do
    for c in ${CONTROLS:-changes newton}; do
      dir="$runs/deck-runs/${name}_${b}_$c"
      log="$OUT/logs/sc_${name}_${b}_$c.log"
      "$pf" run "$deck" --backend $b --cl-platform NVIDIA -o "$dir" --set output.vtk=false --set output.png=false --set "time.control=\"$c\"" > "$log" 2>&1
      echo "$name $b $c (exit $?): $(grep -E 'steps to t' "$log" | sed 's/ on .*//') $(grep -E 'linear_iterations_total|newton_iterations_total|oil_produced|retried|linear_solves_retried' "$log" | tr -s ' ' | tr '\n' ' ')"
      rm -f "$dir"/*.{csv,png}
    done
  done
done
tar -czf "$OUT/deck-runs.tar.gz" -C "$runs" deck-runs
