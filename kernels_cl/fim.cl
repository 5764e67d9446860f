/* fim: a work-item per cell around core/physics/fim.h (twin: kernels_cu/fim.cu). The parameters
   and tables are read from global memory. */
#include "core/physics/fim.h"

PF_KERNEL void fim_masses(__global const pf_real* prm, long E, __global const pf_real* x, __global const pf_real* pv0,
                          __global pf_real* mw, __global pf_real* mo) {
  const long L = get_global_id(0);
  if (L < E) fim_masses_cell(prm, L, x, pv0, mw, mo);
}

PF_KERNEL void fim_assemble(__global const pf_real* prm, pf_box3 b, long cells, long E, pf_real dt, __global const pf_real* x,
                            __global const pf_real* mw_n, __global const pf_real* mo_n, __global const pf_real* tx,
                            __global const pf_real* ty, __global const pf_real* tz, __global const pf_real* depth,
                            __global const pf_real* pv0, __global pf_real* coef, __global pf_real* res) {
  const long c = get_global_id(0);
  if (c >= cells) return;
  const long i = c % b.nx, j = (c / b.nx) % b.ny, k = c / (b.nx * b.ny);
  fim_assemble_cell(prm, b, i, j, k, E, dt, x, mw_n, mo_n, tx, ty, tz, depth, pv0, coef, res);
}
