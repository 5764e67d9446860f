/* sor3d: red-black SOR sweeps with the fused convergence check (twin: kernels_cu/sor3d.cu;
   semantics: backends/host/sor3d.cpp). Work-groups are 1D, PF_BLOCK = PF_SOR_BX x PF_SOR_BY x
   PF_SOR_BZ work-items mapped onto the box by hand, so a check is one group reduction.

   `plan` (from fused_plan, so no work-item divides 64-bit integers): s0 the slot to decide from
   (red sweeps after a check) or -1; s1 the check's slot; s2 the slot to clear. The check kernels
   (sor_*_check) keep their barriers on the kernel's top level or in loops whose bounds are the same
   for the whole group, and never return early (PoCL 3.1, see jacobi1d.cl): a stopped launch runs
   its loops zero times instead. */
#include "core/physics/sor3d.h"
#include "kernels_cl/block_reduce.cl"
#include "kernels_cl/control_device.cl"
#include "kernels_cl/rb_sweep.cl"

/* the shared colour-sweep skeleton (kernels_cl/rb_sweep.cl) over this program's shape */
#define PF_RB_BX PF_SOR_BX
#define PF_RB_BY PF_SOR_BY
#define PF_RB_BZ PF_SOR_BZ

/* A sweep's parameters: the described ones (Sor3DArgs::sweep_args; zline kernels add scratch and E,
   zline_args), then the launch's own (backends/opencl/sor3d.cpp): the layers of a block, the
   colour, the iteration and its plan. */
#define PF_SOR_ARGS \
  __global const pf_real *coef, __global pf_real *p, pf_box3 b, pf_real omega, pf_real threshold, __global ulong *ctrl
#define PF_SOR_LAUNCH long kchunk, int colour, long it, int4 plan

/* Simple: one work-item per cell of the colour over (half-row index, row, layer); returns the
   work-item's max |residual| key when `check` (a literal). */
pf_key pf_sor_simple(const int check, const int active, __global const pf_real* coef, __global pf_real* p, pf_box3 b,
                     pf_real omega, int colour, long kchunk) {
  pf_key m = 0;
  PF_RB_SWEEP_BEGIN(b, colour, kchunk, active)
  const pf_real r = sor_point(coef, p, b, colour, ih, j, k, omega);
  if (check) m = max(m, pf_bits(r));
  PF_RB_SWEEP_END
  return m;
}

PF_KERNEL void sor_simple_step(PF_SOR_ARGS, PF_SOR_LAUNCH) {
  const int active = !pf_cv_launch_stopped(ctrl, it, plan.s0, threshold);
  pf_sor_simple(0, active, coef, p, b, omega, colour, kchunk);
}

PF_KERNEL void sor_simple_check(PF_SOR_ARGS, PF_SOR_LAUNCH) {
  __local pf_key s[PF_BLOCK];
  const int active = !pf_cv_launch_stopped(ctrl, it, plan.s0, threshold);
  pf_key key = pf_sor_simple(1, active, coef, p, b, omega, colour, kchunk);
  key = pf_block_reduce_k(PF_V_FAST, PF_OP_MAX, (pf_key)0, key, s);
  if (active && pf_is_leader()) pf_cv_publish(key, ctrl, plan.s1, plan.s2, ctrl, 0);
}

/* Zline: one work-item per column of the colour over (half-row index, row); scratch holds the
   Thomas factors (two arrays of E values). */
pf_key pf_sor_zline(const int check, const int active, __global const pf_real* coef, __global pf_real* p,
                    __global pf_real* scratch, long E, pf_box3 b, pf_real omega, int colour) {
  /* one work-item per column of the colour, the columns numbered along the rows */
  const long hx = pf_rb_hx(b), columns = hx * b.ny;
  pf_key m = 0;
  if (!active) return m;
  for (long col = get_global_id(0); col < columns; col += get_global_size(0)) {
    const long ih = col % hx, j = col / hx;
    if (2 * ih + ((colour + j) & 1) < b.nx) {
      const pf_real r = sor_zline_column(coef, p, scratch, E, b, colour, ih, j, omega);
      if (check) m = max(m, pf_bits(r));
    }
  }
  return m;
}

/* Zline, 32 work-items per column (few columns; twin of cuda's sor_zline_warp_kernel): they load
   32 layers at once into local memory, then each runs the column's Thomas chain on them (the same
   arithmetic as sor_zline_column, in its order) and keeps its own layer's result. A group holds
   PF_BLOCK / 32 columns; its loops have the same trip counts for all its work-items (barriers). */
#define PF_ZW (PF_BLOCK / 32)
pf_key pf_sor_zline_wide(const int check, const int active, __global const pf_real* coef, __global pf_real* p,
                         __global pf_real* sc, long E, pf_box3 b, pf_real omega, int colour, __local pf_real* lm) {
  const int lid = get_local_id(0), lane = lid & 31, w = lid >> 5;
  const long hx = pf_rb_hx(b), columns = hx * b.ny, m2 = 2 * pf_rb_m(b);
  __local pf_real* l0 = lm + w * 96;
  __local pf_real* l1 = l0 + 32;
  __local pf_real* l2 = l0 + 64;
  pf_key m = 0;
  const long rounds = active ? (columns + (long)get_num_groups(0) * PF_ZW - 1) / ((long)get_num_groups(0) * PF_ZW) : 0;
  for (long rd = 0; rd < rounds; ++rd) {
    const long col = (rd * (long)get_num_groups(0) + (long)get_group_id(0)) * PF_ZW + w;
    const long ih = col % hx, j = col / hx, i = 2 * ih + ((colour + j) & 1);
    const int mine_col = col < columns && i < b.nx;
    pf_real dp = (pf_real)0;
    for (long k0 = 0; k0 < b.nz; k0 += 32) {
      const long k = k0 + lane;
      const int n = b.nz - k0 < 32 ? (int)(b.nz - k0) : 32;
      long at = 0;
      pf_real lb = (pf_real)0, li = (pf_real)0, lr = (pf_real)0;
      if (mine_col && k < b.nz) {
        const long q = pf_rb_of(b, i, j, k);
        at = pf_box_at(b, i, j, k);
        const pf_real cw = coef[q + PF_SOR_W * m2], ce = coef[q + PF_SOR_E * m2], cs = coef[q + PF_SOR_S * m2],
                      cn = coef[q + PF_SOR_N * m2], cb = coef[q + PF_SOR_B * m2], ct = coef[q + PF_SOR_T * m2],
                      cd = coef[q + PF_SOR_D * m2], cr = coef[q + PF_SOR_R * m2];
        const pf_real pw = p[at - 1], pe = p[at + 1], ps = p[at - b.sy], pn = p[at + b.sy];
        const pf_real res = sor_residual(cw, ce, cs, cn, cb, ct, cd, cr, p[at], pw, pe, ps, pn, p[at - b.sz], p[at + b.sz]);
        if (check) m = max(m, pf_bits(fabs(res)));
        lb = cb;
        li = sc[E + at];
        lr = cr + ((cw * pw + ce * pe) + (cs * ps + cn * pn));
      }
      l0[lane] = lb;
      l1[lane] = li;
      l2[lane] = lr;
      barrier(CLK_LOCAL_MEM_FENCE);
      pf_real mine = (pf_real)0;
      for (int u = 0; u < n; ++u) {
        dp = (l2[u] + l0[u] * dp) * l1[u];
        if (u == lane) mine = dp;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      if (mine_col && k < b.nz) sc[2 * E + at] = mine;
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
    pf_real x = (pf_real)0;
    for (long k1 = b.nz - 1; k1 >= 0; k1 -= 32) {
      const long k = k1 - lane;
      const int n = k1 + 1 < 32 ? (int)(k1 + 1) : 32;
      long at = 0;
      pf_real lc = (pf_real)0, lq = (pf_real)0, lo = (pf_real)0;
      if (mine_col && k >= 0) {
        at = pf_box_at(b, i, j, k);
        lc = sc[at];
        lq = sc[2 * E + at];
        lo = p[at];
      }
      l0[lane] = lc;
      l1[lane] = lq;
      barrier(CLK_LOCAL_MEM_FENCE);
      pf_real mine = (pf_real)0;
      for (int u = 0; u < n; ++u) {
        x = l1[u] - l0[u] * x;
        if (u == lane) mine = x;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      if (mine_col && k >= 0) p[at] = lo + omega * (mine - lo);
    }
  }
  return m;
}

PF_KERNEL void sor_zline_wide_step(PF_SOR_ARGS, __global pf_real* scratch, long E, PF_SOR_LAUNCH) {
  __local pf_real lm[PF_ZW * 96];
  const int active = !pf_cv_launch_stopped(ctrl, it, plan.s0, threshold);
  pf_sor_zline_wide(0, active, coef, p, scratch, E, b, omega, colour, lm);
}

PF_KERNEL void sor_zline_wide_check(PF_SOR_ARGS, __global pf_real* scratch, long E, PF_SOR_LAUNCH) {
  __local pf_real lm[PF_ZW * 96];
  __local pf_key s[PF_BLOCK];
  const int active = !pf_cv_launch_stopped(ctrl, it, plan.s0, threshold);
  pf_key key = pf_sor_zline_wide(1, active, coef, p, scratch, E, b, omega, colour, lm);
  key = pf_block_reduce_k(PF_V_FAST, PF_OP_MAX, (pf_key)0, key, s);
  if (active && pf_is_leader()) pf_cv_publish(key, ctrl, plan.s1, plan.s2, ctrl, 0);
}

/* the factors of every column, both colours (one work-item per column (i, j)) */
PF_KERNEL void sor_zline_factor_all(__global const pf_real* coef, __global pf_real* scratch, long E, pf_box3 b) {
  const long col = get_global_id(0);
  if (col < b.nx * b.ny) sor_zline_factor(coef, scratch, E, b, col % b.nx, col / b.nx);
}

PF_KERNEL void sor_zline_step(PF_SOR_ARGS, __global pf_real* scratch, long E, PF_SOR_LAUNCH) {
  const int active = !pf_cv_launch_stopped(ctrl, it, plan.s0, threshold);
  pf_sor_zline(0, active, coef, p, scratch, E, b, omega, colour);
}

PF_KERNEL void sor_zline_check(PF_SOR_ARGS, __global pf_real* scratch, long E, PF_SOR_LAUNCH) {
  __local pf_key s[PF_BLOCK];
  const int active = !pf_cv_launch_stopped(ctrl, it, plan.s0, threshold);
  pf_key key = pf_sor_zline(1, active, coef, p, scratch, E, b, omega, colour);
  key = pf_block_reduce_k(PF_V_FAST, PF_OP_MAX, (pf_key)0, key, s);
  if (active && pf_is_leader()) pf_cv_publish(key, ctrl, plan.s1, plan.s2, ctrl, 0);
}

#if defined(PF_SOR_PITCH)
/* Tiled (paper 003): a group of PF_SOR_BX x PF_SOR_BY work-items owns a tile of PF_SOR_BX half-rows
   (2 PF_SOR_BX cells in i) by PF_SOR_BY rows and marches through its chunk of layers with the planes
   k - 1, k, k + 1 of p over the tile and its rim in local memory, each plane as two parity
   sub-planes (even and odd i) of padded rows (PF_SOR_PITCH values): a work-item's cell and its
   i +- 1 neighbours are consecutive across a row's work-items. */
#define PF_SOR_SUB ((PF_SOR_BY + 2) * PF_SOR_PITCH)
#define PF_SOR_PLANE (2 * PF_SOR_SUB)
#define PF_SOR_SLOT(par, r, h) ((par) * PF_SOR_SUB + (r) * PF_SOR_PITCH + (h) + 1)

pf_real pf_sor_get(__global const pf_real* p, pf_box3 b, long i, long j, long k) {
  return (i >= -1 && i <= b.nx && j >= -1 && j <= b.ny && k >= -1 && k <= b.nz) ? p[pf_box_at(b, i, j, k)] : (pf_real)0;
}

void pf_sor_load(__local pf_real* sm, __global const pf_real* p, pf_box3 b, long i0, long j0, long k, int tx, int ty) {
  __local pf_real* s = sm + ((k + 3) % 3) * PF_SOR_PLANE;
  const long i = i0 + 2 * tx, j = j0 + ty;
  s[PF_SOR_SLOT(0, ty + 1, tx)] = pf_sor_get(p, b, i, j, k);
  s[PF_SOR_SLOT(1, ty + 1, tx)] = pf_sor_get(p, b, i + 1, j, k);
  if (tx == 0) s[PF_SOR_SLOT(1, ty + 1, -1)] = pf_sor_get(p, b, i0 - 1, j, k);
  if (tx == PF_SOR_BX - 1) s[PF_SOR_SLOT(0, ty + 1, PF_SOR_BX)] = pf_sor_get(p, b, i0 + 2 * PF_SOR_BX, j, k);
  if (ty == 0) {
    s[PF_SOR_SLOT(0, 0, tx)] = pf_sor_get(p, b, i, j0 - 1, k);
    s[PF_SOR_SLOT(1, 0, tx)] = pf_sor_get(p, b, i + 1, j0 - 1, k);
  }
  if (ty == PF_SOR_BY - 1) {
    s[PF_SOR_SLOT(0, PF_SOR_BY + 1, tx)] = pf_sor_get(p, b, i, j0 + PF_SOR_BY, k);
    s[PF_SOR_SLOT(1, PF_SOR_BY + 1, tx)] = pf_sor_get(p, b, i + 1, j0 + PF_SOR_BY, k);
  }
}

pf_key pf_sor_tiled(const int check, const int active, __local pf_real* sm, __global const pf_real* coef,
                    __global pf_real* p, pf_box3 b, pf_real omega, int c, long kchunk) {
  const int lid = get_local_id(0), tx = lid % PF_SOR_BX, ty = lid / PF_SOR_BX;
  const long ih = (long)get_group_id(0) * PF_SOR_BX + tx;
  const long i0 = 2L * get_group_id(0) * PF_SOR_BX;
  const long k0 = (long)get_group_id(2) * kchunk, k1 = active ? min(b.nz, k0 + kchunk) : k0;
  const long jstart = active ? (long)get_group_id(1) * PF_SOR_BY : b.ny;
  const long m2 = 2 * pf_rb_m(b);
  pf_key m = 0;
  for (long j0 = jstart; j0 < b.ny; j0 += (long)get_num_groups(1) * PF_SOR_BY) {
    const long j = j0 + ty;
    barrier(CLK_LOCAL_MEM_FENCE); /* the previous tile row's last reads are done */
    pf_sor_load(sm, p, b, i0, j0, k0 - 1, tx, ty);
    pf_sor_load(sm, p, b, i0, j0, k0, tx, ty);
    for (long k = k0; k < k1; ++k) {
      pf_sor_load(sm, p, b, i0, j0, k + 1, tx, ty);
      barrier(CLK_LOCAL_MEM_FENCE);
      if (ih < pf_rb_hx(b) && j < b.ny && pf_rb_present(b, c, ih, j, k)) {
        const int s = (int)pf_rb_shift(c, j, k); /* the cell's parity (i0 is even) */
        __local const pf_real* pc = sm + ((k + 3) % 3) * PF_SOR_PLANE;
        __local const pf_real* pb = sm + ((k + 2) % 3) * PF_SOR_PLANE;
        __local const pf_real* pt = sm + ((k + 4) % 3) * PF_SOR_PLANE;
        const long q = pf_rb_at(b, c, ih, j, k);
        const pf_real own = pc[PF_SOR_SLOT(s, ty + 1, tx)];
        const pf_real d = coef[q + PF_SOR_D * m2];
        const pf_real res = sor_residual(coef[q + PF_SOR_W * m2], coef[q + PF_SOR_E * m2], coef[q + PF_SOR_S * m2],
                                         coef[q + PF_SOR_N * m2], coef[q + PF_SOR_B * m2], coef[q + PF_SOR_T * m2], d,
                                         coef[q + PF_SOR_R * m2], own, pc[PF_SOR_SLOT(1 - s, ty + 1, tx + s - 1)],
                                         pc[PF_SOR_SLOT(1 - s, ty + 1, tx + s)], pc[PF_SOR_SLOT(s, ty, tx)],
                                         pc[PF_SOR_SLOT(s, ty + 2, tx)], pb[PF_SOR_SLOT(s, ty + 1, tx)],
                                         pt[PF_SOR_SLOT(s, ty + 1, tx)]);
        p[pf_box_at(b, 2 * ih + s, j, k)] = own + omega * res / d;
        if (check) m = max(m, pf_bits(fabs(res)));
      }
      barrier(CLK_LOCAL_MEM_FENCE); /* the plane below is overwritten next */
    }
  }
  return m;
}

PF_KERNEL void sor_tiled_step(PF_SOR_ARGS, PF_SOR_LAUNCH) {
  __local pf_real sm[3 * PF_SOR_PLANE];
  const int active = !pf_cv_launch_stopped(ctrl, it, plan.s0, threshold);
  pf_sor_tiled(0, active, sm, coef, p, b, omega, colour, kchunk);
}

PF_KERNEL void sor_tiled_check(PF_SOR_ARGS, PF_SOR_LAUNCH) {
  __local pf_real sm[3 * PF_SOR_PLANE];
  __local pf_key s[PF_BLOCK];
  const int active = !pf_cv_launch_stopped(ctrl, it, plan.s0, threshold);
  pf_key key = pf_sor_tiled(1, active, sm, coef, p, b, omega, colour, kchunk);
  key = pf_block_reduce_k(PF_V_FAST, PF_OP_MAX, (pf_key)0, key, s);
  if (active && pf_is_leader()) pf_cv_publish(key, ctrl, plan.s1, plan.s2, ctrl, 0);
}
#endif
