#!/usr/bin/env bash
# Eclipse decks on the command line: a deck runs (with --set on its numerics), writes its summary
# files, and a bad deck gives one message naming the keyword, the file and the line, exit non-zero.
# usage: decks.sh POREFLOW_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
deck=$src/tests/decks/SMALL.DATA

if ! "$bin" info 2>&1 | grep -q "Eclipse decks: yes"; then
  out=$("$bin" run "$deck" 2>&1)
  rc=$?
  if [ $rc -ne 0 ] && [ $rc -lt 128 ] && echo "$out" | grep -q "built without Eclipse deck support"; then
    echo "ok: without opm-common a deck is refused: $out"
    exit 0
  fi
  echo "FAIL: without opm-common: exit $rc, $out"
  exit 1
fi

source "$(dirname "$0")/lib/expect_fail.sh"

# a run: the summary files and the CSV with Eclipse names, numerics changed by --set
if "$bin" run "$deck" --backend serial -q -o "$tmp/run" --set output.vtk=false --set output.png=false \
  --set newton.cnv=1e-3 > "$tmp/run.log" 2>&1; then
  for f in SMALL.SMSPEC SMALL.UNSMRY impes3d_series.csv; do
    [ -s "$tmp/run/$f" ] || { echo "FAIL: $f not written"; failures=$((failures + 1)); }
  done
  head -1 "$tmp/run/impes3d_series.csv" | grep -q "FOPR.*WBHP:P1" || { echo "FAIL: CSV header"; failures=$((failures + 1)); }
  echo "ok: the deck ran and wrote its summary files"
else
  echo "FAIL: the deck did not run"; sed 's/^/    /' "$tmp/run.log"; failures=$((failures + 1))
fi
# time.end shortens the run: it ends at day 100 (between the reports at 90 and 120), with the
# full run's rows up to day 90 byte for byte and a row of its own at 100
if "$bin" run "$deck" --backend serial -q -o "$tmp/end" --set output.vtk=false --set output.png=false \
  --set newton.cnv=1e-3 --set time.end=100 > "$tmp/end.log" 2>&1; then
  if cmp -s <(head -n 5 "$tmp/run/impes3d_series.csv") <(head -n 5 "$tmp/end/impes3d_series.csv") &&
    [ "$(wc -l < "$tmp/end/impes3d_series.csv")" -eq 6 ] && tail -n 1 "$tmp/end/impes3d_series.csv" | grep -q "^100,"; then
    echo "ok: --set time.end=100 ends the deck's run at day 100 with the full run's rows before it"
  else
    echo "FAIL: the shortened run's CSV:"; sed 's/^/    /' "$tmp/end/impes3d_series.csv"; failures=$((failures + 1))
  fi
else
  echo "FAIL: --set time.end=100 on a deck"; sed 's/^/    /' "$tmp/end.log"; failures=$((failures + 1))
fi
# the run's first log line names the scheme: a deck's default is fully implicit, a TOML case's IMPES
check_first() {  # check_first WHAT EXPECTED CASE [OPTIONS...]
  local what=$1 expect=$2 line
  shift 2
  line=$("$bin" run "$@" --backend serial --no-output --set time.end=2 2>&1 | head -n 1)
  if echo "$line" | grep -qF "$expect"; then
    echo "ok: $what: the first log line names the scheme: $line"
  else
    echo "FAIL: $what: the first log line is '$line', not '$expect'"; failures=$((failures + 1))
  fi
}
check_first "a deck" "impes3d, scheme fully implicit: backend serial" "$deck"
check_first "a deck set to IMPES" "impes3d, scheme IMPES: backend serial" "$deck" --set 'scheme="impes"'
check_first "a TOML case" "impes3d, scheme IMPES: backend serial" "$src/cases/impes_case1.toml" \
  --set grid.nx=10 --set grid.ny=10 --set grid.nz=3
"$bin" run "$deck" --dry-run > "$tmp/dry.log" 2>&1 && grep -q "needs" "$tmp/dry.log" && echo "ok: --dry-run of a deck" ||
  { echo "FAIL: --dry-run"; cat "$tmp/dry.log"; failures=$((failures + 1)); }

# bench decks: a whole deck per backend, its iterations in the JSON, the row verified
if "$bin" bench decks --decks "$deck" --backends serial --json "$tmp/bd.json" > "$tmp/bd.log" 2>&1 &&
  grep -q '"newton_iterations"' "$tmp/bd.json" && grep -q '^SMALL .* yes$' "$tmp/bd.log"; then
  echo "ok: bench decks runs a deck and writes its iterations"
else
  echo "FAIL: bench decks"; sed 's/^/    /' "$tmp/bd.log"; failures=$((failures + 1))
fi
# serial only where --backends names it; every row says it is a single run
if "$bin" bench decks --decks "$deck" --backends omp --threads 2 --json "$tmp/bdo.json" > "$tmp/bdo.log" 2>&1 &&
  ! grep -q '"backend" : "serial"' "$tmp/bdo.json" && grep -q '"backend" : "omp"' "$tmp/bdo.json" &&
  grep -q '"timing" : "one run of the whole deck' "$tmp/bdo.json"; then
  echo "ok: bench decks runs serial only where asked, a row a single run"
else
  echo "FAIL: bench decks --backends omp"; sed 's/^/    /' "$tmp/bdo.log"; failures=$((failures + 1))
fi

expect_fail "deck '$tmp/NOPE.DATA' does not exist" run "$tmp/NOPE.DATA"
sed 's/^WATER$/WATER\nDISGAS/' "$deck" > "$tmp/DISGAS.DATA"
expect_fail "DISGAS \($tmp/DISGAS.DATA:1[0-9], section RUNSPEC\) is not supported" run "$tmp/DISGAS.DATA"
sed 's/^PROPS$/MULTFLT\n F1 0.1 \/\n\/\nPROPS/' "$deck" > "$tmp/MULTFLT.DATA"
expect_fail "MULTFLT \($tmp/MULTFLT.DATA:[0-9]+" run "$tmp/MULTFLT.DATA"
sed 's/^ 300\*0.2 \/$/ 300*0.2 \/\nnot a keyword at all/' "$deck" > "$tmp/SYNTAX.DATA"
expect_fail "SYNTAX.DATA.*line [0-9]+" run "$tmp/SYNTAX.DATA"
# opm-common's messages in poreflow's words: one line, the keyword, file and line, the deck's units
printf 'RUNSPEC\n\x01\x02{\xff garbage\n' > "$tmp/BINARY.DATA"
expect_fail "^poreflow: error: deck '$tmp/BINARY.DATA' line 2, column 1: byte 0x01 is not text" run "$tmp/BINARY.DATA"
[ "$("$bin" run "$tmp/BINARY.DATA" -q 2>&1 | wc -l)" -eq 1 ] || { echo "FAIL: a binary deck's message is not one line"; failures=$((failures + 1)); }
sed 's/^ 10 10 3 \/$/ 0 10 3 \//' "$deck" > "$tmp/DIM0.DATA"
expect_fail "DIMENS \($tmp/DIM0.DATA:6\): NX = 0 must be an integer >= 1" run "$tmp/DIM0.DATA"
sed '0,/^ 5\*30 \/$/s// 5*30 -10 \//' "$deck" > "$tmp/TSTEP.DATA"
expect_fail "^poreflow: error: deck '.*': TSTEP \($tmp/TSTEP.DATA:103\): step 6 = -10 days must be" run "$tmp/TSTEP.DATA"
expect_fail "unknown key 'pressure.tolerence'" run "$deck" --set pressure.tolerence=1e-8
expect_fail "grid.nx is set by the deck SMALL.DATA \(DIMENS\); change the deck" run "$deck" --set grid.nx=5
expect_fail "time.end = 0 must be a finite number > 0" run "$deck" --set time.end=0
expect_fail "time.end = 400 is past the end of the deck SMALL.DATA \(day 300\)" run "$deck" --set time.end=400

# linear.batch = 0 (the default) lets the batches follow the backend: on the CPU batches of 2, as
# linear.batch = 2; on OpenCL (no recording) a read after every iteration once 3/4 of the guess has
# run, so few iterations past the stops. The same iterations are taken either way. Past the stops:
# enqueued - linear - Newton (each solve enqueues its setup).
past() { awk '$1 == "linear_iterations_enqueued" { e = $2 } $1 == "linear_iterations_total" { l = $2 }
              $1 == "newton_iterations_total" { n = $2 } END { print e - l - n, l, n }' "$1"; }
batch_backends=(serial)
"$bin" info 2>/dev/null | grep -q "^available now:.*opencl" && batch_backends+=(opencl)
for b in "${batch_backends[@]}"; do
  "$bin" run "$deck" --backend "$b" --no-output > "$tmp/b0.txt" 2>&1 || { echo "FAIL: $b linear.batch 0 exited $?"; failures=$((failures + 1)); }
  "$bin" run "$deck" --backend "$b" --no-output --set linear.batch=2 > "$tmp/b2.txt" 2>&1 ||
    { echo "FAIL: $b linear.batch 2 exited $?"; failures=$((failures + 1)); }
  read -r past0 lin0 newt0 <<< "$(past "$tmp/b0.txt")"
  read -r past2 lin2 newt2 <<< "$(past "$tmp/b2.txt")"
  echo "$b: past the stops $past0 (linear.batch 0), $past2 (2); linear $lin0, $lin2; Newton $newt0, $newt2"
  [ "$lin0" = "$lin2" ] && [ "$newt0" = "$newt2" ] || { echo "FAIL: $b: the batches changed the iterations taken"; failures=$((failures + 1)); }
  if [ "$b" = serial ]; then
    [ -n "$past0" ] && [ "$past0" = "$past2" ] || { echo "FAIL: serial: linear.batch 0 ran $past0 past the stops, 2 ran $past2"; failures=$((failures + 1)); }
  else
    [ -n "$past0" ] && [ -n "$past2" ] && [ "$past0" -ge 0 ] && [ $((4 * past0)) -lt "$past2" ] ||
      { echo "FAIL: $b: linear.batch 0 ran $past0 iterations past the stops, batches of 2 $past2"; failures=$((failures + 1)); }
  fi
done

[ $failures -eq 0 ] || { echo "$failures failure(s)"; exit 1; }
echo "all deck checks passed"
