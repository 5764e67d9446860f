#!/usr/bin/env bash
# poreflow compare: its options are checked (usage exit code 2), a single backend or one named
# twice is refused, errors about the case come before any backend runs, and its table names every
# device in full and, per row, the field it compared.
# usage: compare.sh POREFLOW_BINARY SOURCE_DIR
set -u
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case_file=$src/cases/buckley_leverett.toml
failures=0

source "$(dirname "$0")/lib/expect_fail.sh"

fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

expect_exit 2 "^poreflow: error: --tolerance: -1 must be a number > 0" compare "$case_file" --tolerance -1
out=$("$bin" compare "$case_file" --tolerance -1 2>&1)
echo "$out" | grep -qE "[0-9]{20}" && fail "--tolerance's range in a 309-digit number: $out"
expect_exit 2 "^poreflow: error: --backends: the value is empty" compare "$case_file" --backends ''
expect_exit 2 "^poreflow: error: --backends ',' names no backend" compare "$case_file" --backends ,
out=$("$bin" compare "$case_file" --backends serial,omp --set rock.porosity=1.5 2>&1)
rc=$?
if [ $rc -ne 1 ] || echo "$out" | grep -q "running on"; then fail "compare with a bad case: exit $rc, $out"; else echo "ok: compare: $out"; fi

# compare: a single backend, or one named twice, is refused; the table names each device in full
# and, per row, the field it compared (the reference row and rows without a difference say so)
cmp=(compare "$case_file" --set grid.points=11 --set time.end=0.1)
expect_exit 2 "^poreflow: error: --backends names one backend \(serial\): compare needs two or more" "${cmp[@]}" --backends serial
expect_exit 2 "^poreflow: error: --backends names serial twice" "${cmp[@]}" --backends serial,omp,serial
backends=serial,omp
"$bin" info | grep -q "available now:.*opencl" && backends=$backends,opencl
if "$bin" "${cmp[@]}" --backends $backends > "$tmp/cmp.txt" 2> "$tmp/cmp.log"; then
  cat "$tmp/cmp.txt"
  sed -n 's/.*compare: running on [a-z]* (\(.*\))$/\1/p' "$tmp/cmp.log" > "$tmp/devices.txt"
  [ "$(wc -l < "$tmp/devices.txt")" -eq "$(echo $backends | tr ',' '\n' | wc -l)" ] || fail "compare's log: $(cat "$tmp/cmp.log")"
  while read -r device; do
    grep -qF -- "$device" "$tmp/cmp.txt" || fail "compare's table cuts the device '$device'"
  done < "$tmp/devices.txt"
  grep -qE "^serial .* reference$" "$tmp/cmp.txt" || fail "the reference row does not say it is the reference"
  grep -qE "^omp .* (saturation|pressure|all equal)$" "$tmp/cmp.txt" || fail "the omp row names no field"
  grep -qE "^compared fields: pressure, saturation" "$tmp/cmp.txt" || fail "compare does not list the fields it compared"
  grep -qE "^backend .* in field$" "$tmp/cmp.txt" || fail "the field column's heading does not say which field it names"
  echo "ok: compare's table"
else
  fail "compare --backends $backends: $(cat "$tmp/cmp.log")"
fi

[ $failures -eq 0 ] || { echo "$failures compare case(s) failed"; exit 1; }
echo "compare's options, refusals and table are as documented"
