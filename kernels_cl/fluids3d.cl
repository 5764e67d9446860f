/* fluids3d: paper 001's kernels around core/physics/fluids3d.h (twin: kernels_cu/fluids3d.cu;
   semantics: backends/host/fluids3d.cpp). One program source, built per use: with PF_RB_BX...
   (a sweep's shape) it holds the lin_solve sweep, with PF_BOX_BX... (a box launch shape) the box
   kernels; the boundary kernel is in every build. */
#include "core/physics/fluids3d.h"
#include "kernels_cl/block_reduce.cl"
#include "kernels_cl/control_device.cl"
#include "kernels_cl/box3_device.cl"
#include "kernels_cl/rb_sweep.cl"

#ifdef PF_RB_BX
/* one colour sweep of lin_solve on the colour-packed x and x0. ctrl + ctrl_off is the solve's control block (the
   described parameters end there, FluidsSolveArgs::sweep_args); kchunk: the layers of a block; plan: s0 the slot to
   decide from (red sweeps after a check) or -1, s1 the check's slot, s2 the slot to clear. */
PF_KERNEL void fl_sweep(__global pf_real* x, __global const pf_real* x0, pf_box3 b, pf_real a, pf_real inv_c, pf_real tol,
                        int q, int walls, __global ulong* ctrl_base, long ctrl_off, long kchunk, int colour, long it,
                        int4 plan, long k_first, long k_count) {
  __local pf_key s[PF_BLOCK];
  __global ulong* ctrl = ctrl_base + ctrl_off;
  const int active = !pf_cv_launch_stopped(ctrl, it, plan.s0, tol);
  pf_key m = 0;
  /* part: one colour's values, its layers and an extra plane below and above ("half" is a type in
     OpenCL C) */
  const PF_RB_INDEX hx = (PF_RB_INDEX)pf_rb_hx(b), plane = (PF_RB_INDEX)b.ny * hx, part = plane * (PF_RB_INDEX)(b.nz + 2);
  /* the walk covers layers [k_first, k_first + k_count): its rows start there, and its colour is
     the one whose parity, counted from k_first, is the colour's (twin: fl_sweep_kernel) */
  const PF_RB_INDEX first = (PF_RB_INDEX)k_first;
  __global pf_real* own = x + colour * part + plane * (1 + first);
  __global const pf_real* own0 = x0 + colour * part + plane * (1 + first);
  __global const pf_real* other = x + (1 - colour) * part + plane * (1 + first);
  pf_box3 walk = b;
  walk.nz = k_count;
  const int walk_colour = (colour + (int)(k_first & 1)) & 1;
  PF_RB_ROWS_BEGIN(walk, walk_colour, kchunk, active)
  const int at_walls = fl_walls((int)i, (int)j, (int)(k + first), (int)b.nx, (int)b.ny, (int)b.nz) & walls;
  m = max(m, pf_bits(fl_lin_update_at(own + row + ih, own0 + row + ih, other + row + (i >> 1), (int)(i & 1), hx, plane, at_walls,
                                      q, a, inv_c)));
  PF_RB_ROWS_END
  m = pf_block_reduce_k(PF_V_FAST, PF_OP_MAX, (pf_key)0, m, s);
  if (active && pf_is_leader()) pf_cv_publish(m, ctrl, plan.s1, plan.s2, ctrl, 0);
}
#endif

#ifdef PF_BOX_BX
PF_BOX_KERNEL void fl_source(__global pf_real* x, pf_box3 bx, int b, long i0, long j0, long k0, long ni, long nj, long nk,
                             pf_real value) {
  PF_BOX_BEGIN(ni, nj, nk)
  fl_source_cell(x, bx, b, i0 + i, j0 + j, k0 + k, value);
  PF_BOX_END
}

/* the kernels over all cells (box_launch_cells); advect and unpack keep PF_BOX_BEGIN, as their
   CUDA twins (kernels_cu/box3_device.cuh says why) */
PF_BOX_KERNEL void fl_pack(__global const pf_real* x, __global pf_real* xp, pf_box3 bx) {
  PF_BOX_CELLS_BEGIN(bx)
  fl_pack_cell(x, xp, bx, i, j, k, at);
  PF_BOX_END
}

PF_BOX_KERNEL void fl_unpack(__global const pf_real* xp, __global pf_real* x, pf_box3 bx, int b) {
  PF_BOX_BEGIN(bx.nx, bx.ny, bx.nz)
  fl_unpack_cell(xp, x, bx, b, i, j, k, pf_box_at(bx, i, j, k));
  PF_BOX_END
}

PF_BOX_KERNEL void fl_advect(__global pf_real* d, __global const pf_real* d0, __global const pf_real* u,
                             __global const pf_real* v, __global const pf_real* w, pf_box3 bx, int b, pf_real dtx,
                             pf_real dty, pf_real dtz, pf_real z_lo, pf_real z_hi) {
  PF_BOX_BEGIN(bx.nx, bx.ny, bx.nz)
  fl_advect_cell(d, d0, u, v, w, bx, b, i, j, k, pf_box_at(bx, i, j, k), dtx, dty, dtz, z_lo, z_hi);
  PF_BOX_END
}

/* p may be null: then only div is written */
PF_BOX_KERNEL void fl_divergence(__global const pf_real* u, __global const pf_real* v, __global const pf_real* w,
                                 __global pf_real* div, __global pf_real* p, pf_box3 bx, pf_real h) {
  const int has_p = p != 0;
  PF_BOX_CELLS_BEGIN(bx)
  fl_div_cell(u, v, w, div, p, has_p, bx, i, j, k, at, h);
  PF_BOX_END
}

PF_BOX_KERNEL void fl_gradient(__global pf_real* u, __global pf_real* v, __global pf_real* w, __global const pf_real* p,
                               pf_box3 bx, pf_real scale) {
  PF_BOX_CELLS_BEGIN(bx)
  fl_grad_cell(u, v, w, p, bx, i, j, k, at, scale);
  PF_BOX_END
}
#endif

PF_KERNEL void fl_boundary(__global pf_real* x, pf_box3 bx, int b) {
  const long n = fl_boundary_cells(bx);
  for (long q = get_global_id(0); q < n; q += get_global_size(0)) fl_boundary_cell(x, bx, b, q);
}
