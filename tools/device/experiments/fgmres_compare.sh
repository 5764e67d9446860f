#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): the fully implicit decks (DECKS: HETERO, THIN,
# LAYERED) with linear.solver = bicgstab (the default) and fgmres on cuda and NVIDIA's OpenCL:
# FGMRES applies CPR once an iteration against BiCGSTAB's twice. REPS rounds (2), the solvers'
# order swapped in every other round, so neither always runs first. Logs: $OUT/logs/fg_*.log.
pf=${PF:-build-gpu/apps/poreflow}
mkdir -p "$OUT/logs"
for rep in $(seq 1 "${REPS:-2}"); do
  if [ $((rep % 2)) = 1 ]; then order="bicgstab fgmres"; else order="fgmres bicgstab"; fi
  for deck in ${DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
    name=$(basename "$deck" .DATA)
    for b in cuda opencl; do
      for s in $order; do
        log="$OUT/logs/fg_${name}_${b}_${s}_r$rep.log"
        "$pf" run "$deck" --backend $b --cl-platform NVIDIA --no-output --set "linear.solver=\"$s\"" > "$log" 2>&1
        echo "r$rep $name $b $s (exit $?): $(grep -E 'steps to t' "$log" | sed 's/ on .*//') $(grep -E 'linear_iterations_total|newton_iterations_total|oil_produced|retried' "$log" | tr -s ' ' | tr '\n' ' ')"
      done
    done
  done
done
