/* Device-side pieces of the convergence control (core/base/converge.h) that the iterative
   families' kernels share (twin: kernels_cu/control_device.cuh): the fused stop decision at a
   launch's start and a check's commit of a group maximum into its slot. */
#include "core/base/converge.h"
#include "kernels_cl/block_reduce.cl"

/* 1 when the launch must do nothing: stopped before, or stopping now on the check whose metric is
   in decide_slot (< 0: none). Every group reads the same words and takes the same decision; the
   first work-item of the whole launch records it. */
int pf_cv_launch_stopped(__global ulong* ctrl, long it, int decide_slot, pf_real threshold) {
  const int leader = get_global_id(0) == 0 && get_global_id(1) == 0 && get_global_id(2) == 0;
  return pf_cv_fused_stop(ctrl, it, decide_slot, threshold, PF_CV_TEST, leader);
}

/* the group's max key (the bits of a non-negative pf_real): an atomic max on the check slot's
   word, group 0 zeroing the next check's slot; or, for the host to combine, partials[group] */
void pf_cv_publish(pf_key key, __global ulong* ctrl, int check_slot, int clear_slot, __global ulong* partials,
                   int to_host) {
  if (to_host) {
    partials[get_group_id(0)] = key;
  } else {
    pf_atomic_max_key(ctrl + PF_CV_SLOT0 + check_slot, key);
    if (get_group_id(0) == 0 && get_group_id(1) == 0 && get_group_id(2) == 0) ctrl[PF_CV_SLOT0 + clear_slot] = 0;
  }
}
