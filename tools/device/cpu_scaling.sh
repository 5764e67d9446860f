#!/usr/bin/env bash
# The CPU through MPI (issue 26's CPU runs): the three models on 1, 2, 4 and 8 processes of the
# device machine's cores, omp, through gpu.sh's MPI stages. Weak runs give each process 2 threads
# and its own share of the grid; strong runs share the machine's cores out among the processes.
#   tools/device/cpu_scaling.sh PART [gpu.sh stages before it]
# PART: tests (the MPI tests on 4 and 8 processes, serial and omp), impes, fluids, fim-weak,
# fim-strong. One device call takes one or two parts (each fits in its 600 s), each with its own
# OUT (gpu.sh packs one results.tar.gz an OUT; fim-weak and fim-strong both name a run t1_np1).
# The logs' names are the run lists' (tools/device/mpi_*_json.py read them).
set -uo pipefail
cd "$(dirname "$0")/../.."
part=${1:-}
[ $# -gt 0 ] && shift
export MPI_BACKEND=omp MPI_BENCH=0
P=(1 2 4 8)
runs=""
case $part in
  tests)
    MPI_RANKS="4 8" MPI_TEST_BACKENDS=serial,omp exec tools/device/gpu.sh "$@" mpi ;;
  impes)
    # weak: case 1 (96 x 96 x 100 cells, its cell sizes) a process, side by side along x; strong:
    # case 1 x 8 (192 x 192 x 200, 7.4 M cells); CG + Jacobi, 0.1 days
    o="--set pressure.solver=cg --set pressure.preconditioner=jacobi --set time.end=0.1 --set time.reports=1"
    for p in "${P[@]}"; do runs+="wc_np$p|$p|$o --set grid.nx=$((96 * p)) --set grid.lx=$((1000 * p))|2"$'\n'; done
    for p in "${P[@]}"; do
      runs+="sc_np$p|$p|$o --set grid.nx=192 --set grid.ny=192 --set grid.nz=200 --set grid.lx=2000 --set grid.ly=2000 --set grid.lz=100"$'\n'
    done
    IMPES_RUNS=$runs exec tools/device/gpu.sh "$@" mpi-impes ;;
  fluids)
    # weak: N = 128 a process (N^3 ~ P 128^3 cells); strong: N = 240; dt N = 8.4, tolerance 0 (20
    # sweeps a solve), 10 steps
    o="--set solver.tolerance=0 --set time.steps=10"
    for pn in 1:128 2:161 4:203 8:256; do
      p=${pn%:*} n=${pn#*:}
      runs+="w${p}_$n|$p|$o --set grid.n=$n --set time.dt=$(python3 -c "print(8.4 / $n)")|2"$'\n'
    done
    runs+="w1_240|1|$o --set grid.n=240 --set time.dt=0.035"$'\n'
    for p in 2 4 8; do runs+="s${p}_240|$p|$o --set grid.n=240 --set time.dt=0.035"$'\n'; done
    FLUIDS_RUNS=$runs exec tools/device/gpu.sh "$@" mpi-fluids ;;
  fim-weak | fim-strong)
    # the SPE10-shaped deck tiled along y, a tile a process, its first FIM_DAYS days; its top 17 layers
    # (FIM_LAYERS: a tile of 224 400 cells, a fifth of the deck's, for the CPU's time)
    for p in "${P[@]}"; do
      if [ "$part" = fim-weak ]; then runs+="t${p}_np$p|$p|$p||2"$'\n'; else runs+="t1_np$p|$p|1||"$'\n'; fi
    done
    FIM_LAYERS=${FIM_LAYERS:-17} FIM_DAYS=${FIM_DAYS:-50} FIM_TIMEOUT=${FIM_TIMEOUT:-240} FIM_RUNS=$runs exec tools/device/gpu.sh "$@" mpi-fim ;;
  *) echo "cpu_scaling.sh: unknown part '$part' (tests, impes, fluids, fim-weak, fim-strong)" >&2; exit 2 ;;
esac
