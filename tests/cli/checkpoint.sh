#!/usr/bin/env bash
# Checkpoint, restart and interruption on the command line: SIGTERM sent to a running case stops it
# after a step with a checkpoint and exit 143; the command it prints continues the run, which ends
# with the same CSV rows (none repeated, none missing), snapshots and collection as a run that was
# never stopped. Bad checkpoints are refused with one clear message and a non-zero exit.
# usage: checkpoint.sh POREFLOW_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
pid=
trap '[ -n "$pid" ] && kill -KILL $pid 2> /dev/null; rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
# shellcheck source=lib/expect_fail.sh
source "$(dirname "$0")/lib/expect_fail.sh"

case_file=$src/cases/buckley_leverett.toml
# about 8 000 cheap steps with a CSV row each: long enough to be stopped in the middle
args=(run "$case_file" --backend serial --pressure-solver tridiag --set grid.points=4001 --set output.snapshots=4
  --set output.png=false -q)

if ! "$bin" info | grep -q "^checkpoints: HDF5"; then
  out=$("$bin" "${args[@]}" --checkpoint-every 5 --out "$tmp/x" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && echo "$out" | grep -q "built without checkpoint support (HDF5)"; then
    echo "ok: built without HDF5, and --checkpoint-every says so"
    exit 0
  fi
  echo "FAIL: without HDF5 --checkpoint-every should say so, got (exit $rc): $out"
  exit 1
fi

# the run that is never stopped
"$bin" "${args[@]}" --out "$tmp/whole" > /dev/null || fail "the uninterrupted run failed"

# the run stopped by SIGTERM once it has written a few rows
"$bin" "${args[@]}" --out "$tmp/parts" > "$tmp/stop.out" 2> "$tmp/stop.err" &
pid=$!
for _ in $(seq 1 600); do
  [ -f "$tmp/parts/bl1d_series.csv" ] && [ "$(wc -l < "$tmp/parts/bl1d_series.csv")" -ge 50 ] && break
  sleep 0.05
done
kill -TERM $pid 2> /dev/null || fail "the run ended before the signal (make the case longer)"
wait $pid
rc=$?
pid=
msg=$(cat "$tmp/stop.err")
[ $rc -eq 143 ] || fail "after SIGTERM the exit status is $rc, expected 143: $msg"
echo "$msg" | grep -q "interrupted by SIGTERM at t = .*, step [0-9]*; checkpoint written to $tmp/parts/checkpoint.h5; continue with: poreflow run .*--restart $tmp/parts/checkpoint.h5" ||
  fail "no message saying how to restart: $msg"
echo "ok: SIGTERM -> exit $rc, $(echo "$msg" | tail -n 1 | cut -c1-120)..."
stopped_rows=$(wc -l < "$tmp/parts/bl1d_series.csv")
whole_rows=$(wc -l < "$tmp/whole/bl1d_series.csv")
[ "$stopped_rows" -lt "$whole_rows" ] || fail "the stopped run wrote all its rows ($stopped_rows): it was not stopped"

# the command the message prints continues the run
restart=$(echo "$msg" | sed -n 's/.*continue with: poreflow //p')
eval "set -- $restart"
"$bin" "$@" > "$tmp/restart.out" 2>&1 || fail "the restart failed: $(cat "$tmp/restart.out")"

cmp -s "$tmp/whole/bl1d_series.csv" "$tmp/parts/bl1d_series.csv" || fail "the CSV series differ from the uninterrupted run's"
# one row per step: the step column counts 0, 1, 2, ... with none repeated or missing
awk -F, 'NR > 1 && $2 != NR - 2 { print "row " NR - 1 " has step " $2; bad = 1; exit } END { exit bad }' \
  "$tmp/parts/bl1d_series.csv" || fail "the CSV rows are not one per step"
for f in "$tmp"/whole/*.vti "$tmp/whole/bl1d.pvd"; do
  cmp -s "$f" "$tmp/parts/$(basename "$f")" || fail "$(basename "$f") differs from the uninterrupted run's"
done
echo "ok: restarted run = uninterrupted run ($whole_rows CSV lines, $(ls "$tmp"/whole/*.vti | wc -l) snapshots)"

ck=$tmp/parts/checkpoint.h5
expect_fail "--restart: File does not exist" "${args[@]}" --no-output --restart "$tmp/none.h5"
expect_fail "checkpoint '$ck' was written for a different case \($case_file\): grid.points = 4001 there, 4002 here" \
  "${args[@]}" --no-output --restart "$ck" --set grid.points=4002
expect_fail "written in precision double.*--precision double" "${args[@]}" --no-output --restart "$ck" --precision float
head -c 3000 "$ck" > "$tmp/cut.h5"
expect_fail "checkpoint '$tmp/cut.h5' cannot be opened: the file is damaged or truncated" "${args[@]}" --no-output --restart "$tmp/cut.h5"
expect_fail "checkpoint '$case_file' is not an HDF5 file" "${args[@]}" --no-output --restart "$case_file"
expect_exit 2 "--checkpoint-every: 0 must be a number > 0" "${args[@]}" --no-output --checkpoint-every 0
expect_exit 2 "--checkpoint-every: -2 must be a number > 0" "${args[@]}" --no-output --checkpoint-every -2

# periodic checkpoints: the last is at the end, and a restart from it has nothing left to do
"$bin" "${args[@]}" --set time.end=3 --out "$tmp/every" --checkpoint-every 1 > "$tmp/every.out" 2>&1 ||
  fail "the run with --checkpoint-every failed: $(cat "$tmp/every.out")"
grep -q "^checkpoint $tmp/every/checkpoint.h5" "$tmp/every.out" || fail "no checkpoint at the end: $(cat "$tmp/every.out")"

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all checkpoint checks passed"
