/* fim: a work-item per cell or per well around core/physics/fim.h (twin: kernels_cu/fim.cu). The
   parameters and tables are read from global memory. */
#include "core/base/converge.h"
#include "core/physics/fim.h"

PF_KERNEL void fim_masses(__global const pf_real* prm, long E, __global const pf_real* x, __global const pf_real* pv0,
                          __global pf_real* mw, __global pf_real* mo) {
  const long L = get_global_id(0);
  if (L < E) fim_masses_cell(prm, L, x, pv0, mw, mo);
}

PF_KERNEL void fim_assemble(__global const pf_real* prm, pf_box3 b, long cells, long E, pf_real dt, __global const pf_real* x,
                            __global const pf_real* mw_n, __global const pf_real* mo_n, __global const pf_real* tx,
                            __global const pf_real* ty, __global const pf_real* tz, __global const pf_real* depth,
                            __global const pf_real* pv0, __global const pf_real* wp, __global const pf_real* ws,
                            __global const int* ccell, __global const int* cwell, __global const pf_real* cwi,
                            __global pf_real* cq, __global pf_real* coef, __global pf_real* res, __global pf_real* cnv,
                            __global pf_real* mbw, __global pf_real* mbo, pf_real cnv_tol, __global pf_real* viol) {
  const long c = get_global_id(0);
  if (c >= cells) return;
  const long i = c % b.nx, j = (c / b.nx) % b.ny, k = c / (b.nx * b.ny);
  fim_assemble_cell(prm, b, i, j, k, E, dt, x, mw_n, mo_n, tx, ty, tz, depth, pv0, wp, ws, ccell, cwell, cwi, cq, coef, res, cnv,
                    mbw, mbo, cnv_tol, viol);
}

PF_KERNEL void fim_wells_start(__global const pf_real* prm, long nw, __global const pf_real* wp, __global pf_real* ws,
                              __global const long* cidx, __global const pf_real* cwi, __global const pf_real* cdepth,
                              __global const pf_real* x, __global const pf_real* pv0, __global pf_real* cq) {
  const long w = get_global_id(0);
  if (w < nw) fim_well_start(prm, w, wp, ws, cidx, cwi, cdepth, x, pv0, cq);
}

PF_KERNEL void fim_well_eq(long nw, __global const pf_real* wp, __global pf_real* ws, __global const long* cidx,
                           __global pf_real* cq, pf_real dt, __global pf_real* coef, __global pf_real* res) {
  const long w = get_global_id(0);
  if (w < nw) fim_well_equation(w, wp, ws, cidx, cq, dt, coef, res);
}

PF_KERNEL void fim_schur(long nw, __global const pf_real* wp, __global const pf_real* ws, __global const long* cidx,
                         __global const pf_real* cq, pf_real dt, pf_real alpha, __global const pf_real* v,
                         __global pf_real* y, __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  const long w = get_global_id(0);
  if (w < nw) fim_schur_well(w, wp, ws, cidx, cq, dt, alpha, v, y);
}

PF_KERNEL void fim_update_wells(long nw, __global const pf_real* wp, __global pf_real* ws, __global const long* cidx,
                                __global const pf_real* cq, __global const pf_real* dx, pf_real dbhp_max) {
  const long w = get_global_id(0);
  if (w < nw) fim_update_well(w, wp, ws, cidx, cq, dx, dbhp_max);
}

PF_KERNEL void fim_update_cells(long E, __global const pf_real* pv0, __global const pf_real* dx, __global pf_real* x,
                                pf_real dp_max, pf_real ds_max) {
  const long L = get_global_id(0);
  if (L < E) fim_update_cell(L, pv0, dx, x, dp_max, ds_max);
}

PF_KERNEL void fim_unpack(long E, __global const pf_real* pv0, __global const pf_real* x, __global pf_real* p,
                          __global pf_real* sw, __global pf_real* dp, __global pf_real* ds) {
  const long L = get_global_id(0);
  if (L < E) fim_unpack_cell(L, pv0, x, p, sw, dp, ds);
}

PF_KERNEL void fim_pack(long E, __global const pf_real* pv0, __global const pf_real* p, __global const pf_real* sw,
                        __global pf_real* x) {
  const long L = get_global_id(0);
  if (L < E) fim_pack_cell(L, pv0, p, sw, x);
}
