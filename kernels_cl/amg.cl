/* amg: a work-item per row (or point) around core/physics/amg.h (twin: kernels_cu/amg.cu). */
#include "core/base/converge.h"
#include "core/physics/amg.h"
#include "core/physics/amg_tail.h"

PF_KERNEL void amg_p_values(long rows, __global const int* p_ptr, __global const int* diag_pos, __global const int* weak_ptr,
                            __global const int* weak, __global const int* src_ptr, __global const int* src,
                            __global const int* own, pf_real omega, __global const pf_real* a, __global pf_real* p) {
  const long i = get_global_id(0);
  if (i < rows) amg_p_row(i, p_ptr, diag_pos, weak_ptr, weak, src_ptr, src, own, omega, a, p);
}

PF_KERNEL void amg_galerkin(long rows, long c_values, __global const int* r_ptr, __global const int* r_col,
                            __global const pf_real* r_val, __global const int* a_ptr, __global const int* a_col,
                            __global const pf_real* a_val, __global const int* p_ptr, __global const int* p_col,
                            __global const pf_real* p_val, __global const int* c_ptr, __global const int* c_col,
                            __global pf_real* c_val) {
  const long c = get_global_id(0);
  if (c < c_values) amg_galerkin_entry(c, rows, r_ptr, r_col, r_val, a_ptr, a_col, a_val, p_ptr, p_col, p_val, c_ptr, c_col, c_val);
}

PF_KERNEL void amg_smooth(long n, pf_real alpha, pf_real beta, __global const pf_real* r, __global const pf_real* dinv,
                          __global pf_real* d, __global pf_real* x, __global const ulong* guard, int start) {
  if (guard && !pf_cv_running(guard)) return;
  const long i = get_global_id(0);
  if (i < n) amg_smooth_point(i, alpha, beta, r, dinv, d, x, start);
}

/* the levels' cycle in this one work-group (core/physics/amg_tail.h); the guard's word is the same
   for every work-item, so all of them return or none */
PF_KERNEL void amg_tail(int levels, int w, __global const int* table, __global const int* ints, __global const pf_real* vals,
                        __global pf_real* work, __global const pf_real* b, __global pf_real* x, __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  amg_tail_cycle((int)get_local_id(0), (int)get_local_size(0), levels, w, table, ints, vals, work, b, x);
}
