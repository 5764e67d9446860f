#!/usr/bin/env bash
# On the GPU machine, after gpu.sh's build: what NVIDIA's OpenCL compiler makes of a case's
# programs, beside what nvcc made of the CUDA twins (the OpenCL/CUDA gap, docs/benchmarks.md).
#   tools/device/cl_binaries.sh OUTDIR [poreflow run arguments...]
# OUTDIR gets the OpenCL programs' sources and PTX (POREFLOW_CL_DUMP), the driver's build logs with
# -cl-nv-verbose, ptxas -v and the SASS of each PTX, and nvcc's resource usage and SASS of the CUDA
# kernels of the same family.
set -uo pipefail
out=$1
shift
pf=${PF:-build-gpu/apps/poreflow}
cuda=${CUDA_HOME:-/usr/local/cuda}/bin
mkdir -p "$out"
args=("$@")
[ ${#args[@]} -eq 0 ] && args=(cases/fluids3d.toml --set grid.n=168)
POREFLOW_CL_DUMP=$out POREFLOW_CL_OPTIONS=-cl-nv-verbose "$pf" run "${args[@]}" --backend opencl --cl-platform NVIDIA \
  --no-output -v > "$out/run_opencl.log" 2>&1 || echo "opencl run failed (see run_opencl.log)"
for bin in "$out"/*.bin; do
  [ -f "$bin" ] || continue
  ptx=${bin%.bin}.ptx
  tr -d '\000' < "$bin" > "$ptx"  # NVIDIA's binary is the PTX text and a NUL, which ptxas refuses
  "$cuda/ptxas" -arch=sm_90 -O3 -v "$ptx" -o "${bin%.bin}.cubin" > "${bin%.bin}.ptxas.txt" 2>&1
  "$cuda/cuobjdump" -sass "${bin%.bin}.cubin" > "${bin%.bin}.sass" 2>&1
  rm -f "${bin%.bin}.cubin" "$bin"
done
family=$(sed -n 's/^model *= *"\(.*\)".*/\1/p' "${args[0]}" 2>/dev/null)
for obj in $(find build-gpu -name "${family:-fluids3d}.cu.o"); do
  "$cuda/cuobjdump" -res-usage "$obj" > "$out/cuda_res_usage.txt" 2>&1
  "$cuda/cuobjdump" -sass "$obj" > "$out/cuda.sass" 2>&1
  "$cuda/cuobjdump" -ptx "$obj" > "$out/cuda.ptx" 2>&1
done
ls -la "$out"
