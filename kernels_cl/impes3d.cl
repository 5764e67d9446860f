/* impes3d: box loops around the shared cell functions of core/physics/impes3d.h, one work-item per
   well for the wells (twin: kernels_cu/impes3d.cu). The program is built per launch shape and per
   place of the tables: PF_TABLE_SPACE is __constant when they fit the device's constant buffer,
   else __global (backends/opencl/impes3d.cpp). The well kernels run in groups of PF_BLOCK, the
   shape's size. */
#include "core/base/converge.h"
#include "core/physics/impes3d.h"
#include "kernels_cl/block_reduce.cl"
#include "kernels_cl/box3_device.cl"

#define PF_IMP_GRID                                                                                             \
  pf_box3 b, long E, __global const pf_real *tx, __global const pf_real *ty, __global const pf_real *tz,          \
      __global const pf_real *depth, __global const pf_real *pv0

PF_BOX_KERNEL void imp_props(PF_IMP_GRID, PF_TABLE_SPACE const pf_real* prm, __global const pf_real* p,
                             __global const pf_real* mw, __global const pf_real* mo, __global pf_real* props) {
  PF_BOX_BEGIN(b.nx, b.ny, b.nz)
  imp_props_cell(prm, pf_box_at(b, i, j, k), E, p, mw, mo, pv0, props);
  PF_BOX_END
}

PF_BOX_KERNEL void imp_assemble(PF_IMP_GRID, pf_real dt, __global const pf_real* p, __global const pf_real* props,
                                __global pf_real* coef) {
  PF_BOX_BEGIN(b.nx, b.ny, b.nz)
  imp_assemble_cell(b, i, j, k, E, dt, p, props, tx, ty, tz, depth, pv0, coef);
  PF_BOX_END
}

/* the update and its statistics: each work-item's maxima as keys (bits of non-negative numbers, NaN
   above all), a group tree per statistic (any group size; barriers in loops of the same trip count
   for the whole group), one atomic max per group */
PF_BOX_KERNEL void imp_update(PF_IMP_GRID, PF_TABLE_SPACE const pf_real* prm, pf_real dt, __global const pf_real* po,
                              __global const pf_real* pn, __global const pf_real* props, __global const pf_real* mwi,
                              __global const pf_real* moi, __global const int* ccell, __global const pf_real* comp,
                              __global pf_real* mwo, __global pf_real* moo,
                              __global pf_real* sw, __global ulong* words) {
  __local pf_key red[PF_BOX_BX * PF_BOX_BY * PF_BOX_BZ];
  pf_key mine[IMP_NSTAT];
  for (int s = 0; s < IMP_NSTAT; ++s) mine[s] = 0;
  PF_BOX_BEGIN(b.nx, b.ny, b.nz)
  pf_real st[IMP_NSTAT];
  imp_update_cell(prm, b, i, j, k, E, dt, po, pn, props, tx, ty, tz, depth, pv0, mwi, moi, ccell, comp, mwo, moo, sw, st);
  for (int s = 0; s < IMP_NSTAT; ++s) mine[s] = max(mine[s], pf_bits(st[s]));
  PF_BOX_END
  const uint n = PF_BOX_BX * PF_BOX_BY * PF_BOX_BZ;
  const uint lid = get_local_id(0) + PF_BOX_BX * (get_local_id(1) + PF_BOX_BY * get_local_id(2));
  for (int s = 0; s < IMP_NSTAT; ++s) {
    red[lid] = mine[s];
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint m = n; m > 1; m = (m + 1) / 2) {
      const uint up = (m + 1) / 2;
      if (lid < m - up) red[lid] = max(red[lid], red[lid + up]);
      barrier(CLK_LOCAL_MEM_FENCE);
    }
    if (lid == 0 && red[0] != 0) pf_atomic_max_key(words + s, red[0]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

PF_KERNEL void imp_wells_prepare(PF_IMP_GRID, PF_TABLE_SPACE const pf_real* prm, long wells, __global const pf_real* wp,
                                 __global const long* cidx, __global const pf_real* cwi, __global const pf_real* cdepth,
                                 __global pf_real* comp, __global const pf_real* props, __global const pf_real* p, pf_real dt,
                                 __global pf_real* coef, __global ulong* words) {
  const long w = get_global_id(0);
  if (w >= wells) return;
  imp_well_prepare(prm, wp + w * IMP_NWP, cidx, cwi, cdepth, props, E, 2 * pf_rb_m(b), p, pv0, dt, comp, coef,
                   words + IMP_NSTAT + w * IMP_NWO);
}

PF_KERNEL void imp_wells_finish(long wells, __global const pf_real* wp, __global const long* cidx, __global pf_real* comp,
                                __global const pf_real* p, __global ulong* words) {
  const long w = get_global_id(0);
  if (w >= wells) return;
  imp_well_finish(wp + w * IMP_NWP, cidx, comp, p, words + IMP_NSTAT + w * IMP_NWO);
}

PF_KERNEL void imp_wells_couple(PF_IMP_GRID, long wells, __global const pf_real* wp, __global const long* cidx,
                                __global pf_real* comp, __global const pf_real* props, __global const pf_real* p,
                                __global const pf_real* dp, pf_real dt, __global pf_real* coef) {
  const long w = get_global_id(0);
  if (w >= wells) return;
  imp_well_couple(wp + w * IMP_NWP, cidx, comp, props, E, 2 * pf_rb_m(b), p, dp, pv0, dt, coef);
}

PF_KERNEL void imp_wells_apply(long E, long wells, __global const pf_real* wp, __global const long* cidx,
                               __global const pf_real* comp, __global const pf_real* props, pf_real dt, pf_real sign,
                               __global const pf_real* x, __global pf_real* y, __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  const long w = get_global_id(0);
  if (w >= wells) return;
  imp_well_apply(wp + w * IMP_NWP, cidx, comp, props, E, dt, sign, x, y);
}
