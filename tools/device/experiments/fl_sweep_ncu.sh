#!/usr/bin/env bash
# Experiment (GPU machine, after gpu.sh's build): Nsight Compute's counters for fluids3d's CUDA
# lin_solve sweep (fl_sweep_kernel) in a real run: DRAM bytes against the sweep's minimal bytes,
# cache hit rates, occupancy and the throughput of each memory level, to say what limits it. The
# first two launches: later ones in a solve may find it converged and return at once.
#   tools/device/experiments/fl_sweep_ncu.sh      SIZES (default "256 288")
pf=${PF:-build-gpu/apps/poreflow}
ncu=$(ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu /usr/local/cuda/nsight-compute*/ncu 2>/dev/null | head -1)
[ -n "$ncu" ] || { echo "no ncu on this machine"; ls /usr/local/cuda/bin; exit 1; }
metrics=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum
metrics+=,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,l1tex__throughput.avg.pct_of_peak_sustained_active,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct
metrics+=,sm__warps_active.avg.pct_of_peak_sustained_active,launch__registers_per_thread,launch__occupancy_limit_registers
metrics+=,smsp__average_warp_latency_issue_stalled_long_scoreboard,smsp__average_warps_issue_stalled_long_scoreboard_per_issue_active.ratio
metrics+=,lts__t_sectors_srcunit_tex_op_read.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed
metrics+=,smsp__issue_active.avg.pct_of_peak_sustained_active,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
for n in ${SIZES:-256 288}; do
  echo "== N=$n: minimal bytes of one colour sweep (float: x0, the other colour, own read + write): $((8 * n * n * n))"
  env -u PYTHONHOME "$ncu" --kernel-name regex:fl_sweep --launch-skip 0 --launch-count 2 --metrics "$metrics" \
    "$pf" run cases/fluids3d.toml --set grid.n=$n --set time.steps=1 --backend cuda --no-output 2>&1 | grep -v "^\[" | tail -40
done
