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

# impes3d: case 1 small with every output, case 2's first 20 days compared across the backends
"$bin" run "$src/cases/impes_case1.toml" --backend omp --set grid.nx=12 --set grid.ny=12 --set grid.nz=3 --set time.end=60 \
  --set time.reports=6 --set output.snapshots=2 --out "$tmp/imp" -q
ls "$tmp/imp"
test -s "$tmp/imp/impes3d_series.csv" || { echo "missing impes3d_series.csv"; exit 1; }
head -1 "$tmp/imp/impes3d_series.csv" | grep -q "FOPR" || { echo "no FOPR column"; exit 1; }
test "$(wc -l < "$tmp/imp/impes3d_series.csv")" -ge 7 || { echo "fewer CSV rows than reports"; exit 1; }
ls "$tmp/imp"/*.pvd "$tmp/imp"/*.vtu "$tmp/imp"/*.png > /dev/null
"$bin" compare "$src/cases/impes_case2.toml" --set time.end=20 --set time.reports=4 -q | tee "$tmp/cmpi.txt"
grep -q "differences against serial.*: ok" "$tmp/cmpi.txt"

"$bin" bench reduce --backends omp --sizes 1000,2^16 --sample-seconds 0.002 --json "$tmp/r.json" -q
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['rows'] and all(r['verified'] for r in d['rows'])" "$tmp/r.json"
"$bin" bench bl1d --backends omp --sizes 1000 --sample-seconds 0.002 -q
"$bin" bench sor3d --backends omp --grids 20x18x9 --sample-seconds 0.002 --json "$tmp/s.json" -q
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['rows']) >= 4 and all(r['verified'] for r in d['rows'])" "$tmp/s.json"
"$bin" bench impes3d --backends omp --cases case1:12x12x3 --steps 2 --cases-dir "$src/cases" --json "$tmp/i.json" -q
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['rows']) == 2 and all(r['verified'] for r in d['rows'])" "$tmp/i.json"
echo "command line smoke test passed"
