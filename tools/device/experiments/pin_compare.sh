#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): does pinning the process to cores change what
# NVIDIA's OpenCL enqueue costs a launch? HETERO (DECK) on OpenCL, REPS (3) times each unpinned,
# on one core (taskset -c 2) and on four (taskset -c 2-5), the order rotated, with the run's launch
# tally (docs/opencl.md). The host's CPU and NUMA layout and the GPU's topology first.
#   tools/device/experiments/pin_compare.sh
pf=${PF:-build-gpu/apps/poreflow}
deck=${DECK:-validation/decks/HETERO.DATA}
mkdir -p "$OUT/logs"
lscpu | grep -E "Model name|^CPU\(s\)|NUMA|Thread|Socket|MHz" ; nvidia-smi topo -m 2>/dev/null | head -5
variants=("none" "one" "four")
for rep in $(seq "${REPS:-3}"); do
  for k in 0 1 2; do
    v=${variants[$(((k + rep) % 3))]}
    pin=()
    [ $v = one ] && pin=(taskset -c 2)
    [ $v = four ] && pin=(taskset -c 2-5)
    log="$OUT/logs/pin_${v}_$rep.log"
    "${pin[@]}" "$pf" run "$deck" --backend opencl --cl-platform NVIDIA --no-output > "$log" 2>&1
    echo "$v $rep (exit $?): $(grep -E 'steps to t' "$log" | sed 's/ on .*//') $(grep -E 'opencl_launches|seconds_opencl_(enqueue|wait)' "$log" | tr -s ' ' | tr '\n' ' ')"
  done
done
