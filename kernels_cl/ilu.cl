/* ilu: one work-item per row (cell) of a colour around the row functions of core/physics/ilu.h
   (twin: kernels_cu/ilu.cu). PF_ILU_B, the block size, is a define of the program. The parameters
   are the argument structs' descriptions (core/kernels/ilu.hpp: factor_args, sweep_args). */
#include "core/base/converge.h"
#include "core/physics/ilu.h"

/* a bad pivot: the smallest row of the first colour that has one; the colour word is written only
   by this launch or by earlier ones */
void pf_ilu_record(__global int* piv, long row, int colour) {
  if (*(volatile __global int*)(piv + 1) >= colour) {
    atomic_min(piv, (int)row);
    piv[1] = colour;
  }
}

#define PF_ILU_S7_FACTOR_ARGS \
  __global const pf_real *coef, __global const int *active, __global pf_real *dinv, __global int *pivot, pf_box3 b, long E
#define PF_ILU_S7_SWEEP_ARGS                                                                                             \
  __global const pf_real *coef, __global const int *active, __global const pf_real *dinv, __global const pf_real *r, \
      __global pf_real *z, __global pf_real *sum, __global const ulong *guard, pf_box3 b, long E

/* colour 0 over the whole extent */
PF_KERNEL void ilu_s7_factor0(PF_ILU_S7_FACTOR_ARGS) {
  const long L = get_global_id(0);
  if (L < E && !pf_ilu_s7_factor0(PF_ILU_B, coef, active, dinv, b, L)) pf_ilu_record(pivot, L, 0);
}

/* colour 1 over the black half-cells */
PF_KERNEL void ilu_s7_factor1(PF_ILU_S7_FACTOR_ARGS) {
  const long t = get_global_id(0);
  long i, j, k;
  if (t >= pf_rb_m(b) || !pf_ilu_s7_rb_cell(b, 1, t, &i, &j, &k)) return;
  if (!pf_ilu_s7_factor1(PF_ILU_B, coef, active, dinv, b, E, i, j, k)) pf_ilu_record(pivot, pf_box_at(b, i, j, k), 1);
}

PF_KERNEL void ilu_s7_lower0(PF_ILU_S7_SWEEP_ARGS) {
  if (guard && !pf_cv_running(guard)) return;
  const long L = get_global_id(0);
  if (L < E) pf_ilu_s7_lower0(PF_ILU_B, active, dinv, r, z, b, L);
}

PF_KERNEL void ilu_s7_lower1(PF_ILU_S7_SWEEP_ARGS) {
  if (guard && !pf_cv_running(guard)) return;
  const long t = get_global_id(0);
  long i, j, k;
  if (t < pf_rb_m(b) && pf_ilu_s7_rb_cell(b, 1, t, &i, &j, &k)) pf_ilu_s7_lower1(PF_ILU_B, coef, active, dinv, r, z, sum, b, E, i, j, k);
}

PF_KERNEL void ilu_s7_upper0(PF_ILU_S7_SWEEP_ARGS) {
  if (guard && !pf_cv_running(guard)) return;
  const long t = get_global_id(0);
  long i, j, k;
  if (t < pf_rb_m(b) && pf_ilu_s7_rb_cell(b, 0, t, &i, &j, &k)) pf_ilu_s7_upper0(PF_ILU_B, coef, active, dinv, z, sum, b, E, i, j, k);
}

/* ILU(0) when lu is given, else DILU */
PF_KERNEL void ilu_csr_factor(__global const int* ptr, __global const int* col, __global const pf_real* val,
                              __global const int* order, __global const int* ent, __global const int* dpos,
                              __global pf_real* lu, __global pf_real* dinv, __global int* pivot, int first, int count,
                              int colour) {
  const int t = (int)get_global_id(0);
  if (t >= count) return;
  const int i = order[first + t];
  const int ok = lu ? pf_ilu_csr_factor_ilu0(PF_ILU_B, ptr, col, val, ent, dpos, lu, dinv, i)
                    : pf_ilu_csr_factor_dilu(PF_ILU_B, ptr, col, val, ent, dpos, dinv, i);
  if (!ok) pf_ilu_record(pivot, i, colour);
}

#define PF_ILU_CSR_SWEEP_ARGS                                                                                      \
  __global const int *ptr, __global const int *col, __global const pf_real *v, __global const int *order,         \
      __global const int *ent, __global const int *dpos, __global const pf_real *dinv, __global const pf_real *r, \
      __global pf_real *z, __global pf_real *sum, __global const ulong *guard, int first, int count

PF_KERNEL void ilu_csr_lower(PF_ILU_CSR_SWEEP_ARGS) {
  if (guard && !pf_cv_running(guard)) return;
  const int t = (int)get_global_id(0);
  if (t < count) pf_ilu_csr_lower(PF_ILU_B, ptr, col, v, ent, dpos, dinv, r, z, sum, order[first + t]);
}

PF_KERNEL void ilu_csr_upper(PF_ILU_CSR_SWEEP_ARGS) {
  if (guard && !pf_cv_running(guard)) return;
  const int t = (int)get_global_id(0);
  if (t < count) pf_ilu_csr_upper(PF_ILU_B, ptr, col, v, ent, dpos, dinv, z, sum, order[first + t]);
}
