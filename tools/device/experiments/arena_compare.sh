#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build and build-old): the OpenCL arena (buffers as
# offsets into one cl_mem in the hot kernels; cl_arena.patch here, applied to the working tree with
# git apply) against the base commit without it (.gpu-old). The fully implicit decks, old and new alternating REPS (3) times on NVIDIA's OpenCL
# and cuda (host_launch_compare.sh), then bench linalg's SPE10-like systems (CG + AMG; BiCGSTAB +
# CPR on the two-phase one) with each build, twice, alternating.
#   tools/device/experiments/arena_compare.sh
here=$(dirname "$0")
new=${PF:-build-gpu/apps/poreflow}
old=${PF_OLD:-build-gpu-old/apps/poreflow}
VARIANTS="old new" REPS=${REPS:-3} "$here/host_launch_compare.sh"
for pass in 1 2; do
  for v in old new; do
    bin=$new
    [ $v = old ] && bin=$old
    "$bin" bench linalg --backends cuda,opencl --cl-platform NVIDIA --sizes "${LINALG_SIZES:-spe10,spe10-2p}" \
      --solvers amg,cpr --json "$OUT/logs/linalg_${v}_$pass.json" > "$OUT/logs/linalg_${v}_$pass.log" 2>&1
    echo "bench linalg $v $pass (exit $?)"
    grep -E "spe10" "$OUT/logs/linalg_${v}_$pass.log" | head -20
  done
done
