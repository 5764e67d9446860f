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
env -u POREFLOW_COMMIT "$bin" run "$src/cases/impes_case1.toml" --backend omp --set grid.nx=12 --set grid.ny=12 --set grid.nz=3 --set time.end=60 \
  --set time.reports=6 --set output.snapshots=2 --out "$tmp/imp" -q
ls "$tmp/imp"
test -s "$tmp/imp/impes3d_series.csv" || { echo "missing impes3d_series.csv"; exit 1; }
head -1 "$tmp/imp/impes3d_series.csv" | grep -q "FOPR" || { echo "no FOPR column"; exit 1; }
test "$(wc -l < "$tmp/imp/impes3d_series.csv")" -ge 7 || { echo "fewer CSV rows than reports"; exit 1; }
ls "$tmp/imp"/*.pvd "$tmp/imp"/*.vtu "$tmp/imp"/*.png > /dev/null
# the run's statistics as JSON; IMPES by SOR writes no Krylov histories
grep -q '"scheme" : "IMPES"' "$tmp/imp/statistics.json" || { echo "statistics.json: no IMPES scheme"; exit 1; }
grep -q '"commit" : "unknown"' "$tmp/imp/statistics.json" || { echo "statistics.json: no commit, or one without POREFLOW_COMMIT"; exit 1; }
grep -q '"sor_iterations_total" : [1-9]' "$tmp/imp/statistics.json" || { echo "statistics.json: no SOR iterations"; exit 1; }
test ! -e "$tmp/imp/linear_solves.csv" || { echo "linear_solves.csv written for SOR"; exit 1; }
# the fully implicit scheme: its steps in the JSON as printed, a row per linear iteration and solve
"$bin" run "$src/cases/impes_case1.toml" --backend omp --set grid.nx=12 --set grid.ny=12 --set grid.nz=3 --set time.end=60 \
  --set time.reports=6 --set scheme='"fim"' --set output.vtk=false --set output.png=false --out "$tmp/fim" | tee "$tmp/fim.txt"
steps=$(sed -n 's/^impes3d: \([0-9]*\) steps to.*/\1/p' "$tmp/fim.txt")
grep -q "\"steps\" : $steps," "$tmp/fim/statistics.json" || { echo "statistics.json: not the $steps steps printed"; exit 1; }
lin=$(sed -n 's/^ *linear_iterations_total *\([0-9]*\)$/\1/p' "$tmp/fim.txt")
solves=$(grep -c ',0,[0-9.e-]*$' "$tmp/fim/linear_solves.csv" || true)  # iteration 0 starts a solve
rows=$(( $(wc -l < "$tmp/fim/linear_solves.csv") - 1 ))
test "$lin" -gt 0 && test "$rows" -eq $(( lin + solves )) || { echo "linear_solves.csv: $rows rows for $lin iterations of $solves solves"; exit 1; }
"$bin" compare "$src/cases/impes_case2.toml" --set time.end=20 --set time.reports=4 -q | tee "$tmp/cmpi.txt"
grep -q "differences against serial.*: ok" "$tmp/cmpi.txt"

# fluids3d (paper 001): a small run with every output, compared across the backends, its dry run
"$bin" run "$src/cases/fluids3d.toml" --backend omp --set grid.n=16 --set time.steps=12 --set output.snapshots=2 --out "$tmp/fl" -q
for f in fluids3d.pvd fluids3d_0000.vti fluids3d_0002.vti fluids3d_0002.png fluids3d_0002_xz.png fluids3d_series.csv; do
  test -s "$tmp/fl/$f" || { echo "missing output $f"; exit 1; }
done
head -1 "$tmp/fl/fluids3d_series.csv" | grep -q "total_density,max_velocity,sweeps_per_solve" || { echo "fluids3d CSV header"; exit 1; }
test "$(wc -l < "$tmp/fl/fluids3d_series.csv")" -eq 14 || { echo "fluids3d: not a CSV row per step"; exit 1; }
"$bin" compare "$src/cases/fluids3d.toml" --set grid.n=20 --set time.steps=10 -q | tee "$tmp/cmpf.txt"
grep -q "differences against serial.*: ok" "$tmp/cmpf.txt"
"$bin" run "$src/cases/fluids3d.toml" --dry-run | tee "$tmp/dry.txt"
grep -q "84\^3 fluids3d grid.*fits" "$tmp/dry.txt"
"$bin" bench fluids3d --backends omp --sizes 12,20 --sample-seconds 0.002 --cpu-budget 1 --json "$tmp/f.json" -q
python3 - "$tmp/f.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
rows = d['rows']
assert len(rows) == 8 and all(r['verified'] for r in rows)
runs = [r for r in rows if r['variant'] == '100 steps']
# every run row says what it checked and how it was timed; omp's speedup is over serial's steps
assert all('against serial double' in r['checked'] and 'single sample' in r['timing'] for r in runs), runs
for r in runs:
    s = next(x for x in runs if x['backend'] == 'serial' and x['size'] == r['size'])
    if r['backend'] == 'omp':
        assert r['speedup_steps'] == min(r['steps_timed'], s['steps_timed']), r
        assert abs(r['speedup_vs_serial'] - r['speedup_seconds_serial'] / r['speedup_seconds']) < 1e-9 * r['speedup_vs_serial'], r
PY

"$bin" bench reduce --backends omp --sizes 1000,2^16 --sample-seconds 0.002 --json "$tmp/r.json" -q
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert d['rows'] and all(r['verified'] for r in d['rows'])" "$tmp/r.json"
"$bin" bench bl1d --backends omp --sizes 1000 --sample-seconds 0.002 -q
"$bin" bench sor3d --backends omp --grids 20x18x9 --sample-seconds 0.002 --json "$tmp/s.json" -q
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert len(d['rows']) >= 4 and all(r['verified'] for r in d['rows'])" "$tmp/s.json"
"$bin" bench impes3d --backends omp --cases case1:12x12x3 --steps 2 --cases-dir "$src/cases" --json "$tmp/i.json" -q
python3 - "$tmp/i.json" <<'PY'
import json, sys
rows = json.load(open(sys.argv[1]))['rows']
assert len(rows) == 2 and all(r['verified'] for r in rows)
# the same steps of the same run on both, each checked against serial double's fields after them
assert rows[0]['steps_timed'] == rows[1]['steps_timed'], rows
assert all('against serial double' in r['checked'] and 'after one untimed step' in r['timing'] for r in rows), rows
PY
echo "command line smoke test passed"
