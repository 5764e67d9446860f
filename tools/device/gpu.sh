#!/usr/bin/env bash
# One call on the GPU machine (device tool, carry [".devkit"]): build, test on cuda and on
# NVIDIA's OpenCL, benchmark, and pack logs and JSON into $OUT/results.tar.gz.
#   tools/device/gpu.sh [build] [test] [leaks] [run-adi2d] [run-impes] [run-decks] [run-fluids3d] [bench]
#                       [bench-reduce|bench-bl1d|bench-tridiag|bench-adi2d|bench-sor3d|bench-impes3d|bench-fluids3d]
#                       [sanitize|sanitize-memcheck|sanitize-memcheck-model|sanitize-race|sanitize-sync|sanitize-init]
#                       [build-old] [bench-compare] [mpi-build] [mpi] [mpi-impes] [mpi-fluids] [mpi-fim] [run-graphs] [run-tail]
#                       [run-validation]
#                       [cmd:'shell command']
# Default: build test bench. The .devkit folder holds the Debian packages this machine lacks
# (see tools/device/README.md for how it is filled).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$PWD
OUT=${OUT:-$ROOT/device-out}
LOGS=$OUT/logs
mkdir -p "$LOGS"
# a second gpu.sh in the same call packs the first's logs again, as logs/earlierN/ (its own stages'
# logs, custom1 on, would otherwise take their names); where $OUT outlives a call (a local
# device-out/), an older results.tar.gz is packed along the same way
if [ -f "$OUT/results.tar.gz" ]; then
  prev=$(mktemp -d)
  if tar -xzf "$OUT/results.tar.gz" -C "$prev" logs 2>/dev/null; then
    n=1
    while [ -e "$LOGS/earlier$n" ]; do n=$((n + 1)); done
    mv "$prev/logs" "$LOGS/earlier$n"
  fi
  rm -rf "$prev"
fi
BUILD=$ROOT/build-gpu
# the commit the JSON names (apps' source_commit): the GPU machine's copy of the tree has no .git,
# so a call there names it, POREFLOW_COMMIT=SHA tools/device/gpu.sh ...; a checkout asks git (-dirty: uncommitted changes)
[ -n "${POREFLOW_COMMIT:-}" ] || POREFLOW_COMMIT=$(git describe --always --dirty --abbrev=7 2>/dev/null) || true
export POREFLOW_COMMIT
stages=("$@")
[ ${#stages[@]} -eq 0 ] && stages=(build test bench)
# "sanitize": every compute-sanitizer stage (longer than one device call: name them one a call)
expanded=()
for s in "${stages[@]}"; do
  if [ "$s" = sanitize ]; then
    expanded+=(sanitize-memcheck sanitize-memcheck-model sanitize-race sanitize-sync sanitize-init)
  else
    expanded+=("$s")
  fi
done
stages=("${expanded[@]}")

# packages unpacked into /opt/kit; NVIDIA's OpenCL registered with the ICD loader
mkdir -p /opt/kit /etc/OpenCL/vendors
for f in .devkit/*.deb; do dpkg -x "$f" /opt/kit; done
echo /usr/lib/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LD_LIBRARY_PATH=/opt/kit/usr/lib/x86_64-linux-gnu:/opt/kit/usr/lib/x86_64-linux-gnu/hdf5/serial:${LD_LIBRARY_PATH:-}
# opm-common starts an embedded Python 3.11 to parse a deck (PYINPUT); its standard library is in
# .devkit. Only poreflow's runs get PYTHONHOME: this machine's own Python tools (cmake) must not.
KIT_PYTHONHOME=/opt/kit/usr
export POREFLOW_REQUIRE_BACKENDS=cuda,opencl
PF=$BUILD/apps/poreflow
status=0
# the launcher of the flow kit's Open MPI (stages mpi and mpi-impes)
MPI_RUN=(env -i HOME=/root PATH=/opt/flowkit:/usr/bin:/bin LD_LIBRARY_PATH=/opt/flowkit/lib:$LD_LIBRARY_PATH
         PYTHONHOME=$KIT_PYTHONHOME OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 POREFLOW_REQUIRE_BACKENDS=cuda,opencl
         PMIX_MCA_pcompress_base_silence_warning=1
         OMPI_MCA_mca_base_component_path=/opt/flowkit/openmpi/lib/openmpi3
         PMIX_MCA_mca_base_component_path=/opt/flowkit/pmix2/lib/pmix
         /opt/flowkit/orterun --mca plm isolated --bind-to none -x LD_LIBRARY_PATH -x PATH -x POREFLOW_REQUIRE_BACKENDS -x PYTHONHOME
         -x PMIX_MCA_pcompress_base_silence_warning
         -x OMPI_MCA_mca_base_component_path -x PMIX_MCA_mca_base_component_path)
# OPM Flow 2022.10 and the libraries Debian gives it, from .devkit (tools/device/README.md), unpacked
# once; FLOW_LAUNCH_CMD: the kit's orterun in a clean environment, for the timing anchor (CPR on 16
# MPI ranks of one thread). False when .devkit carries no kit.
flow_kit() {
  [ -f .devkit/flowkit.tar.xz ] || return 1
  [ -d /opt/flowkit ] || tar -xJf .devkit/flowkit.tar.xz -C /opt
  [ -d /usr/lib/x86_64-linux-gnu/openmpi ] || cp -r /opt/flowkit/openmpi /usr/lib/x86_64-linux-gnu/openmpi
  [ -d /usr/lib/x86_64-linux-gnu/pmix2 ] || cp -r /opt/flowkit/pmix2 /usr/lib/x86_64-linux-gnu/pmix2
  [ -d /usr/share/openmpi ] || tar -xzf .devkit/mpishare.tar.gz -C /
  # a clean environment: the machine's own PMIx/launcher variables send Open MPI's pmix
  # component down paths Debian's libpmix lacks
  env | grep -i -E '^(pmix|slurm|ompi|opal)' | sed 's/=.*//' > "$LOGS/flow_env_cleared.txt" || true
  # and the kit's own Open MPI and PMIx components (the machine may carry other builds at Debian's paths)
  FLOW_LAUNCH_CMD=(env -i HOME=/root PATH=/opt/flowkit:/usr/bin:/bin LD_LIBRARY_PATH=/opt/flowkit/lib:$LD_LIBRARY_PATH
                   PYTHONHOME=$KIT_PYTHONHOME OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                   OMPI_MCA_mca_base_component_path=/opt/flowkit/openmpi/lib/openmpi3
                   PMIX_MCA_mca_base_component_path=/opt/flowkit/pmix2/lib/pmix
                   /opt/flowkit/orterun --mca plm isolated --bind-to none -x PYTHONHOME -x LD_LIBRARY_PATH -x PATH
                   -x OMPI_MCA_mca_base_component_path -x PMIX_MCA_mca_base_component_path)
}
# The MPI stages' backend: cuda (a GPU a process) or omp (the CPU). mpi_cmd PROCS [THREADS] fills
# MPI_CMD: orterun for PROCS processes; on omp of THREADS OpenMP threads each (by default
# MPI_THREADS, or the cores shared out; a run list's last field, where given, is its THREADS). On
# cuda the processes keep OpenMP's default unless THREADS or MPI_THREADS is given.
MPI_BACKEND=${MPI_BACKEND:-cuda}
mpi_cmd() {
  local t=${2:-${MPI_THREADS:-}}
  if [ -z "$t" ] && [ "$MPI_BACKEND" = cuda ]; then
    MPI_CMD=("${MPI_RUN[@]}" -np "$1")
    return
  fi
  [ -n "$t" ] || t=$(( $(nproc) / $1 ))
  [ "$t" -ge 1 ] || t=1
  MPI_CMD=("${MPI_RUN[@]:0:2}" "OMP_NUM_THREADS=$t" "${MPI_RUN[@]:2}" -x OMP_NUM_THREADS -np "$1")
}

run() {  # run NAME CMD...: log to $LOGS/NAME.log, remember failures; STAGE_TIMEOUT bounds each
  local name=$1
  shift
  echo "=== $name: $*"
  local t0=$SECONDS
  local envs=()
  [ "$1" = cmake ] || envs=(env PYTHONHOME=$KIT_PYTHONHOME)
  timeout "${STAGE_TIMEOUT:-3600}" "${envs[@]}" "$@" > "$LOGS/$name.log" 2>&1
  local rc=$?
  tail -n 25 "$LOGS/$name.log"
  # the status in the log too (124: stopped by STAGE_TIMEOUT), for the tools that read logs alone
  echo "=== $name: exit $rc after $((SECONDS - t0)) s" | tee -a "$LOGS/$name.log"
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

# compute-sanitizer over the cuda tests: sanitize NAME "TEST FILTER" TOOL OPTIONS...; the log (the
# tool's report and the tests' output) is $LOGS/NAME.log, any error the tool finds fails the stage
SANITIZER=${SANITIZER:-/usr/local/cuda/bin/compute-sanitizer}
# the kernels that use shared memory or synchronise a block: block reductions (reduce, jacobi1d's
# and the control's checks, impes3d's statistics), the tridiagonal solvers (tridiag, adi2d's
# sweeps, ADI), sor3d's tiled and zline designs, fluids3d's lin_solve sweep. racecheck over all of
# it takes about 18 minutes: split it with SANITIZE_TESTS over calls (docs/reliability.md lists five
# that fit); synccheck runs the whole list in one.
SHARED_TESTS=${SANITIZE_TESTS:-"reduce*,jacobi1d*,tridiag*,sor3d*,fluids3d: lin_solve*,control: the decide*,impes3d: the step*,impes3d: a NaN*,adi2d: every kernel*,adi2d: a sweep*,adi2d: a checking*,adi: *"}
sanitize() {
  local name=$1 filter=$2
  shift 2
  local args=("$BUILD/tests/poreflow_tests" --pf-backend=cuda)
  case $filter in
    suite:*) args+=("--test-suite=${filter#suite:}") ;;
    *) args+=(--test-suite=backend,model "--test-case=$filter") ;;
  esac
  # the test whose recording fails on purpose: its CUDA API errors are what it checks
  local exclude="krylov: work that waits while recorded*${SANITIZE_EXCLUDE:+,$SANITIZE_EXCLUDE}"
  args+=("--test-case-exclude=$exclude")
  STAGE_TIMEOUT=${STAGE_TIMEOUT:-570} run "$name" "$SANITIZER" --error-exitcode 1 --print-limit 200 "$@" "${args[@]}"
  grep -E "ERROR SUMMARY|LEAK SUMMARY|RACECHECK SUMMARY|Status:|test cases:" "$LOGS/$name.log" | tail -n 5
}

pack() {  # after every stage, so a call cut off by its time limit still brings back what it did
  tar -czf "$OUT/results.tar.gz" -C "$OUT" logs $(cd "$OUT" && ls -d *.json 2>/dev/null) -C "$ROOT" $(cd "$ROOT" && ls -d deck-runs 2>/dev/null) 2>/dev/null
}

for s in "${stages[@]}"; do
  case $s in
    build)
      nvidia-smi -L > "$LOGS/gpu.txt" 2>&1
      run configure cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/opt/kit/usr \
        -DCMAKE_CXX_FLAGS=-I/opt/kit/usr/include -DCMAKE_CUDA_ARCHITECTURES=90 -DPOREFLOW_TEST_CL_PLATFORM=NVIDIA \
        -DPOREFLOW_WITH_CUDA=ON -DPOREFLOW_WITH_OPENCL=ON
      # BUILD_TARGETS=poreflow for a call that runs no test
      run build cmake --build "$BUILD" --parallel --target ${BUILD_TARGETS:-poreflow poreflow_tests} || break
      run info "$PF" info
      ;;
    test)
      # suite NAME BACKEND [OPTIONS]: the whole suite on one backend, in its own TMPDIR (tests clear
      # their temporary folders), its status also in $LOGS/NAME.rc
      suite() {
        local name=$1 b=$2
        shift 2
        mkdir -p /tmp/pf_$b
        rm -f "$LOGS/$name.rc"  # an earlier call's would pass a killed run
        run "$name" env TMPDIR=/tmp/pf_$b "$BUILD/tests/poreflow_tests" --test-suite=backend,model --pf-backend=$b "$@"
        echo $? > "$LOGS/$name.rc"
      }
      if [ "${TEST_PARALLEL:-0}" = 1 ]; then
        # both at once (the GPU is idle between the tests' small launches): the time of the longer
        ( suite test_cuda cuda ) &
        ( suite test_opencl_nvidia opencl --pf-cl-platform=NVIDIA ) &
        wait
      else
        suite test_cuda cuda
        suite test_opencl_nvidia opencl --pf-cl-platform=NVIDIA
      fi
      for t in test_cuda test_opencl_nvidia; do [ "$(cat "$LOGS/$t.rc" 2>/dev/null)" = 0 ] || status=1; done
      ;;
    leaks)  # compute-sanitizer's memcheck with leak checking over a part of the cuda suite
      run leaks /usr/local/cuda/bin/compute-sanitizer --tool memcheck --leak-check full --error-exitcode 3 \
        "$BUILD/tests/poreflow_tests" --test-suite=backend --pf-backend=cuda \
        "--test-case=memory*,axpy*,control*,halo3d*,laplace3d*,adi2d: a sweep*,tridiag: a guard*,sor3d*,impes3d: *,fluids3d: lin_solve*"
      ;;
    sanitize-memcheck)  # out-of-bounds and misaligned accesses, and leaks at exit, kernel tests
      sanitize sanitize_memcheck suite:backend --tool memcheck --leak-check full
      ;;
    sanitize-memcheck-model)  # the same over the model tests
      sanitize sanitize_memcheck_model suite:model --tool memcheck --leak-check full
      ;;
    sanitize-race)  # shared-memory hazards of the kernels that use it
      sanitize sanitize_race "$SHARED_TESTS" --tool racecheck
      ;;
    sanitize-sync)  # barriers a block does not reach together, illegal __syncwarp masks
      sanitize sanitize_sync "$SHARED_TESTS" --tool synccheck
      ;;
    sanitize-init)  # device memory read before anything wrote it; the vendor-library tests are left out:
      # cuSPARSE's gtsv_lu reads its own workspace before writing it (86 592 reports, all inside
      # libcusparse, 2026-11-23), nothing poreflow can change
      SANITIZE_EXCLUDE=${SANITIZE_EXCLUDE-"*vendor*"} sanitize sanitize_init suite:backend --tool initcheck
      ;;
    run-impes)  # the whole of case 2 (double) on cuda and NVIDIA's OpenCL, and compared across backends
      for b in cuda opencl; do
        run run_impes_case2_$b "$PF" run cases/impes_case2.toml --backend $b --cl-platform NVIDIA --no-output
      done
      run compare_impes_case2 "$PF" compare cases/impes_case2.toml --backends omp,cuda,opencl --cl-platform NVIDIA
      ;;
    run-decks)  # every deck on omp, cuda and NVIDIA's OpenCL (and OPM Flow when .devkit carries it): summary files, wall times
      FLOW_CMD=()
      flow_kit && FLOW_CMD=("${FLOW_LAUNCH_CMD[@]}" -np ${FLOW_RANKS:-16} /opt/flowkit/flow)
      threads=$(nproc)
      tf="$OUT/deck_timings${DECK_TAG:-}.json"  # DECK_TAG: a second run-decks in one call keeps the first's
      echo "{" > "$tf"
      for deck in ${DECKS:-tests/decks/*.DATA validation/decks/*.DATA}; do
        [ -f "$deck" ] || continue
        name=$(basename "$deck" .DATA)
        # SPE10 and its shortened copies (SPE10_150: the first 150 days, made by the call)
        if [[ $name == SPE10* ]] && [ ! -f validation/decks/spe10/PORO.INC ]; then run gen_spe10 validation/gen_spe10.sh "$PF" || break; fi
        runs=(omp cuda opencl)
        [ ${#FLOW_CMD[@]} -gt 0 ] && case $deck in validation/*) runs=(flow "${runs[@]}") ;; esac
        for b in "${runs[@]}"; do
          [ -n "${DECK_BACKENDS:-}" ] && [[ " $DECK_BACKENDS " != *" $b "* ]] && continue
          t0=$(date +%s.%N)
          rm -rf "$ROOT/deck-runs/${name}_$b"
          if [ $b = flow ]; then
            mkdir -p "$ROOT/deck-runs/${name}_flow"
            # FLOW_ARGS: settings beyond the anchor's (SPE10 needs --linear-solver-max-iter: docs/fim.md);
            # FLOW_TIMEOUT bounds the run; its INFOSTEP (a line a step) is kept where it ends
            STAGE_TIMEOUT=${FLOW_TIMEOUT:-${STAGE_TIMEOUT:-3600}} run deck_${name}_flow "${FLOW_CMD[@]}" "$deck" \
              --output-dir="$ROOT/deck-runs/${name}_flow" --linear-solver=cpr --threads-per-process=1 ${FLOW_ARGS:-}
            rm -f "$ROOT/deck-runs/${name}_flow"/*.{UNRST,EGRID,INIT,DBG,PRT,RFT}
          else
            run deck_${name}_$b "$PF" run "$deck" --backend $b --cl-platform NVIDIA --threads $threads -o "$ROOT/deck-runs/${name}_$b" \
              --set output.vtk=false --set output.png=false
            rm -f "$ROOT/deck-runs/${name}_$b"/*.{csv,png}
          fi
          echo "  \"${name}_$b\": {\"wall_s\": $(awk "BEGIN{print $(date +%s.%N) - $t0}"), \"threads\": $threads}," >> "$tf"
        done
      done
      echo "  \"host\": \"$(nproc) cores, $(nvidia-smi -L | head -1 | sed 's/ (UUID.*//')\"}" >> "$tf"
      ;;
    run-validation)  # validation/run.sh: OPM Flow (the anchor: CPR on FLOW_RANKS (16) MPI ranks) and poreflow on
      # VAL_BACKENDS (omp cuda opencl) over VAL_DECKS (QFS LAYERED HETERO THIN), one after the other in this call;
      # the summaries, statistics and timings in $OUT/validation.tar.gz (compared later: run.sh --no-flow --no-poreflow)
      flow_kit || { echo "run-validation: .devkit carries no flow kit"; status=1; continue; }
      # poreflow with the kit's PYTHONHOME (its deck parser), run.sh's own Python without it
      printf '#!/bin/sh\nPYTHONHOME=%s exec %s "$@"\n' "$KIT_PYTHONHOME" "$PF" > "$BUILD/poreflow_kit.sh"
      chmod +x "$BUILD/poreflow_kit.sh"
      run validation env -u PYTHONHOME PYTHON="$(command -v python3)" POREFLOW="$BUILD/poreflow_kit.sh" \
        POREFLOW_ARGS="--cl-platform NVIDIA" FLOW=/opt/flowkit/flow FLOW_LAUNCH="${FLOW_LAUNCH_CMD[*]}" \
        FLOW_ARGS=--linear-solver=cpr validation/run.sh --decks "${VAL_DECKS:-QFS LAYERED HETERO THIN}" \
        --backends "${VAL_BACKENDS:-omp cuda opencl}" --flow-mpi ${FLOW_RANKS:-16} --no-compare --out "$OUT/validation"
      rm -f "$OUT"/validation/flow_*/*/*.{UNRST,EGRID,INIT,DBG,PRT,RFT}  # the summaries, INFOSTEP and logs stay
      # one file: the device tool brings back no folder three levels deep
      tar -czf "$OUT/validation.tar.gz" -C "$OUT" validation && rm -rf "$OUT/validation"
      ;;
    run-graphs)  # fully implicit decks on cuda with and without CUDA Graphs (linear.cuda_graphs), alternating GRAPHS_REPS
                 # (2) times, then once on NVIDIA's OpenCL; GRAPHS_DECKS (HETERO, THIN, LAYERED); tools/device/graphs_json.py
      for deck in ${GRAPHS_DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
        name=$(basename "$deck" .DATA)
        if [ "$name" = SPE10 ] && [ ! -f validation/decks/spe10/PORO.INC ]; then run gen_spe10 validation/gen_spe10.sh "$PF" || break; fi
        for rep in $(seq "${GRAPHS_REPS:-2}"); do
          for g in true false; do
            run "graphs_${name}_cuda_${g}_$rep" "$PF" run "$deck" --backend cuda --no-output --set linear.cuda_graphs=$g
          done
        done
        [ "${GRAPHS_OPENCL:-1}" = 1 ] && run "graphs_${name}_opencl_true_1" "$PF" run "$deck" --backend opencl --cl-platform NVIDIA --no-output
      done
      ;;
    run-tail)  # AMG's coarse levels in one launch (linear.amg_tail_rows = each of TAIL_ROWS, -1: the backend's
               # choice, 0: a launch a step): the decks (TAIL_DECKS: HETERO, THIN, LAYERED) on cuda and NVIDIA's
               # OpenCL, the settings alternating
               # TAIL_REPS (2) times; then bench linalg's SPE10-like systems (TAIL_SIZES) with TAIL_LINALG_ROWS; tools/device/tail_json.py
      for rep in $(seq "${TAIL_REPS:-2}"); do
        for deck in ${TAIL_DECKS:-validation/decks/HETERO.DATA validation/decks/THIN.DATA validation/decks/LAYERED.DATA}; do
          name=$(basename "$deck" .DATA)
          for b in cuda opencl; do
            for t in ${TAIL_ROWS:--1 0}; do
              run "tail_${name}_${b}_${t}_$rep" "$PF" run "$deck" --backend $b --cl-platform NVIDIA --no-output \
                --set linear.amg_tail_rows=$t
            done
          done
        done
      done
      for t in ${TAIL_LINALG_ROWS:--1 0}; do
        run "tail_linalg_$t" "$PF" bench linalg --backends cuda,opencl --cl-platform NVIDIA --sizes "${TAIL_SIZES:-spe10,spe10-2p}" \
          --solvers amg,amg-w,cpr --amg-tail-rows $t --json "$OUT/tail_linalg_$t.json"
      done
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
    build-old)  # the base commit of a comparison, unpacked into .gpu-old/ (carried; tools/device/README.md)
      [ -d .gpu-old ] || { echo "no .gpu-old/ tree"; status=1; break; }
      run configure_old cmake -S .gpu-old -B "$BUILD-old" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/opt/kit/usr \
        -DCMAKE_CXX_FLAGS=-I/opt/kit/usr/include -DCMAKE_CUDA_ARCHITECTURES=90 -DPOREFLOW_WITH_CUDA=ON -DPOREFLOW_WITH_OPENCL=ON \
        -DPOREFLOW_BUILD_TESTS=OFF
      run build_old cmake --build "$BUILD-old" --parallel --target poreflow || break
      ;;
    bench-compare)  # the benches of the old build (build-old) and this one, alternately, on cuda and NVIDIA's OpenCL
      for k in ${COMPARE_KINDS:-reduce tridiag sor3d impes3d fluids3d}; do
        extra=()
        [ $k = impes3d ] && extra=(--cases case2 --cpu-budget 1)
        [ $k = fluids3d ] && extra=(--sizes 168 --cpu-budget 1 --gpu-budget 30)
        [ $k = sor3d ] && extra=(--precision float ${COMPARE_SOR3D_GRIDS:+--grids $COMPARE_SOR3D_GRIDS})
        [ $k = reduce ] && extra=(--sizes ${COMPARE_REDUCE_SIZES:-2^20,2^24,2^26})
        [ $k = tridiag ] && extra=(--shapes ${COMPARE_TRIDIAG:-1025x1025,4097x4097,33x2^19})
        for pass in 1 2; do
          for which in old new; do
            bin=$PF
            [ $which = old ] && bin=$BUILD-old/apps/poreflow
            run cmp_${k}_${which}_$pass "$bin" bench $k --backends cuda,opencl --cl-platform NVIDIA \
              --json "$LOGS/cmp_${k}_${which}_$pass.json" "${extra[@]}"
          done
        done
      done
      run compare_benches env -u PYTHONHOME python3 tools/device/compare_benches.py "$LOGS"  # the machine's Python, not the kit's
      cp "$LOGS/compare.json" "$OUT/compare.json" 2>/dev/null
      ;;
    bench)
      for k in reduce bl1d tridiag adi2d; do bench_kind $k; done
      ;;
    bench-*)
      bench_kind "${s#bench-}"
      ;;
    mpi-build)  # docs/mpi.md: build with MPI (the headers of libopenmpi-dev in .devkit, the libraries of the flow kit):
                # poreflow, the suite and the MPI tests in one folder (a process alone runs without MPI, so `test` after
                # this runs the suite of the MPI build); a no-op on a warm machine that built it already
      [ -d /opt/flowkit ] || tar -xJf .devkit/flowkit.tar.xz -C /opt
      [ -d /usr/lib/x86_64-linux-gnu/openmpi ] || cp -r /opt/flowkit/openmpi /usr/lib/x86_64-linux-gnu/openmpi
      [ -d /usr/lib/x86_64-linux-gnu/pmix2 ] || cp -r /opt/flowkit/pmix2 /usr/lib/x86_64-linux-gnu/pmix2
      [ -d /usr/share/openmpi ] || tar -xzf .devkit/mpishare.tar.gz -C /
      export LD_LIBRARY_PATH=$LD_LIBRARY_PATH:/opt/flowkit/lib  # libmpi for the binaries run alone (after the .devkit's)
      nvidia-smi -L > "$LOGS/gpu.txt" 2>&1
      run configure_mpi cmake -S . -B "$BUILD" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=/opt/kit/usr \
        -DCMAKE_CXX_FLAGS=-I/opt/kit/usr/include -DCMAKE_CUDA_ARCHITECTURES=90 -DPOREFLOW_TEST_CL_PLATFORM=NVIDIA \
        -DPOREFLOW_WITH_CUDA=ON -DPOREFLOW_WITH_OPENCL=ON -DPOREFLOW_WITH_MPI=ON -DMPI_CXX_SKIP_MPICXX=ON \
        -DMPI_CXX_HEADER_DIR=/opt/kit/usr/lib/x86_64-linux-gnu/openmpi/include -DMPI_CXX_LIB_NAMES=mpi \
        -DMPI_mpi_LIBRARY=/opt/flowkit/lib/libmpi.so.40 -DMPIEXEC_EXECUTABLE=/opt/flowkit/orterun || break
      run build_mpi cmake --build "$BUILD" --parallel --target poreflow poreflow_tests poreflow_mpi_tests || break
      run info "$PF" info
      ;;
    mpi)  # after mpi-build: the MPI tests on each of MPI_RANKS (2) processes on MPI_TEST_BACKENDS (cuda and
          # NVIDIA's OpenCL), and bench linalg-ranks on 1 and each of MPI_RANKS processes on MPI_BACKEND (MPI_SIZES
          # systems, MPI_SOLVERS solvers)
      [ "${MPI_TESTS:-1}" = 1 ] && for n in ${MPI_RANKS:-2}; do
        mpi_cmd "$n"
        run mpi_tests_$n "${MPI_CMD[@]}" "$BUILD/tests/poreflow_mpi_tests" --pf-backend="${MPI_TEST_BACKENDS:-cuda,opencl}" \
          --pf-cl-platform=NVIDIA
      done
      [ "${MPI_BENCH:-1}" = 1 ] && for p in 1 ${MPI_RANKS:-2}; do
        mpi_cmd "$p"
        run bench_linalg_ranks_$p "${MPI_CMD[@]}" "$PF" bench linalg-ranks --backends "$MPI_BACKEND" \
          --sizes "${MPI_SIZES:-poisson256,spe10}" --solvers "${MPI_SOLVERS:-jacobi,ilu0,amg-local,amg}" --solves 3 \
          --json "$OUT/linalg_ranks_np$p.json"
      done
      ;;
    mpi-fim)  # after mpi-build: the SPE10-shaped deck tiled TILES times along y (tools/device/spe10_scaled.py; FIM_DAYS
              # days, 500 by default; its top FIM_LAYERS layers, 85 by default), fully implicit, on MPI_BACKEND;
              # one run per FIM_RUNS line
              # ("name|processes|tiles|--set ... options|threads", the last two optional)
      [ -f validation/decks/spe10/PORO.INC ] || run gen_spe10 validation/gen_spe10.sh "$PF" || break
      while IFS='|' read -r name procs tiles opts threads; do
        [ -n "$name" ] || continue
        mpi_cmd "$procs" "$threads"
        d=$ROOT/fim-decks/T${tiles}_${FIM_DAYS:-500}d_${FIM_LAYERS:-85}l  # a warm machine keeps the decks
        [ -f "$d/SPE10_T$tiles.DATA" ] || run gen_spe10_T$tiles env -u PYTHONHOME python3 tools/device/spe10_scaled.py \
          "$tiles" "${FIM_DAYS:-500}" "$d" "${FIM_LAYERS:-85}" < /dev/null || continue
        # shellcheck disable=SC2086
        STAGE_TIMEOUT=${FIM_TIMEOUT:-300} run "fim_${name}" "${MPI_CMD[@]}" "$PF" run "$d/SPE10_T$tiles.DATA" \
          --backend "$MPI_BACKEND" -o "$ROOT/fim-runs/$name" --set output.vtk=false --set output.png=false $opts < /dev/null
      done <<< "${FIM_RUNS:-}"
      ;;
    mpi-impes)  # after mpi-build: impes3d case 1 cut between processes on MPI_BACKEND, one run per IMPES_RUNS line
                # ("name|processes|--set ... options|threads", threads optional); the logs are the record (docs/mpi.md)
      while IFS='|' read -r name procs opts threads; do
        [ -n "$name" ] || continue
        mpi_cmd "$procs" "$threads"
        # shellcheck disable=SC2086
        STAGE_TIMEOUT=${IMPES_TIMEOUT:-240} run "impes_${name}" "${MPI_CMD[@]}" "$PF" run cases/impes_case1.toml \
          --backend "$MPI_BACKEND" --no-output $opts < /dev/null  # orterun would read the list's other lines
      done <<< "${IMPES_RUNS:-}"
      ;;
    mpi-fluids)  # after mpi-build: fluids3d cut into slabs between processes on MPI_BACKEND, one run per FLUIDS_RUNS
                 # line ("name|processes|--set ... options|threads", threads optional); the logs are the record (docs/mpi.md)
      while IFS='|' read -r name procs opts threads; do
        [ -n "$name" ] || continue
        mpi_cmd "$procs" "$threads"
        # shellcheck disable=SC2086
        STAGE_TIMEOUT=${FLUIDS_TIMEOUT:-240} run "fluids_${name}" "${MPI_CMD[@]}" "$PF" run cases/fluids3d.toml \
          --backend "$MPI_BACKEND" --no-output $opts < /dev/null
      done <<< "${FLUIDS_RUNS:-}"
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
