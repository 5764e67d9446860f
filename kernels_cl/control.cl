/* The control family (twin: kernels_cu/control.cu): the full convergence decision of
   core/kernels/converge.h on one work-item, and the best-iterate copy it may ask for. Launched with
   work-groups of PF_BLOCK; decide's extra work-items do nothing. */
#include "core/kernels/converge.h"

PF_KERNEL void cv_decide(__global ulong* ctrl, long it, int slot, pf_real abs_tol, pf_real rel_tol, int flags, long cycle,
                         long max_it) {
  if (get_global_id(0) == 0) pf_cv_decide(ctrl, it, slot, abs_tol, rel_tol, flags, cycle, max_it);
}

PF_KERNEL void cv_save(__global const ulong* ctrl, long it, ulong n, __global const pf_real* src, __global pf_real* dst) {
  if (!pf_cv_save_now(ctrl, it)) return;
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0)) dst[i] = src[i];
}
