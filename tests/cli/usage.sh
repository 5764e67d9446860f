#!/usr/bin/env bash
# Usage errors on the command line: one line naming the option or subcommand and the usage exit
# code 2 (docs/reliability.md, "Exit codes"), ranges in plain numbers, the real defaults in the
# help; warnings for options that cannot do what they say; errors about the case before the
# backend's choice in the log. compare's own are in compare.sh.
# usage: usage.sh POREFLOW_BINARY SOURCE_DIR
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

quick=(run "$case_file" --no-output --set grid.points=11 --set time.end=0.1)

# CLI11's own codes (105 a value out of range, 106 a required argument missing, 109 an argument
# not expected) become the usage code, with one line
expect_exit 2 "^poreflow: error: case is required" run
expect_exit 2 "^poreflow: error: .*--no-such-option" "${quick[@]}" --no-such-option
expect_exit 2 "^poreflow: error: .*extra" run "$case_file" extra
expect_exit 2 "^poreflow: error: --threads: 5000 is not in \[0, 4096\]" "${quick[@]}" --threads 5000
expect_exit 2 "^poreflow: error: --threads: 'many' is not an integer" "${quick[@]}" --threads many
out=$("$bin" run 2>&1)
[ "$(echo "$out" | wc -l)" -eq 1 ] || fail "a usage error is one line, got: $out"
# an unknown subcommand is named as such, with the known ones
expect_exit 2 "unknown subcommand 'frobnicate' \(expected info, run, compare, bench or generate\)" frobnicate
expect_exit 2 "unknown subcommand 'frobnicate' of poreflow bench \(expected reduce, bl1d" bench frobnicate
out=$("$bin" frobnicate 2>&1)
echo "$out" | grep -q "A subcommand is required" && fail "an unknown subcommand is not 'A subcommand is required': $out"
expect_exit 2 "poreflow needs a subcommand: info, run, compare, bench or generate"
# ranges in plain numbers, not 309-digit bounds
for args in "run $case_file --device -1" "run $case_file --checkpoint-every -1" \
  "bench impes3d --serial-max-cells -1" "bench adi2d --cpu-budget -1" "run $case_file --cl-device -2"; do
  # shellcheck disable=SC2086
  out=$("$bin" $args 2>&1)
  rc=$?
  if [ $rc -ne 2 ] || echo "$out" | grep -qE "[0-9]{20}"; then fail "poreflow $args: exit $rc, $out"; else echo "ok: poreflow $args -> $out"; fi
done
expect_exit 2 "^poreflow: error: --device: -1 must be an integer >= 0" run "$case_file" --device -1
# --precision's help gives the real default of each subcommand and bench
expect_output "--precision .*float \| double \(default: the case's precision key, else double; cases/fluids3d.toml says float\)" \
  "--precision TEXT=double" run --help
expect_output "--precision .*\(default: the case's precision key" "--precision TEXT=double" compare --help
expect_output "--precision .*\(default: float\)" "--precision TEXT=double" bench fluids3d --help
expect_output "--precision .*\(default: float\)" "--precision TEXT=double" bench reduce --help
expect_output "--precision .*\(default: double\)" "--precision TEXT=double" bench impes3d --help
# empty names are refused
expect_exit 2 "^poreflow: error: --out: the value is empty" "${quick[@]}" --out ''
expect_exit 2 "^poreflow: error: --checkpoint: the value is empty" "${quick[@]}" --checkpoint ''
expect_exit 2 "^poreflow: error: --json: the value is empty" bench reduce --json ''

# options that cannot do what they say warn
hw=$(getconf _NPROCESSORS_ONLN)
expect_output "warning.*--threads $((hw + 1)) is more than the $hw hardware threads" "" "${quick[@]}" --backend omp --threads $((hw + 1))
expect_output "steps to" "warning" "${quick[@]}" --backend omp --threads 1
expect_output "warning.*--cl-device applies to the opencl backend; this run is on omp: ignored" "" "${quick[@]}" --backend omp --cl-device 1
expect_output "warning.*--threads applies to the omp backend; this run is on serial: ignored" "" "${quick[@]}" --backend serial --threads 1

# errors about the case come before the backend's choice in the log
out=$("$bin" run "$case_file" --no-output --set rock.porosity=1.5 2>&1)
rc=$?
if [ $rc -ne 1 ] || ! echo "$out" | grep -q "rock.porosity = 1.5"; then
  fail "a bad case value: exit $rc, $out"
elif echo "$out" | grep -qE "chose| backend [a-z]+ on "; then
  fail "the backend's choice is logged before the case's error: $out"
else
  echo "ok: a case error comes before the backend's choice: $out"
fi

[ $failures -eq 0 ] || { echo "$failures usage case(s) failed"; exit 1; }
echo "all usage errors are named, with the usage exit code"
