#!/usr/bin/env bash
# OpenCL's start-up (issue 24 §5): a first run builds its programs (and PoCL compiles each kernel
# for its work-group size at its first launch). That time is reported apart, as a log line and the
# run's seconds_opencl_build, and left out of the step timings `run` and `compare` print and of a
# model's parts (the fully implicit model's assembly and linear solve). Runs on
# the OpenCL device here (PoCL) with an empty kernel cache; skipped (77) without a device.
set -u
bin=$1
src=$2
"$bin" info 2>/dev/null | grep -q "^available now:.*opencl" || { echo "no OpenCL device: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
small=(--set grid.n=8 --set time.steps=2)
failures=0
fail() {
  echo "FAIL: $*"
  failures=$((failures + 1))
}

# run: the build in its own line and statistic, not in "N steps ... in X s"
mkdir "$tmp/cache1"
POCL_CACHE_DIR=$tmp/cache1 "$bin" run "$src/cases/fluids3d.toml" --backend opencl "${small[@]}" --no-output \
  > "$tmp/run.txt" 2> "$tmp/log.txt" || fail "run exited $?"
cat "$tmp/run.txt" "$tmp/log.txt"
step_s=$(sed -n 's/^fluids3d: .* in \([0-9.]*\) s on opencl.*/\1/p' "$tmp/run.txt")
build_s=$(awk '$1 == "seconds_opencl_build" { print $2 }' "$tmp/run.txt")
[ -n "$build_s" ] || fail "run: no seconds_opencl_build among the statistics"
grep -qE "OpenCL: [0-9]+ programs built.* in [0-9.]+ s.*not counted in the step timings" "$tmp/log.txt" || fail "run: no log line of the OpenCL build"
# with an empty cache PoCL takes about a second; the steps of an 8^3 grid take milliseconds
awk -v s="${step_s:-inf}" -v b="${build_s:-0}" 'BEGIN { exit !(b > 0.2 && s < b) }' ||
  fail "run: the step time ($step_s s) holds the build ($build_s s)"

# the fully implicit model's parts (assembly, linear solve with the preconditioner's refresh) are
# parts of the steps: without the build either (PartTimer, core/kernels/program_builds.hpp)
mkdir "$tmp/cache3"
POCL_CACHE_DIR=$tmp/cache3 "$bin" run "$src/tests/decks/SMALL.DATA" --backend opencl --no-output \
  > "$tmp/fim.txt" 2> "$tmp/fim_log.txt" || fail "run SMALL.DATA exited $?"
cat "$tmp/fim.txt"
fstep=$(sed -n 's/^impes3d: .* in \([0-9.]*\) s on opencl.*/\1/p' "$tmp/fim.txt")
fbuild=$(awk '$1 == "seconds_opencl_build" { print $2 }' "$tmp/fim.txt")
parts=$(awk '$1 == "seconds_assemble" || $1 == "seconds_linear" { s += $2; n++ } END { if (n == 2) print s }' "$tmp/fim.txt")
awk -v s="${fstep:-0}" -v b="${fbuild:-0}" -v p="${parts:-inf}" 'BEGIN { exit !(b > 0.2 && p <= 1.02 * s + 0.01) }' ||
  fail "run SMALL.DATA: assembly and linear solve ($parts s) hold the build ($fbuild s; steps $fstep s)"

# compare: the opencl row's wall time without the build, which a line below the table gives
mkdir "$tmp/cache2"
POCL_CACHE_DIR=$tmp/cache2 "$bin" compare "$src/cases/fluids3d.toml" --backends serial,opencl "${small[@]}" -q \
  > "$tmp/cmp.txt" 2>&1 || fail "compare exited $?"
cat "$tmp/cmp.txt"
wall=$(awk '$1 == "opencl" { print $(NF - 5) }' "$tmp/cmp.txt")
cbuild=$(sed -n 's/^opencl: OpenCL .*built in \([0-9.]*\) s.*/\1/p' "$tmp/cmp.txt")
[ -n "$cbuild" ] || fail "compare: no line with the OpenCL build"
awk -v s="${wall:-inf}" -v b="${cbuild:-0}" 'BEGIN { exit !(b > 0.2 && s < b) }' ||
  fail "compare: the opencl wall time ($wall s) holds the build ($cbuild s)"

[ $failures -eq 0 ] || { echo "$failures failed"; exit 1; }
echo "all ok"
