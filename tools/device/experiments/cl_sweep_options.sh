#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): the fluids3d lin_solve sweep on NVIDIA's OpenCL
# under variants of the build options (POREFLOW_CL_OPTIONS): the registers ptxas gives fl_sweep
# (-cl-nv-verbose) and the sweep's GB/s from `poreflow bench fluids3d` beside CUDA's.
#   tools/device/experiments/cl_sweep_options.sh "OPTIONS A" "OPTIONS B" ...   ("" = the defaults)
# SIZES (default 168,256,288) picks the grids.
pf=${PF:-build-gpu/apps/poreflow}
for o in "$@"; do
  echo "== options [$o]"
  POREFLOW_CL_OPTIONS="-cl-nv-verbose $o" "$pf" run cases/fluids3d.toml --set grid.n=24 --set time.steps=1 --backend opencl \
    --cl-platform NVIDIA --no-output -v > /tmp/cl_opts_run.log 2>&1 || grep -E "error" /tmp/cl_opts_run.log | head -5
  grep -E -A3 "entry function .fl_sweep" /tmp/cl_opts_run.log | grep -E "Used"
  POREFLOW_CL_OPTIONS="$o" "$pf" bench fluids3d --backends cuda,opencl --cl-platform NVIDIA --sizes "${SIZES:-168,256,288}" \
    --cpu-budget 0.1 --precision float 2>&1 | grep -E "march.*sweep:"
done
