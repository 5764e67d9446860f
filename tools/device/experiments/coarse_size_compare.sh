#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): the AMG's coarsest level larger, so that a level
# of a few hundred rows is solved by its dense inverse (one launch) instead of being smoothed and
# coarsened once more (about 8 launches a cycle). bench linalg's SPE10-like systems (SIZES) with the
# default coarsest size and with --amg-coarse-size CS (700: CG + AMG's 541-row level and CPR's
# 642-row level become the coarsest), on cuda and NVIDIA's OpenCL, REPS (2) rounds in a rotated
# order; then the decks (DECKS) with linear.coarse_size 150 (the default) and DECK_CS (500),
# DECK_REPS (2) times. JSON: $OUT/cs_VARIANT_REP.json; logs in $OUT/logs.
pf=${PF:-build-gpu/apps/poreflow}
cs=${CS:-700}
mkdir -p "$OUT/logs"
one() {  # backend size rep
  local args=(--backends "$1")
  [ "$1" = opencl ] && args+=(--cl-platform NVIDIA)
  [ "$2" != 0 ] && args+=(--amg-coarse-size "$2")
  "$pf" bench linalg "${args[@]}" --sizes "${SIZES:-spe10,spe10-2p}" --solvers amg,cpr --solves 7 \
    --json "$OUT/cs_$1_$2_$3.json" -v > "$OUT/logs/cs_$1_$2_$3.log" 2>&1
  echo "$1 coarse $2 round $3 (exit $?): $(grep -E 'iterations, setup' "$OUT/logs/cs_$1_$2_$3.log" | sed 's/.*bench linalg: //' | tr '\n' ';')"
}
orders=("cuda:0 cuda:$cs opencl:0 opencl:$cs" "opencl:$cs opencl:0 cuda:$cs cuda:0")
for rep in $(seq "${REPS:-2}"); do
  for v in ${orders[$(((rep - 1) % 2))]}; do one "${v%%:*}" "${v##*:}" "$rep"; done
done
for rep in $(seq "${DECK_REPS:-2}"); do
  for deck in ${DECKS:-HETERO}; do
    for b in cuda opencl; do
      for c in 150 "${DECK_CS:-500}"; do
        log="$OUT/logs/deck_${deck}_${b}_${c}_$rep.log"
        "$pf" run "validation/decks/$deck.DATA" --backend "$b" --cl-platform NVIDIA --threads 16 -v \
          -o "/tmp/cs_${deck}_${b}_${c}" --set output.vtk=false --set output.png=false --set "linear.coarse_size=$c" > "$log" 2>&1
        echo "$deck $b coarse $c round $rep (exit $?): $(grep -E 'steps to t|wall_seconds_total|linear_iterations_total|newton_iterations_total|oil_produced|seconds_preconditioner_refresh|seconds_opencl_build' "$log" | tr -s ' ' | tr '\n' ';')"
        grep -m3 -E "AMG set up" "$log" | sed 's/^/    /'
      done
    done
  done
done
