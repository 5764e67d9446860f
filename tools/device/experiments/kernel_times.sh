#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build with tools/device/experiments/cl_profile.patch
# applied to the tree): each kernel's device time over one fully implicit deck (DECK, HETERO), on
# NVIDIA's OpenCL (the patch's PF_CL_PROFILE tally: an event a launch) and on cuda without graphs
# (nsys's kernel summary, where nsys is on the machine). Also each backend's plain run for its wall
# time. Output: $OUT/logs/kt_*.
deck=${DECK:-validation/decks/HETERO.DATA}
pf=${PF:-build-gpu/apps/poreflow}
mkdir -p "$OUT/logs"
"$pf" run "$deck" --backend opencl --cl-platform NVIDIA --no-output > "$OUT/logs/kt_opencl_plain.log" 2>&1
"$pf" run "$deck" --backend cuda --no-output --set linear.cuda_graphs=false > "$OUT/logs/kt_cuda_nograph_plain.log" 2>&1
PF_CL_PROFILE=1 "$pf" run "$deck" --backend opencl --cl-platform NVIDIA --no-output > "$OUT/logs/kt_opencl_profile.log" 2>&1
grep -h "steps to" "$OUT"/logs/kt_*plain.log "$OUT/logs/kt_opencl_profile.log"
grep CLPROFILE "$OUT/logs/kt_opencl_profile.log" | head -40
nsys=$(ls /usr/local/cuda/bin/nsys /opt/nvidia/nsight-systems/*/bin/nsys /usr/local/cuda/nsight-systems*/bin/nsys 2>/dev/null | head -1)
if [ -z "$nsys" ]; then echo "no nsys on this machine"; ls /usr/local/cuda/bin /opt/nvidia 2>&1 | tr '\n' ' '; exit 0; fi
env -u PYTHONHOME "$nsys" profile --trace=cuda -o /tmp/kt_cuda --force-overwrite true "$pf" run "$deck" --backend cuda --no-output \
  --set linear.cuda_graphs=false > "$OUT/logs/kt_cuda_nsys_run.log" 2>&1
env -u PYTHONHOME "$nsys" stats --report cuda_gpu_kern_sum --format csv /tmp/kt_cuda.nsys-rep > "$OUT/logs/kt_cuda_kern_sum.csv" 2>&1
env -u PYTHONHOME "$nsys" stats --report cuda_gpu_kern_sum /tmp/kt_cuda.nsys-rep 2>&1 | head -45
