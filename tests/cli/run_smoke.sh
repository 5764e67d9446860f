#!/usr/bin/env bash
# The command line end to end on the CPU: info, a small run with all outputs, compare, bench.
set -eu
bin=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
small=(--set grid.points=41 --set time.end=10 --set output.snapshots=2)

"$bin" info | tee "$tmp/info.txt"
grep -q "^serial *compiled" "$tmp/info.txt"
grep -q "^omp *compiled" "$tmp/info.txt"

"$bin" run "$src/cases/buckley_leverett.toml" --backend omp "${small[@]}" --out "$tmp/out" -q
for f in bl1d.pvd bl1d_0000.vti bl1d_0002.vti bl1d_0002.png bl1d_series.csv; do
  test -s "$tmp/out/$f" || { echo "missing output $f"; exit 1; }
done
head -1 "$tmp/out/bl1d_series.csv" | grep -q "^time,step,dt,front_position"

"$bin" compare "$src/cases/buckley_leverett.toml" --backends serial,omp "${small[@]}" -q | tee "$tmp/cmp.txt"
grep -q "differences against serial.*: ok" "$tmp/cmp.txt"

"$bin" bench reduce --backends omp --sizes 1000,2^16 --sample-seconds 0.002 --json "$tmp/r.json" -q
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['rows'] and all(r['verified'] for r in d['rows'])" "$tmp/r.json"
"$bin" bench bl1d --backends omp --sizes 1000 --sample-seconds 0.002 -q
echo "command line smoke test passed"
