#!/usr/bin/env bash
# One call on the GPU machine (device tool, carry [".devkit"]): build, test on cuda and on
# NVIDIA's OpenCL, benchmark, and pack logs and JSON into $OUT/results.tar.gz.
#   tools/device/gpu.sh [build] [test] [leaks] [run-adi2d] [run-impes] [bench]
#                       [run-fluids3d]
#                       [bench-reduce|bench-bl1d|bench-tridiag|bench-adi2d|bench-sor3d|bench-impes3d|bench-fluids3d]
#                       [cmd:'shell command']
# Default: build test bench. The .devkit folder holds the Debian packages this machine lacks
# (see tools/device/README.md for how it is filled).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/device-out}
LOGS=$OUT/logs
mkdir -p "$LOGS"
BUILD=$ROOT/build-gpu
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(build test bench)

# packages unpacked into /opt/kit; NVIDIA's OpenCL registered with the ICD loader
mkdir -p /opt/kit /etc/OpenCL/vendors
for f in .devkit/*.deb; do dpkg -x "$f" /opt/kit; done
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=/opt/kit/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}
export POREFLOW_REQUIRE_BACKENDS=cuda,opencl
PF=$BUILD/apps/poreflow
status=0

run() {  # run NAME CMD...: log to $LOGS/NAME.log, remember failures; STAGE_TIMEOUT bounds each
  local name=$1
  shift
  echo "=== $name: $*"
  local t0=$SECONDS
  timeout "${STAGE_TIMEOUT:-3600}" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  tail -n 25 "$LOGS/$name.log"
  echo "=== $name: exit $rc after $((SECONDS - t0)) s"
  [ $rc -eq 0 ] || status=1
  return $rc
}

bench_kind() {  # the CPU backends' adi2d runs are timed over at most 5 s and scaled
  local extra=() tag=$1
  [ "$1" = adi2d ] && extra=(--cpu-budget 5 --gpu-budget 3 --sizes 65,129,257,513,1025,2049 --precision ${ADI_PRECISION:-double})
  [ "$1" = impes3d ] && extra=(--cpu-budget ${IMPES_CPU_BUDGET:-3} --steps 10 ${IMPES_CASES:+--cases $IMPES_CASES})
  # fluids3d: paper 001's sizes; serial and omp timed over what fits in their budget and scaled
  [ "$1" = fluids3d ] && extra=(--cpu-budget ${FLUIDS_CPU_BUDGET:-3} --gpu-budget 30 ${FLUIDS_SIZES:+--sizes $FLUIDS_SIZES}
    --precision ${FLUIDS_PRECISION:-float})
  if [ "$1" = sor3d ]; then  # both precisions: the targets are set for each
    for p in float double; do
      run bench_sor3d_$p "$PF" bench sor3d --backends omp,cuda,opencl --cl-platform NVIDIA --precision $p \
        --json "$OUT/bench_sor3d_$p.json"
    done
    return
  fi
  run bench_$tag "$PF" bench "$1" --backends omp,cuda,opencl --cl-platform NVIDIA --json "$OUT/bench_$tag.json" "${extra[@]}"
}

pack() {  # after every stage, so a call cut off by its time limit still brings back what it did
  tar -czf "$OUT/results.tar.gz" -C "$OUT" logs $(cd "$OUT" && ls *.json 2>/dev/null) 2>/dev/null
}

for s in "${stages[@]}"; do
  case $s in
    build)
      nvidia-smi -L > "$LOGS/gpu.txt" 2>&1
      run configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/opt/kit/usr \
        -DCMAKE_CXX_FLAGS=-I/opt/kit/usr/include -DCMAKE_CUDA_ARCHITECTURES=90 -DPOREFLOW_TEST_CL_PLATFORM=NVIDIA \
        -DPOREFLOW_WITH_CUDA=ON -DPOREFLOW_WITH_OPENCL=ON
      run build cmake --build "$BUILD" --parallel --target poreflow poreflow_tests || break
      run info "$PF" info
      ;;
    test)
      run test_cuda "$BUILD/tests/poreflow_tests" --test-suite=backend,model --pf-backend=cuda
      run test_opencl_nvidia "$BUILD/tests/poreflow_tests" --test-suite=backend,model --pf-backend=opencl --pf-cl-platform=NVIDIA
      ;;
    leaks)  # compute-sanitizer's memcheck with leak checking over a part of the cuda suite
      run leaks /usr/local/cuda/bin/compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 \
        "$BUILD/tests/poreflow_tests" --test-suite=backend --pf-backend=cuda \
        "--test-case=memory*,axpy*,control*,halo3d*,laplace3d*,adi2d: a sweep*,tridiag: a guard*,sor3d*,impes3d: *,fluids3d: lin_solve*"
      ;;
    run-impes)  # the whole of case 2 (double) on cuda and NVIDIA's OpenCL, and compared across backends
      for b in cuda opencl; do
        run run_impes_case2_$b "$PF" run cases/impes_case2.toml --backend $b --cl-platform NVIDIA --no-output
      done
      run compare_impes_case2 "$PF" compare cases/impes_case2.toml --backends omp,cuda,opencl --cl-platform NVIDIA
      ;;
    run-fluids3d)  # the default fluids3d case (N = 84, 100 steps) on cuda and NVIDIA's OpenCL, N = 168, and compared
      for b in cuda opencl; do
        run run_fluids3d_$b "$PF" run cases/fluids3d.toml --backend $b --cl-platform NVIDIA --no-output
        run run_fluids3d_168_$b "$PF" run cases/fluids3d.toml --set grid.n=168 --backend $b --cl-platform NVIDIA --no-output
      done
      run compare_fluids3d "$PF" compare cases/fluids3d.toml --backends omp,cuda,opencl --cl-platform NVIDIA
      ;;
    run-adi2d)  # the 1025^2 adi2d case on cuda and NVIDIA's OpenCL, with the pressure/transport split
      for b in cuda opencl; do
        run run_adi2d_$b "$PF" run cases/adi2d.toml --set grid.points=1025 --backend $b --cl-platform NVIDIA --no-output -q
      done
      ;;
    bench)
      for k in reduce bl1d tridiag adi2d; do bench_kind $k; done
      ;;
    bench-*)
      bench_kind "${s#bench-}"
      ;;
    cmd:*)
      ncmd=$((${ncmd:-0} + 1))
      run custom$ncmd bash -c "${s#cmd:}"
      ;;
    *) echo "unknown stage $s"; status=1 ;;
  esac
  pack
done
pack
rm -rf "$LOGS"
exit $status
