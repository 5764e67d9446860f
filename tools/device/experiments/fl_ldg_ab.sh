#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): fluids3d's CUDA lin_solve sweep with PF_LOAD_RO as
# plain loads (gpu.sh's build) and through __ldg (a second, CUDA-only build with -DPF_CUDA_LDG=1),
# the sweep's GB/s and ratio to copy side by side, alternated REPS times against the host's noise.
#   tools/device/experiments/fl_ldg_ab.sh     SIZES (default 168,256,288), REPS (default 2)
pf=${PF:-build-gpu/apps/poreflow}
b2=${LDG_BUILD:-/tmp/build-ldg}
env -u PYTHONHOME cmake -S . -B "$b2" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/opt/kit/usr \
  -DCMAKE_CXX_FLAGS=-I/opt/kit/usr/include -DCMAKE_CUDA_ARCHITECTURES=90 -DCMAKE_CUDA_FLAGS=-DPF_CUDA_LDG=1 \
  -DPOREFLOW_WITH_CUDA=ON -DPOREFLOW_WITH_OPENCL=OFF > /tmp/ldg_configure.log 2>&1 || { tail -20 /tmp/ldg_configure.log; exit 1; }
env -u PYTHONHOME cmake --build "$b2" --parallel --target poreflow > /tmp/ldg_build.log 2>&1 || { tail -20 /tmp/ldg_build.log; exit 1; }
for rep in $(seq "${REPS:-2}"); do
  for v in plain:$pf ldg:$b2/apps/poreflow; do
    echo "== ${v%%:*} (rep $rep)"
    "${v#*:}" bench fluids3d --backends cuda --sizes "${SIZES:-168,256,288}" --shapes march:32x8 --cpu-budget 0.1 --precision float 2>&1 |
      grep -E "sweep:"
  done
done
