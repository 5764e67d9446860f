/* The control family (twin: kernels_cu/control.cu): the full convergence decision of
   core/base/converge.h on one work-item (launched as one work-group of PF_BLOCK; the extra
   work-items do nothing). */
#include "core/base/converge.h"

PF_KERNEL void cv_decide(__global ulong* ctrl, long it, int slot, pf_real abs_tol, pf_real rel_tol, int flags, long cycle,
                         long max_it) {
  if (get_global_id(0) == 0) pf_cv_decide(ctrl, it, slot, abs_tol, rel_tol, flags, cycle, max_it);
}
