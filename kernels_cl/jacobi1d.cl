/* jacobi1d: one fused Jacobi iteration of the 1D pressure equation with its convergence test,
   following backends/host/jacobi1d.cpp and the control of core/base/converge.h.

   The host turns the iteration number into `plan` (core/kernels/jacobi1d.hpp, jacobi_plan), so no
   work-item divides 64-bit integers:
     plan.s0  slot to decide from (the previous iteration was a check), or -1
     plan.s1  slot this check folds max(metric) into, or -1 when it is no check
     plan.s2  slot to clear for the next check
     plan.s3  1: write per-group keys to partials[] for the host to combine (Combine::Host)
   Every group reads the same control words and so takes the same decision; the slot decided from
   is never written in the same launch.

   A launch that checks runs jacobi_check_<variant>, the others jacobi_step (paper variants: one
   point per work-item) or jacobi_step_fast (Fast: a fixed number of groups sweeping the points):
   the steps carry no reduction code at all. The check kernels keep every barrier on the
   kernel's top level and never return early, which PoCL 3.1 needs: it builds work-group functions
   that never end for kernels with a barrier under a branch followed by more code, or with an early
   return from a branch that stores. */
#include "core/physics/bl1d.h"
#include "kernels_cl/block_reduce.cl"
#include "kernels_cl/control_device.cl"

/* 1 when the launch must do nothing: stopped before, or converged now */
int pf_jacobi_stop(__global ulong* ctrl, long it, int4 plan, pf_real threshold) {
  return pf_cv_launch_stopped(ctrl, it, plan.s0, threshold);
}

/* updates interior point i and returns the bits of its metric (non-negative, so they order like it) */
pf_key pf_jacobi_point(__global const pf_real* p, __global pf_real* q, __global const pf_real* mf, size_t i,
                       int residual) {
  const pf_real mm = mf[i - 1], mp = mf[i], po = p[i];
  const pf_real v = bl_jacobi_point(p[i - 1], p[i + 1], mm, mp);
  q[i] = v;
  return pf_bits(bl_jacobi_metric(v, po, mm, mp, residual));
}

/* the group's max key into the check slot, or partials[group] for the host */
void pf_jacobi_publish(pf_key key, __global ulong* ctrl, __global ulong* partials, int4 plan) {
  pf_cv_publish(key, ctrl, plan.s1, plan.s2, partials, plan.s3);
}

#define PF_JACOBI_ARGS                                                                                        \
  __global const pf_real *p, __global pf_real *q, __global const pf_real *mf, ulong n, pf_real p_left,        \
      pf_real p_right, pf_real threshold, int residual, __global ulong *ctrl, __global ulong *partials, long it, \
      int4 plan

PF_KERNEL void jacobi_step(PF_JACOBI_ARGS) {
  if (pf_jacobi_stop(ctrl, it, plan, threshold)) return;
  const size_t i = get_global_id(0) + 1;
  if (i < n - 1) q[i] = bl_jacobi_point(p[i - 1], p[i + 1], mf[i - 1], mf[i]);
  if (i == 1) {
    q[0] = p_left;
    q[n - 1] = p_right;
  }
}

/* Fast: each group sweeps tiles of PF_JACOBI_U * PF_BLOCK points, a work-item PF_JACOBI_U of them
   a group-width apart, all loads first so they are in flight together (neighbours come from the
   cache); as the CUDA twin. Returns the work-item's max metric key when `check` (a literal). */
#define PF_JACOBI_U 4
pf_key pf_jacobi_sweep(const int check, __global const pf_real* p, __global pf_real* q, __global const pf_real* mf,
                       ulong n, pf_real p_left, pf_real p_right, int residual) {
  const size_t tile = (size_t)PF_BLOCK * PF_JACOBI_U, lid = get_local_id(0);
  pf_key m = 0;
  for (size_t base = get_group_id(0) * tile; base < n; base += get_num_groups(0) * tile) {
    pf_real pw[PF_JACOBI_U], pc[PF_JACOBI_U], pe[PF_JACOBI_U], ml[PF_JACOBI_U], mr[PF_JACOBI_U];
#pragma unroll
    for (int u = 0; u < PF_JACOBI_U; ++u) {
      const size_t i = base + u * PF_BLOCK + lid;
      pw[u] = pc[u] = pe[u] = ml[u] = mr[u] = 0;
      if (i >= 1 && i + 1 < n) {
        pw[u] = p[i - 1];
        pe[u] = p[i + 1];
        ml[u] = mf[i - 1];
        mr[u] = mf[i];
        if (check) pc[u] = p[i];
      }
    }
#pragma unroll
    for (int u = 0; u < PF_JACOBI_U; ++u) {
      const size_t i = base + u * PF_BLOCK + lid;
      if (i >= 1 && i + 1 < n) {
        const pf_real v = bl_jacobi_point(pw[u], pe[u], ml[u], mr[u]);
        q[i] = v;
        if (check) m = max(m, pf_bits(bl_jacobi_metric(v, pc[u], ml[u], mr[u], residual)));
      } else if (i == 0) {
        q[0] = p_left;
      } else if (i == n - 1) {
        q[i] = p_right;
      }
    }
  }
  return m;
}

PF_KERNEL void jacobi_step_fast(PF_JACOBI_ARGS) {
  if (pf_jacobi_stop(ctrl, it, plan, threshold)) return;
  pf_jacobi_sweep(0, p, q, mf, n, p_left, p_right, residual);
}

/* paper variants: one interior point i = global id + 1 per work-item */
#define PF_JACOBI_CHECK_KERNEL(vname, variant)                                                           \
  PF_KERNEL void jacobi_check_##vname(PF_JACOBI_ARGS) { \
    __local pf_key s[PF_BLOCK];                                                                          \
    const int active = !pf_jacobi_stop(ctrl, it, plan, threshold);                                      \
    const size_t i = get_global_id(0) + 1;                                                               \
    pf_key key = 0;                                                                                      \
    if (active && i < n - 1) key = pf_jacobi_point(p, q, mf, i, residual);                               \
    if (active && i == 1) {                                                                              \
      q[0] = p_left;                                                                                     \
      q[n - 1] = p_right;                                                                                \
    }                                                                                                    \
    key = pf_block_reduce_k(variant, PF_OP_MAX, (pf_key)0, key, s);                                     \
    if (active && pf_is_leader()) pf_jacobi_publish(key, ctrl, partials, plan);                          \
  }

PF_JACOBI_CHECK_KERNEL(interleaved_divergent, PF_V_INTERLEAVED_DIVERGENT)
PF_JACOBI_CHECK_KERNEL(interleaved, PF_V_INTERLEAVED)
PF_JACOBI_CHECK_KERNEL(sequential, PF_V_SEQUENTIAL)
PF_JACOBI_CHECK_KERNEL(unroll_last_warp, PF_V_UNROLL_LAST_WARP)
PF_JACOBI_CHECK_KERNEL(complete_unroll, PF_V_COMPLETE_UNROLL)

/* Fast: one atomic per group */
PF_KERNEL void jacobi_check_fast(PF_JACOBI_ARGS) {
  __local pf_key s[PF_BLOCK];
  const int active = !pf_jacobi_stop(ctrl, it, plan, threshold);
  pf_key key = active ? pf_jacobi_sweep(1, p, q, mf, n, p_left, p_right, residual) : 0;
  key = pf_block_reduce_k(PF_V_FAST, PF_OP_MAX, (pf_key)0, key, s);
  if (active && pf_is_leader()) pf_jacobi_publish(key, ctrl, partials, plan);
}
