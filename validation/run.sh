#!/usr/bin/env bash
# Runs OPM Flow and poreflow on the validation decks, times both, compares them (compare.py),
# writes one plot per deck into docs/validation/ and the table into docs/validation.md.
#
#   validation/run.sh [--decks "QFS LAYERED HETERO"] [--backend omp|cuda] [--threads N]
#                     [--no-flow] [--no-poreflow] [--no-docs] [--strict] [--out DIR]
#
#   --decks       which decks (names of validation/decks/NAME.DATA); default all three
#   --backend     poreflow's backend (default omp, or $BACKEND)
#   --threads N   threads for both: flow --threads-per-process=N, OMP_NUM_THREADS=N for poreflow
#                 (default: nproc)
#   --no-flow     do not run flow: use validation/reference/NAME (committed, QFS only) or an
#                 earlier run's OUT/flow/NAME
#   --no-poreflow do not run poreflow: compare an earlier run's OUT/poreflow/NAME
#   --no-docs     write plots and table under OUT/ only, leave docs/ alone
#   --strict      exit 1 when a goal is missed (compare.py --strict)
#   --out DIR     results directory (default out/validation)
# Environment: FLOW_ARGS, flow's extra options: default --solver-max-time-step-in-days=1, the
#              reference (flow's own steps of up to 5-10 days move breakthrough by several per
#              cent, docs/validation.md); FLOW_ARGS= runs flow with its defaults (the timing).
#              POREFLOW (default build/apps/poreflow), FLOW (default flow),
#              PYTHON (default /usr/bin/python3), NICE (e.g. "nice" on a shared machine).
# Timings: OUT/timings.json, {deck: {flow|poreflow_<backend>: {wall_s, cpu_s, threads, host}}};
# compare.py puts them into the table.  Run flow and poreflow on the same, otherwise idle, cores.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

decks="QFS LAYERED HETERO"
backend="${BACKEND:-omp}"
threads="$(nproc)"
run_flow=1
run_poreflow=1
docs=1
strict=""
FLOW_ARGS=${FLOW_ARGS---solver-max-time-step-in-days=1}
out="out/validation"
while [ $# -gt 0 ]; do
  case "$1" in
    --decks) decks="$2"; shift 2 ;;
    --backend) backend="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --no-flow) run_flow=0; shift ;;
    --no-poreflow) run_poreflow=0; shift ;;
    --no-docs) docs=0; shift ;;
    --strict) strict="--strict"; shift ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

POREFLOW="${POREFLOW:-build/apps/poreflow}"
FLOW="${FLOW:-flow}"
PYTHON="${PYTHON:-/usr/bin/python3}"
NICE="${NICE:-}"
timings="$out/timings.json"
mkdir -p "$out"

"$PYTHON" validation/gen_hetero.py --check >/dev/null || {
  echo "run.sh: validation/decks/hetero/*.INC differ from validation/gen_hetero.py" >&2; exit 1; }

# record DECK RUNNER TIMEFILE: /usr/bin/time's "wall user sys" into the timings JSON
record() {
  "$PYTHON" - "$timings" "$1" "$2" "$3" "$threads" <<'PY'
import json, os, socket, sys
path, deck, runner, tf, threads = sys.argv[1:]
wall, user, sysc = (float(x) for x in open(tf).read().split()[-3:])
d = json.load(open(path)) if os.path.exists(path) else {}
d.setdefault(deck, {})[runner] = {"wall_s": wall, "cpu_s": user + sysc, "threads": int(threads),
                                  "host": socket.gethostname()}
json.dump(d, open(path, "w"), indent=1, sort_keys=True)
print(f"{deck} {runner}: {wall:.1f} s wall, {user + sysc:.1f} s cpu, {threads} threads")
PY
}

cases=()
for name in $decks; do
  deck="validation/decks/$name.DATA"
  [ -f "$deck" ] || { echo "run.sh: no $deck" >&2; exit 2; }
  fdir="$out/flow/$name"
  pdir="$out/poreflow/$name"
  if [ "$run_flow" = 1 ]; then
    rm -rf "$fdir"; mkdir -p "$fdir"
    echo "== flow $name ($threads threads)"
    /usr/bin/time -f "%e %U %S" -o "$fdir/time.txt" \
      $NICE "$FLOW" "$deck" --output-dir="$fdir" --threads-per-process="$threads" $FLOW_ARGS \
      >"$fdir/flow.log" 2>&1 || { echo "run.sh: flow failed on $name, see $fdir/flow.log" >&2; exit 1; }
    record "$name" flow "$fdir/time.txt"
  elif [ ! -f "$fdir/$name.SMSPEC" ]; then
    if [ -d "validation/reference/$name" ]; then
      fdir="validation/reference/$name"
    else
      echo "run.sh: --no-flow: no reference for $name (validation/reference/$name or $fdir)" >&2; exit 1
    fi
  fi
  if [ "$run_poreflow" = 1 ]; then
    rm -rf "$pdir"; mkdir -p "$pdir"
    echo "== poreflow $name ($backend, $threads threads)"
    OMP_NUM_THREADS="$threads" /usr/bin/time -f "%e %U %S" -o "$out/poreflow_$name.time" \
      $NICE "$POREFLOW" run "$deck" --backend "$backend" -o "$pdir" --set output.vtk=false --set output.png=false \
      >"$out/poreflow_$name.log" 2>&1 || { echo "run.sh: poreflow failed on $name, see $out/poreflow_$name.log" >&2; exit 1; }
    mv "$out/poreflow_$name.log" "$out/poreflow_$name.time" "$pdir/"
    record "$name" "poreflow_$backend" "$pdir/poreflow_$name.time"
  fi
  cases+=(--case "$name" "$fdir" "$pdir")
done

if [ "$docs" = 1 ]; then
  plots=(--plot-dir docs/validation --update-md docs/validation.md)
else
  plots=(--plot-dir "$out/plots")
fi
"$PYTHON" validation/compare.py "${cases[@]}" --timings "$timings" --results-dir "$out/compare" \
  --table "$out/table.md" "${plots[@]}" $strict
