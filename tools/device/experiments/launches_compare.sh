#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build and build-old): fewer launches a V-cycle (this build)
# against the base commit's build (.gpu-old). Fully implicit decks (DECKS: HETERO, THIN, LAYERED)
# on cuda and NVIDIA's OpenCL, old and new alternating REPS (2) times; bench linalg's SPE10-like
# systems (CG + AMG, BiCGSTAB + CPR) with each build; then SPE10's whole deck with this build on
# cuda and on OpenCL (SPE10=0 skips it). Each run's output goes to $OUT/logs/lc_*.log ("N steps to
# t in X s": the steps' time, OpenCL's program builds left out); the benches' JSON to $OUT.
#   tools/device/experiments/launches_compare.sh
new=${PF:-build-gpu/apps/poreflow}
old=${PF_OLD:-build-gpu-old/apps/poreflow}
mkdir -p "$OUT/logs"
for rep in $(seq "${REPS:-2}"); do
  for deck in ${DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
    name=$(basename "$deck" .DATA)
    for v in old new; do
      bin=$new
      [ $v = old ] && bin=$old
      for b in cuda opencl; do
        log="$OUT/logs/lc_${name}_${v}_${b}_$rep.log"
        "$bin" run "$deck" --backend $b --cl-platform NVIDIA --no-output > "$log" 2>&1
        echo "$name $v $b $rep (exit $?): $(grep -E 'steps to t' "$log")"
      done
    done
  done
done
for v in old new; do
  bin=$new
  [ $v = old ] && bin=$old
  "$bin" bench linalg --backends cuda,opencl --cl-platform NVIDIA --sizes spe10 --solvers amg,cpr \
    --json "$OUT/lc_linalg_$v.json" > "$OUT/logs/lc_linalg_$v.log" 2>&1
  echo "linalg $v (exit $?)"
  grep -E "cg\+amg|cpr" "$OUT/logs/lc_linalg_$v.log" | head -8
done
if [ "${SPE10:-1}" = 1 ]; then
  [ -f validation/decks/spe10/PORO.INC ] || validation/gen_spe10.sh "$new" > "$OUT/logs/lc_gen_spe10.log" 2>&1
  for b in cuda opencl; do
    log="$OUT/logs/lc_SPE10_new_${b}_1.log"
    "$new" run validation/decks/SPE10.DATA --backend $b --cl-platform NVIDIA --no-output > "$log" 2>&1
    echo "SPE10 new $b (exit $?): $(grep -E 'steps to t' "$log")"
  done
fi
