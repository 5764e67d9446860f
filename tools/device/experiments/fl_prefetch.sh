#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): fluids3d's lin_solve sweep when each cell asks L2
# for the values of the cell P layers on (CUDA: POREFLOW_FL_PREFETCH=P, int-indexed flat walk;
# OpenCL: the -DPF_FL_PREFETCH=P build option), the sweep's GB/s and ratio to copy for each P.
#   tools/device/experiments/fl_prefetch.sh 0 1 2 4      SIZES (default 168,256,288)
pf=${PF:-build-gpu/apps/poreflow}
for p in "$@"; do
  echo "== prefetch $p layers ahead"
  POREFLOW_FL_PREFETCH=$p POREFLOW_CL_OPTIONS="-DPF_FL_PREFETCH=$p" "$pf" bench fluids3d --backends cuda,opencl --cl-platform NVIDIA \
    --sizes "${SIZES:-168,256,288}" --shapes march:32x8 --cpu-budget 0.05 --precision float 2>&1 | grep -E "(cuda|opencl) N=.*sweep:"
done
