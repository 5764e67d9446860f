/* blas: vector updates (twin: kernels_cu/blas.cu). */
#include "core/base/converge.h"

/* y += alpha x, one element per work-item; nothing once the control block `guard` (may be null)
   says stop */
PF_KERNEL void axpy(ulong n, pf_real alpha, __global const pf_real* x, __global pf_real* y, __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  const size_t i = get_global_id(0);
  if (i < n) y[i] += alpha * x[i];
}
