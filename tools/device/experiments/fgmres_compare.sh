#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): the fully implicit decks (DECKS: HETERO, THIN,
# LAYERED) with linear.solver = bicgstab (the default) and fgmres on cuda and NVIDIA's OpenCL, one
# run each: FGMRES applies CPR once an iteration against BiCGSTAB's twice. Logs: $OUT/logs/fg_*.log.
# Not yet run on a GPU (the 2026-12-02 session had no device time left for it).
pf=${PF:-build-gpu/apps/poreflow}
mkdir -p "$OUT/logs"
for deck in ${DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
  name=$(basename "$deck" .DATA)
  for b in cuda opencl; do
    for s in bicgstab fgmres; do
      log="$OUT/logs/fg_${name}_${b}_$s.log"
      "$pf" run "$deck" --backend $b --cl-platform NVIDIA --no-output --set "linear.solver=\"$s\"" > "$log" 2>&1
      echo "$name $b $s (exit $?): $(grep -E 'steps to t' "$log" | sed 's/ on .*//') $(grep -E 'linear_iterations_total|newton_iterations_total|oil_produced|retried' "$log" | tr -s ' ' | tr '\n' ' ')"
    done
  done
done
