/* One-launch reductions whose result does not depend on the order the groups ran in (vec's dot
   products, stencil7's singular row; twin: kernels_cu/last_group.cuh). Every group writes its
   partials (its leader, pf_is_leader) to partials[q * groups + group], then counts itself; the group
   that counts last reads every partial in group order and writes the results, then re-arms the
   counter. No floating-point atomics: a launch of the same shape gives the same bits every run.

   PoCL 3.1 builds work-group functions that never end for a barrier under a branch followed by more
   code, or an early return (kernels_cl/jacobi1d.cl): kernels that use these keep their barriers at
   the top level, return nowhere early (a stopped guard empties their loops instead), and put the
   last group's combine, whose barriers are under its branch, last. */
#include "kernels_cl/block_reduce.cl"

/* 1 in every work-item of the group that counted last; every group's partials are visible to it */
int pf_last_group(__global uint* counter, __local int* last) {
  if (pf_is_leader()) {
    pf_fence_global();
    *last = atomic_inc(counter) == get_num_groups(0) - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const int l = *last;
  if (l) pf_fence_global();
  return l;
}

/* the last group, once it has read every partial: the counter back to 0 for the next launch */
void pf_last_group_done(__global uint* counter) {
  if (get_local_id(0) == 0) *counter = 0;
}

/* this group's sum of v into partials[q * groups + group] (red: PF_BLOCK values, reusable after) */
void pf_partial_sum(pf_real v, __global pf_real* partials, int q, __local pf_real* red) {
  v = pf_fast_block_r(PF_OP_SUM, (pf_real)0, v, red);
  if (pf_is_leader()) partials[(size_t)q * get_num_groups(0) + get_group_id(0)] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* in the last group: the sum of value q's partials in group order; valid at the leader */
pf_real pf_final_sum(__global pf_real* partials, int q, __local pf_real* red) {
  volatile __global pf_real* p = partials + (size_t)q * get_num_groups(0); /* other groups wrote them */
  pf_real v = 0;
  for (uint g = get_local_id(0); g < get_num_groups(0); g += get_local_size(0)) v += p[g];
  v = pf_fast_block_r(PF_OP_SUM, (pf_real)0, v, red);
  barrier(CLK_LOCAL_MEM_FENCE);
  return v;
}

/* the group's minimum of v, in every work-item (any group size: each step folds the upper part of
   the values left onto the lower) */
ulong pf_group_min_u64(ulong v, __local ulong* red) {
  const uint lid = get_local_id(0);
  red[lid] = v;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint n = get_local_size(0); n > 1; n = (n + 1) / 2) {
    const uint up = (n + 1) / 2;
    if (lid < n - up) red[lid] = min(red[lid], red[lid + up]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  v = red[0];
  barrier(CLK_LOCAL_MEM_FENCE);
  return v;
}

/* the minimum of v over the launch into *word (partials: one ulong per group); one call per launch,
   the kernel's last statement (its barriers under the last group's branch end the kernel) */
void pf_launch_min_u64(ulong v, __global ulong* word, __global ulong* partials, __global uint* counter,
                       __local ulong* red, __local int* last) {
  v = pf_group_min_u64(v, red);
  if (pf_is_leader()) partials[get_group_id(0)] = v;
  if (pf_last_group(counter, last)) {
    volatile __global ulong* p = partials;
    v = 0xffffffffffffffffUL;
    for (uint g = get_local_id(0); g < get_num_groups(0); g += get_local_size(0)) v = min(v, p[g]);
    v = pf_group_min_u64(v, red);
    if (get_local_id(0) == 0) *word = v;
    pf_last_group_done(counter);
  }
}
