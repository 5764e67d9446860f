#!/usr/bin/env bash
# Runs OPM Flow and poreflow on the validation decks, times both, compares them (compare.py),
# writes one plot per deck into docs/validation/ and the table into docs/validation.md.
#
#   validation/run.sh [--decks "QFS LAYERED HETERO THIN"] [--backends "omp opencl"] [--threads N]
#                     [--flow-steps default|1day] [--flow-mpi N] [--no-flow] [--no-poreflow] [--no-docs]
#                     [--goals default|fim] [--strict] [--no-compare] [--out DIR]
#
#   --decks       which decks (names of validation/decks/NAME.DATA); default QFS LAYERED HETERO
#                 THIN; SPE10 (1.1 M cells, whose property files validation/gen_spe10.sh writes
#                 when they are missing) only when named: flow is slow on it (16 ranks reached
#                 day 1.1 of 2000 in 541 s on the H100 machine; docs/fim.md)
#   --backends    poreflow's backends, each compared on its own (NAME@backend in the tables);
#                 default omp, or $BACKEND; --backend B is --backends B
#   --flow-steps  default (the main figure): flow with its own time steps, the run a user makes;
#                 1day: flow's steps held to 1 day (--solver-max-time-step-in-days=1), closer to
#                 converged in time (docs/validation.md says why both)
#   --threads N   threads for both: flow --threads-per-process=N, OMP_NUM_THREADS=N for poreflow
#                 (default: nproc)
#   --flow-mpi N  flow on N MPI processes of one thread each, launched by $FLOW_LAUNCH (default
#                 "mpirun --bind-to none"): the timing anchor of issue 23 with FLOW_ARGS=--linear-solver=cpr
#                 (its results are the same run's; poreflow keeps --threads)
#   --no-flow     do not run flow: use the committed reference (validation/reference/NAME/
#                 default_steps or validation/reference/NAME for 1day) or an earlier run's
#                 OUT/flow_STEPS/NAME
#   --no-poreflow do not run poreflow: compare an earlier run's OUT/poreflow/BACKEND/NAME
#   --no-docs     write plots and table under OUT/ only, leave docs/ alone
#   --goals G     compare.py's goals: default, or fim (issue 23's, with the step and Newton counts)
#   --strict      exit 1 when a goal is missed (compare.py --strict)
#   --no-compare  run and time only (a machine without numpy); compare the folders later with
#                 --no-flow --no-poreflow --out DIR
#   --out DIR     results directory (default out/validation)
# Environment: FLOW_ARGS, flow's extra options (replaces what --flow-steps sets);
#              POREFLOW (default build/apps/poreflow), POREFLOW_ARGS (its extra options, e.g.
#              "--cl-platform NVIDIA"), FLOW (default flow), FLOW_LAUNCH (with --flow-mpi),
#              PYTHON (default /usr/bin/python3), NICE (e.g. "nice" on a shared machine).
# Timings: OUT/timings_STEPS.json, {deck: {flow|poreflow_<backend>: {wall_s, cpu_s, threads,
#          ranks, host}}} (written as each run ends); compare.py puts them into the table. Run flow
#          and poreflow on the same, otherwise idle, cores. Each poreflow run's own statistics are
#          in its folder (statistics.json: steps, Newton and linear iterations, the steps' seconds).
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

decks="QFS LAYERED HETERO THIN"
backends="${BACKEND:-omp}"
flow_steps=default
threads="$(nproc)"
flow_ranks=0
run_flow=1
run_poreflow=1
docs=1
compare=1
goals=default
strict=""
out="out/validation"
while [ $# -gt 0 ]; do
  case "$1" in
    --decks) decks="$2"; shift 2 ;;
    --backend|--backends) backends="${2//,/ }"; shift 2 ;;
    --flow-steps) flow_steps="$2"; shift 2 ;;
    --threads) threads="$2"; shift 2 ;;
    --flow-mpi) flow_ranks="$2"; shift 2 ;;
    --no-flow) run_flow=0; shift ;;
    --no-poreflow) run_poreflow=0; shift ;;
    --no-docs) docs=0; shift ;;
    --strict) strict="--strict"; shift ;;
    --no-compare) compare=0; shift ;;
    --goals) goals="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,40p' "$0"; exit 0 ;;
    *) echo "run.sh: unknown option $1" >&2; exit 2 ;;
  esac
done

case "$flow_steps" in
  default) FLOW_ARGS=${FLOW_ARGS-}; refsub="/default_steps"; section="validation-table" ;;
  1day) FLOW_ARGS=${FLOW_ARGS---solver-max-time-step-in-days=1}; refsub=""; section="validation-table-dt1" ;;
  *) echo "run.sh: --flow-steps must be default or 1day" >&2; exit 2 ;;
esac
POREFLOW="${POREFLOW:-build/apps/poreflow}"
FLOW="${FLOW:-flow}"
PYTHON="${PYTHON:-/usr/bin/python3}"
NICE="${NICE:-}"
timings="$out/timings_$flow_steps.json"
mkdir -p "$out"

"$PYTHON" validation/gen_hetero.py --check >/dev/null || {
  echo "run.sh: validation/decks/hetero/*.INC differ from validation/gen_hetero.py" >&2; exit 1; }

# record DECK RUNNER TIMEFILE [RANKS]: /usr/bin/time's "wall user sys" into the timings JSON
# (RANKS > 0: an MPI run of one thread a rank)
record() {
  "$PYTHON" - "$timings" "$1" "$2" "$3" "$threads" "${4:-0}" <<'PY'
import json, os, socket, sys
path, deck, runner, tf, threads, ranks = sys.argv[1:]
wall, user, sysc = (float(x) for x in open(tf).read().split()[-3:])
d = json.load(open(path)) if os.path.exists(path) else {}
mpi = int(ranks) > 0
ranks = max(int(ranks), 1)
d.setdefault(deck, {})[runner] = {"wall_s": wall, "cpu_s": user + sysc, "threads": 1 if mpi else int(threads),
                                  "ranks": ranks, "host": socket.gethostname()}
json.dump(d, open(path, "w"), indent=1, sort_keys=True)
print(f"{deck} {runner}: {wall:.2f} s wall, {user + sysc:.1f} s cpu, " +
      (f"{ranks} MPI ranks" if mpi else f"{threads} threads"))
PY
}

# timed FILE CMD...: "wall user sys" of CMD into FILE (/usr/bin/time, or the wall time alone
# where the machine lacks it)
timed() {
  local f=$1; shift
  if [ -x /usr/bin/time ]; then
    /usr/bin/time -f "%e %U %S" -o "$f" "$@"
  else
    local t0 rc=0; t0=$(date +%s.%N)
    "$@" || rc=$?
    echo "$(awk "BEGIN{print $(date +%s.%N) - $t0}") 0 0" > "$f"
    return $rc
  fi
}

cases=()
for name in $decks; do
  deck="validation/decks/$name.DATA"
  [ -f "$deck" ] || { echo "run.sh: no $deck" >&2; exit 2; }
  # SPE10's property files are generated, not committed
  if [ "$name" = SPE10 ] && [ ! -f validation/decks/spe10/PORO.INC ]; then
    POREFLOW="$POREFLOW" validation/gen_spe10.sh >/dev/null
  fi
  fdir="$out/flow_$flow_steps/$name"
  if [ "$run_flow" = 1 ]; then
    rm -rf "$fdir"; mkdir -p "$fdir"
    if [ "$flow_ranks" -gt 0 ]; then
      echo "== flow $name ($flow_ranks MPI ranks, $flow_steps steps: $FLOW_ARGS)"
      timed "$fdir/time.txt" \
        $NICE ${FLOW_LAUNCH:-mpirun --bind-to none} -np "$flow_ranks" "$FLOW" "$deck" --output-dir="$fdir" \
        --threads-per-process=1 $FLOW_ARGS >"$fdir/flow.log" 2>&1 ||
        { echo "run.sh: flow failed on $name, see $fdir/flow.log" >&2; exit 1; }
    else
      echo "== flow $name ($threads threads, $flow_steps steps: $FLOW_ARGS)"
      timed "$fdir/time.txt" \
        $NICE "$FLOW" "$deck" --output-dir="$fdir" --threads-per-process="$threads" $FLOW_ARGS \
        >"$fdir/flow.log" 2>&1 || { echo "run.sh: flow failed on $name, see $fdir/flow.log" >&2; exit 1; }
    fi
    record "$name" flow "$fdir/time.txt" "$flow_ranks"
  elif [ ! -f "$fdir/$name.SMSPEC" ]; then
    if [ -f "validation/reference/$name$refsub/$name.SMSPEC" ]; then
      fdir="validation/reference/$name$refsub"
    else
      echo "run.sh: --no-flow: no reference for $name (validation/reference/$name$refsub or $fdir)" >&2; exit 1
    fi
  fi
  for backend in $backends; do
    pdir="$out/poreflow/$backend/$name"
    if [ "$run_poreflow" = 1 ]; then
      rm -rf "$pdir"; mkdir -p "$pdir"
      echo "== poreflow $name ($backend, $threads threads)"
      OMP_NUM_THREADS="$threads" timed "$out/poreflow_$name.time" \
        $NICE "$POREFLOW" run "$deck" --backend "$backend" ${POREFLOW_ARGS:-} -o "$pdir" --set output.vtk=false --set output.png=false \
        >"$out/poreflow_$name.log" 2>&1 || { echo "run.sh: poreflow failed on $name, see $out/poreflow_$name.log" >&2; exit 1; }
      mv "$out/poreflow_$name.log" "$out/poreflow_$name.time" "$pdir/"
      record "$name" "poreflow_$backend" "$pdir/poreflow_$name.time"
    fi
    cases+=(--case "$name@$backend" "$fdir" "$pdir")
  done
done

[ "$compare" = 1 ] || exit 0
first="${backends%% *}"
if [ "$docs" = 1 ]; then
  plots=(--plot-dir docs/validation --plot-label "$first" --update-md docs/validation.md --md-section "$section")
else
  plots=(--plot-dir "$out/plots_$flow_steps")
fi
"$PYTHON" validation/compare.py "${cases[@]}" --timings "$timings" --results-dir "$out/compare_$flow_steps" \
  --table "$out/table_$flow_steps.md" --goals "$goals" "${plots[@]}" $strict
