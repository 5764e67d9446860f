#!/usr/bin/env bash
# `mpirun -n P poreflow run` on the command line (docs/mpi.md): impes3d cut between 2 processes
# and fluids3d between 3 write the same series (to 1e-9) as one process, from process 0 alone,
# and as many snapshots (impes3d's a .vtu piece a process with process 0's .pvtu); a deck on 3
# processes writes its summary files, and one with the fully implicit scheme on 2 the series of one
# process to 1e-3; checkpoints are one file a process, a restart with as many
# processes continues and one with another count is told which; an error on process 0 alone ends
# every process with its message rather than leaving them waiting.
# usage: run.sh POREFLOW_BINARY MPIEXEC SOURCE_DIR
set -u
bin=$1
mpiexec=$2
src=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}
mpi() {  # mpi N ARGS...: poreflow on N processes, bounded (a hang is a failure, exit 124)
  local n=$1
  shift
  timeout 300 "$mpiexec" -n "$n" --oversubscribe "$bin" "$@"
}
case1=(run "$src/cases/impes_case1.toml" --backend omp --set grid.nx=24 --set grid.ny=20 --set grid.nz=6 --set time.end=60
  --set output.png=false -q)

"$bin" "${case1[@]}" -o "$tmp/one" > "$tmp/one.log" 2>&1 || fail "one process: $(tail -n 3 "$tmp/one.log")"
mpi 2 "${case1[@]}" -o "$tmp/two" > "$tmp/two.log" 2>&1 || fail "two processes: $(tail -n 3 "$tmp/two.log")"
# every value of every row within 1e-9 of one process's (relative, at least 1 as the scale)
if ! cmp -s <(head -n 1 "$tmp/one/impes3d_series.csv") <(head -n 1 "$tmp/two/impes3d_series.csv"); then
  fail "the series' columns differ"
elif ! diff_out=$(awk -F, 'NR == FNR { a[FNR] = $0; n = FNR; next }
    { m = FNR; split(a[FNR], x, ",")
      for (i = 1; i <= NF; i++) { u = x[i] + 0; v = $i + 0; d = u - v; if (d < 0) d = -d; s = u < 0 ? -u : u; if (s < 1) s = 1
        if (FNR > 1 && d / s > 1e-9) { print "row " FNR ", column " i ": " x[i] " against " $i; bad = 1 } } }
    END { if (m != n) { print n " rows against " m; bad = 1 } exit bad }' "$tmp/one/impes3d_series.csv" "$tmp/two/impes3d_series.csv"); then
  fail "the series differ: $(echo "$diff_out" | head -n 3)"
else
  echo "ok: the series of 2 processes = one process's ($(wc -l < "$tmp/two/impes3d_series.csv") lines)"
fi
# snapshots: one .vtu each from one process; from two a .pvtu each, naming the piece of each
# process, and the collection names the .pvtu files
n1=$(ls "$tmp/one"/*.vtu 2> /dev/null | wc -l)
n2=$(ls "$tmp/two"/*.pvtu 2> /dev/null | wc -l)
p2=$(ls "$tmp/two"/*_piece[01].vtu 2> /dev/null | wc -l)
[ "$n1" -gt 0 ] && [ "$n1" = "$n2" ] && [ "$p2" = $((2 * n1)) ] || fail "snapshots: $n1 from one process, $n2 .pvtu and $p2 pieces from two"
[ "$(grep -c 'Piece Source="impes3d_0000_piece[01].vtu"' "$tmp/two/impes3d_0000.pvtu")" = 2 ] || fail "the .pvtu does not name both pieces"
[ "$(grep -c 'file="impes3d_[0-9]*.pvtu"' "$tmp/two/impes3d.pvd")" = "$n1" ] || fail "the collection does not name the .pvtu files"
[ "$(grep -c "impes3d: [0-9]* steps to t = 60" "$tmp/two.log")" = 1 ] || fail "not one report from process 0: $(cat "$tmp/two.log")"

# the S_w maps of a decomposed run (process 0 gathers the map's layer alone): as many as one
# process draws, of the same size
mpi 2 "${case1[@]}" --set output.png=true --set output.vtk=false -o "$tmp/maps2" > "$tmp/maps2.log" 2>&1 ||
  fail "two processes with maps: $(tail -n 3 "$tmp/maps2.log")"
"$bin" "${case1[@]}" --set output.png=true --set output.vtk=false -o "$tmp/maps1" > "$tmp/maps1.log" 2>&1 ||
  fail "one process with maps: $(tail -n 3 "$tmp/maps1.log")"
m1=$(ls "$tmp/maps1"/*_sw_layer*.png 2> /dev/null | wc -l)
m2=$(ls "$tmp/maps2"/*_sw_layer*.png 2> /dev/null | wc -l)
[ "$m1" -gt 0 ] && [ "$m1" = "$m2" ] || fail "S_w maps: $m1 from one process, $m2 from two"
for f in "$tmp/maps1"/*_sw_layer*.png; do
  [ "$(stat -c %s "$f")" -gt 1000 ] && [ -s "$tmp/maps2/$(basename "$f")" ] || fail "the map $(basename "$f") is missing or empty"
done

# fluids3d cut into 3 slabs, in double: the same series as one process's (to 1e-9; in float advect's trace
# rounds differently in a slab's numbering, ~1e-6), as many snapshots (a .pvti and a .vti piece a process)
fl=(run "$src/cases/fluids3d.toml" --backend omp --precision double --set grid.n=30 --set time.steps=12 --set output.png=false -q)
"$bin" "${fl[@]}" -o "$tmp/fl1" > "$tmp/fl1.log" 2>&1 || fail "fluids3d, one process: $(tail -n 3 "$tmp/fl1.log")"
mpi 3 "${fl[@]}" -o "$tmp/fl3" > "$tmp/fl3.log" 2>&1 || fail "fluids3d, three processes: $(tail -n 3 "$tmp/fl3.log")"
if ! diff_out=$(awk -F, 'NR == FNR { a[FNR] = $0; n = FNR; next }
    { m = FNR; split(a[FNR], x, ",")
      for (i = 1; i <= NF; i++) { u = x[i] + 0; v = $i + 0; d = u - v; if (d < 0) d = -d; s = u < 0 ? -u : u; if (s < 1) s = 1
        if (FNR > 1 && d / s > 1e-9) { print "row " FNR ", column " i ": " x[i] " against " $i; bad = 1 } } }
    END { if (m != n || n < 2) { print n " rows against " m; bad = 1 } exit bad }' "$tmp/fl1/fluids3d_series.csv" "$tmp/fl3/fluids3d_series.csv"); then
  fail "the fluids3d series differ: $(echo "$diff_out" | head -n 3)"
else
  echo "ok: the fluids3d series of 3 processes = one process's"
fi
n1=$(ls "$tmp/fl1"/*.vti 2> /dev/null | wc -l)
n3=$(ls "$tmp/fl3"/*.pvti 2> /dev/null | wc -l)
p3=$(ls "$tmp/fl3"/*_piece[012].vti 2> /dev/null | wc -l)
[ "$n1" -gt 0 ] && [ "$n1" = "$n3" ] && [ "$p3" = $((3 * n1)) ] || fail "fluids3d snapshots: $n1 from one process, $n3 .pvti and $p3 pieces from three"

mpi 3 run "$src/validation/decks/QFS.DATA" --backend omp --set scheme=impes --set pressure.solver=cg --set output.png=false -q \
  -o "$tmp/deck" > "$tmp/deck.log" 2>&1 || fail "a deck on 3 processes: $(tail -n 3 "$tmp/deck.log")"
[ -s "$tmp/deck/QFS.SMSPEC" ] && [ -s "$tmp/deck/QFS.UNSMRY" ] || fail "no summary files from the deck on 3 processes"

# the same deck with its default scheme, fully implicit, on 2 processes: the series of one process's
# to 1e-3 (its Newton converges to CNV 1e-2 on each), the linear iterations aside (CPR works per
# process: more of them)
qfs=(run "$src/validation/decks/QFS.DATA" --backend omp --set output.png=false)
"$bin" "${qfs[@]}" -o "$tmp/fim1" > "$tmp/fim1.log" 2>&1 || fail "the fully implicit deck, one process: $(tail -n 3 "$tmp/fim1.log")"
mpi 2 "${qfs[@]}" -o "$tmp/fim2" > "$tmp/fim2.log" 2>&1 || fail "the fully implicit deck, two processes: $(tail -n 3 "$tmp/fim2.log")"
# (relative to the column's largest value: a cumulative is compared at its scale, not at its start)
if ! diff_out=$(awk -F, 'NR == FNR { a[FNR] = $0; n = FNR; for (i = 1; i <= NF; i++) { u = $i < 0 ? -$i : $i + 0; if (FNR > 1 && u > top[i]) top[i] = u }; next }
    { m = FNR; split(a[FNR], x, ",")
      for (i = 1; i <= NF; i++) { if (i == 15) continue; u = x[i] + 0; v = $i + 0; d = u - v; if (d < 0) d = -d; s = top[i]; if (s < 1) s = 1
        if (FNR > 1 && d / s > 1e-3) { print "row " FNR ", column " i ": " x[i] " against " $i; bad = 1 } } }
    END { if (m != n || n < 2) { print n " rows against " m; bad = 1 } exit bad }' "$tmp/fim1/impes3d_series.csv" "$tmp/fim2/impes3d_series.csv"); then
  fail "the fully implicit deck's series differ: $(echo "$diff_out" | head -n 3)"
else
  echo "ok: the fully implicit deck on 2 processes = one process's to 1e-3"
fi
# the deck read once: by process 0, which sends what it read to the other
grep -q "deck QFS.DATA read by process 0 alone and its input sent to the others (2 processes in all)" "$tmp/fim2.log" || fail "the deck was not read once: $(head -n 3 "$tmp/fim2.log")"

if "$bin" info | grep -q "^checkpoints: HDF5"; then
  mpi 2 "${case1[@]}" -o "$tmp/ck" --checkpoint-every 25 > "$tmp/ck.log" 2>&1 || fail "checkpoints: $(tail -n 3 "$tmp/ck.log")"
  [ -s "$tmp/ck/checkpoint.p0of2.h5" ] && [ -s "$tmp/ck/checkpoint.p1of2.h5" ] || fail "not one checkpoint file a process: $(ls "$tmp/ck")"
  mpi 2 "${case1[@]}" -o "$tmp/ck2" --restart "$tmp/ck/checkpoint.h5" > "$tmp/ck2.log" 2>&1 ||
    fail "a restart on 2 processes: $(tail -n 3 "$tmp/ck2.log")"
  out=$("$bin" "${case1[@]}" -o "$tmp/ck1" --restart "$tmp/ck/checkpoint.h5" 2>&1)
  [ $? -ne 0 ] && echo "$out" | grep -q "written by a run over 2 processes.*restart with mpirun -n 2" ||
    fail "a restart of a 2-process checkpoint by one process: $out"
  echo "ok: checkpoints one file a process; restarts"
fi

# process 0 alone cannot make the output folder: every process ends, with the message
touch "$tmp/file"
out=$(mpi 2 "${case1[@]}" -o "$tmp/file/out" 2>&1)
rc=$?
[ $rc -ne 0 ] && [ $rc -ne 124 ] && echo "$out" | grep -q "cannot create the output folder" ||
  fail "an error on process 0 alone (exit $rc): $(echo "$out" | head -n 5)"

[ $failures -eq 0 ] || exit 1
echo "ok: all"
