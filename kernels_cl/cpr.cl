/* cpr: a work-item per cell or entry around core/physics/cpr.h (twin: kernels_cu/cpr.cu). */
#include "core/base/converge.h"
#include "core/physics/cpr.h"

PF_KERNEL void cpr_weights(long cells, __global const int* diag_pos, __global const pf_real* diag, __global pf_real* w) {
  const long i = get_global_id(0);
  if (i < cells) cpr_weights_point(i, diag_pos ? (long)diag_pos[i] : i, diag, w);
}

PF_KERNEL void cpr_pressure(long entries, long extent, __global const int* rows, __global const pf_real* w,
                            __global const pf_real* a, __global pf_real* ap) {
  const long k = get_global_id(0);
  if (k < entries) cpr_pressure_entry(k, rows ? (long)rows[k] : k % extent, w, a, ap);
}

PF_KERNEL void cpr_restrict(long cells, __global const pf_real* w, __global const pf_real* r, __global pf_real* rp,
                            __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  const long i = get_global_id(0);
  if (i < cells) cpr_restrict_point(i, w, r, rp);
}

PF_KERNEL void cpr_prolong(long cells, __global const pf_real* xp, __global pf_real* z, __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  const long i = get_global_id(0);
  if (i < cells) cpr_prolong_point(i, xp, z);
}
