/* Stam-style stable fluids in 3D (paper 001's solver), written once for C++, CUDA and OpenCL C.

   The state lives on a box of nx x ny x nz interior cells with one ghost layer (core/base/box3.h);
   the formulas below use the classic program's cell numbering I = i + 1 (1..N inside, 0 and N + 1
   the ghost layer) where it matters (advection's clamp), and box indices elsewhere.

   Boundaries ("set_bnd"), quantity b: 0 a scalar (density, pressure), 1/2/3 the velocity component
   normal to the x/y/z walls. A face ghost copies its interior neighbour, negated for the normal
   component (the wall reflects it); an edge ghost is the mean of its two face-ghost neighbours and a
   corner ghost the mean of its three edge-ghost neighbours (Stam's corner rule in 3D). Every ghost
   is thus a fixed multiple of the one interior cell nearest to it, so whoever writes an interior
   cell next to the boundary writes its ghosts too (fl_store): no kernel needs a separate boundary
   pass, and a red-black sweep keeps its ghosts as the classic set_bnd after each sweep would. */
#ifndef PF_PHYSICS_FLUIDS3D_H
#define PF_PHYSICS_FLUIDS3D_H

#include "core/base/box3.h"
#include "core/base/rb3.h"

#define PF_FL_SCALAR 0
#define PF_FL_U 1
#define PF_FL_V 2
#define PF_FL_W 3

PF_NAMESPACE_BEGIN

/* the ghost value for interior value x of quantity b, the ghost lying outside along the axes
   flagged by ox, oy, oz (each 0 or 1, at least one set): the mean of the +-x of its neighbours in
   the ghost layer, computed from small integers so every backend gets the same bits */
PF_TEMPLATE PF_FN pf_real fl_ghost(pf_real x, int b, int ox, int oy, int oz) {
  const int num = (ox ? (b == PF_FL_U ? -1 : 1) : 0) + (oy ? (b == PF_FL_V ? -1 : 1) : 0) + (oz ? (b == PF_FL_W ? -1 : 1) : 0);
  const int den = ox + oy + oz;
  if (num == den) return x;
  if (num == -den) return -x;
  if (num == 0) return (pf_real)0;
  return x * (pf_real)0.33333333333333333333; /* a corner of a velocity component: (1 + 1 - 1) / 3 */
}

/* For an interior cell (i, j, k) of x (box bx, halo >= 1) next to the boundary, with value v:
   writes every ghost cell whose nearest interior cell it is. fl_store writes the cell too. */
PF_TEMPLATE PF_FN void fl_store_ghosts(PF_GLOBAL pf_real* x, pf_box3 bx, int b, long i, long j, long k, pf_real v) {
  const long at = pf_box_at(bx, i, j, k);
  const int lo_x = i == 0, hi_x = i == bx.nx - 1, lo_y = j == 0, hi_y = j == bx.ny - 1, lo_z = k == 0, hi_z = k == bx.nz - 1;
  if (!(lo_x | hi_x | lo_y | hi_y | lo_z | hi_z)) return;
  for (int dz = -1; dz <= 1; ++dz) {
    if ((dz == -1 && !lo_z) || (dz == 1 && !hi_z)) continue;
    for (int dy = -1; dy <= 1; ++dy) {
      if ((dy == -1 && !lo_y) || (dy == 1 && !hi_y)) continue;
      for (int dx = -1; dx <= 1; ++dx) {
        if ((dx == -1 && !lo_x) || (dx == 1 && !hi_x)) continue;
        if (dx == 0 && dy == 0 && dz == 0) continue;
        x[at + dx + dy * bx.sy + dz * bx.sz] = fl_ghost(v, b, dx != 0, dy != 0, dz != 0);
      }
    }
  }
}

/* The per-cell bodies below take the cell's index `at` (pf_box_at(bx, i, j, k)) from their caller:
   a GPU thread steps it from layer to layer in 32-bit arithmetic where the arrays allow, which
   made the gradient 1.8x faster than recomputing it in 64 bits per cell
   (tools/device/experiments/fl_box_variants.cu); (i, j, k) still decide the ghosts. */
PF_TEMPLATE PF_FN void fl_store(PF_GLOBAL pf_real* x, pf_box3 bx, int b, long i, long j, long k, long at, pf_real v) {
  x[at] = v;
  fl_store_ghosts(x, bx, b, i, j, k, v);
}

/* Gauss-Seidel point of lin_solve: x = (x0 + a (sum of the six neighbours)) / c, with inv_c = 1/c,
   the neighbours summed in a fixed order so every backend computes the same value to rounding */
PF_TEMPLATE PF_FN pf_real fl_lin_point(pf_real x0, pf_real w, pf_real e, pf_real s, pf_real n, pf_real bo, pf_real t,
                                       pf_real a, pf_real inv_c) {
  return (x0 + a * (((w + e) + (s + n)) + (bo + t))) * inv_c;
}

/* lin_solve runs on colour-packed copies of x and x0 (core/base/rb3.h: each colour's cells
   row by row, so a colour sweep reads and writes its own values contiguously and the other
   colour's as neighbours, never a cache line it does not use). A neighbour across a wall is the
   ghost the classic set_bnd would have left there, fl_ghost of the cell's own current value, so
   no ghost is stored during the solve and the iterates are those of the natural layout. */

/* the walls a cell touches, as bits for fl_lin_update_at */
#define PF_FL_WALL_W 1
#define PF_FL_WALL_E 2
#define PF_FL_WALL_S 4
#define PF_FL_WALL_N 8
#define PF_FL_WALL_B 16
#define PF_FL_WALL_T 32
#define PF_FL_WALL_ALL 63
/* the walls cell (i, j, k) of an nx x ny x nz interior touches (a side's cell count is an int) */
PF_FN int fl_walls(int i, int j, int k, int nx, int ny, int nz) {
  return (i == 0 ? PF_FL_WALL_W : 0) | (i == nx - 1 ? PF_FL_WALL_E : 0) | (j == 0 ? PF_FL_WALL_S : 0) |
         (j == ny - 1 ? PF_FL_WALL_N : 0) | (k == 0 ? PF_FL_WALL_B : 0) | (k == nz - 1 ? PF_FL_WALL_T : 0);
}

/* The update of one colour-packed cell, given where its values lie: xq its value (updated in
   place), x0q its right-hand side, nq the other colour's value at the same half-index of the same
   row. Its neighbours across i are then nq[odd - 1] and nq[odd] (odd = i & 1), across j nq[-+hx],
   across k nq[-+plane]; walls (PF_FL_WALL_* bits) replace a neighbour by its ghost. Returns
   |new - old|. Callers address the cell as suits them (a GPU thread walks its column by pointer
   steps); the arithmetic is this function's. */
PF_TEMPLATE PF_FN pf_real fl_lin_update_at(PF_GLOBAL pf_real* xq, PF_GLOBAL const pf_real* x0q, PF_GLOBAL const pf_real* nq,
                                           int odd, long hx, long plane, int walls, int b, pf_real a, pf_real inv_c) {
  const pf_real old = *xq;
  const pf_real w = (walls & PF_FL_WALL_W) ? fl_ghost(old, b, 1, 0, 0) : nq[odd - 1];
  const pf_real e = (walls & PF_FL_WALL_E) ? fl_ghost(old, b, 1, 0, 0) : nq[odd];
  const pf_real s = (walls & PF_FL_WALL_S) ? fl_ghost(old, b, 0, 1, 0) : nq[-hx];
  const pf_real n = (walls & PF_FL_WALL_N) ? fl_ghost(old, b, 0, 1, 0) : nq[hx];
  const pf_real bo = (walls & PF_FL_WALL_B) ? fl_ghost(old, b, 0, 0, 1) : nq[-plane];
  const pf_real t = (walls & PF_FL_WALL_T) ? fl_ghost(old, b, 0, 0, 1) : nq[plane];
  const pf_real v = fl_lin_point(*x0q, w, e, s, n, bo, t, a, inv_c);
  *xq = v;
  return fabs(v - old);
}

/* lin_solve's packed arrays are rb3's layout with one more plane of each colour below the box and
   one above (fl_rb_part values a colour, interior layer k at plane k + 1): a box cut from a taller
   grid between processes (docs/mpi.md) receives its neighbours' layers there, and its sweeps
   read them as any other neighbour. A box whose z faces are walls never reads them. */
PF_FN long fl_rb_plane(pf_box3 b) { return pf_rb_hx(b) * b.ny; }
PF_FN long fl_rb_part(pf_box3 b) { return fl_rb_plane(b) * (b.nz + 2); }
/* where cell (i, j, k) (k may be -1 or nz: the extra planes) is in a packed array */
PF_FN long fl_rb_of(pf_box3 b, long i, long j, long k) {
  return pf_rb_colour(i, j, k) * fl_rb_part(b) + ((k + 1) * b.ny + j) * pf_rb_hx(b) + (i >> 1);
}

/* The update of the colour-c cell at half-index ih of row (j, k) of xp (x0p the same layout);
   wall_mask: the box's faces that are walls (PF_FL_WALL_* bits; a face shared with another
   process's box is not one). */
PF_TEMPLATE PF_FN pf_real fl_lin_update_packed(PF_GLOBAL pf_real* xp, PF_GLOBAL const pf_real* x0p, pf_box3 bx, int b, int c,
                                               long ih, long j, long k, pf_real a, pf_real inv_c, int wall_mask) {
  const long hx = pf_rb_hx(bx), row = ((k + 1) * bx.ny + j) * hx;
  const long i = 2 * ih + pf_rb_shift(c, j, k);
  const long q = c * fl_rb_part(bx) + row + ih;
  const long o = (1 - c) * fl_rb_part(bx) + row + (i >> 1); /* the other colour's value at the same half-index */
  const int walls = fl_walls((int)i, (int)j, (int)k, (int)bx.nx, (int)bx.ny, (int)bx.nz) & wall_mask;
  return fl_lin_update_at(xp + q, x0p + q, xp + o, (int)(i & 1), hx, fl_rb_plane(bx), walls, b, a, inv_c);
}

/* pack: the interior cell (i, j, k) of x into its colour-packed place in xp */
PF_TEMPLATE PF_FN void fl_pack_cell(PF_GLOBAL const pf_real* x, PF_GLOBAL pf_real* xp, pf_box3 bx, long i, long j, long k,
                                    long at) {
  xp[fl_rb_of(bx, i, j, k)] = x[at];
}

/* unpack: cell (i, j, k) of x from xp, and its ghosts (quantity b) */
PF_TEMPLATE PF_FN void fl_unpack_cell(PF_GLOBAL const pf_real* xp, PF_GLOBAL pf_real* x, pf_box3 bx, int b, long i, long j,
                                      long k, long at) {
  fl_store(x, bx, b, i, j, k, at, xp[fl_rb_of(bx, i, j, k)]);
}

/* Semi-Lagrangian advection of cell (i, j, k): trace back by dt0 (dt times the grid's cells along
   each axis) times the cell's velocity (uu, vv, ww), clamp to [0.5, n + 0.5] in the classic
   numbering (in z to [z_lo, z_hi]: a box cut from a taller grid clamps to the grid's walls, and to
   the layers of its halo) and interpolate d0 trilinearly (its ghost layers included). */
PF_TEMPLATE PF_FN pf_real fl_advect_point(PF_GLOBAL const pf_real* d0, pf_box3 bx, long i, long j, long k, pf_real dtx,
                                          pf_real dty, pf_real dtz, pf_real uu, pf_real vv, pf_real ww, pf_real z_lo,
                                          pf_real z_hi) {
  const pf_real lo = (pf_real)0.5; /* ("half" is a type in OpenCL C) */
  pf_real x = (pf_real)(i + 1) - dtx * uu, y = (pf_real)(j + 1) - dty * vv, z = (pf_real)(k + 1) - dtz * ww;
  x = fmin(fmax(x, lo), (pf_real)bx.nx + lo);
  y = fmin(fmax(y, lo), (pf_real)bx.ny + lo);
  z = fmin(fmax(z, z_lo), z_hi);
  /* classic numbering: 0 .. n (z below 0 in a halo: floor, not truncation) */
  const long i0 = (long)x, j0 = (long)y, k0 = (long)floor(z);
  const pf_real s1 = x - (pf_real)i0, s0 = (pf_real)1 - s1;
  const pf_real t1 = y - (pf_real)j0, t0 = (pf_real)1 - t1;
  const pf_real u1 = z - (pf_real)k0, u0 = (pf_real)1 - u1;
  const long p = pf_box_at(bx, i0 - 1, j0 - 1, k0 - 1); /* (i0, j0, k0) in the box */
  const long sy = bx.sy, sz = bx.sz;
  return s0 * (t0 * (u0 * d0[p] + u1 * d0[p + sz]) + t1 * (u0 * d0[p + sy] + u1 * d0[p + sy + sz])) +
         s1 * (t0 * (u0 * d0[p + 1] + u1 * d0[p + 1 + sz]) + t1 * (u0 * d0[p + 1 + sy] + u1 * d0[p + 1 + sy + sz]));
}

/* project's right-hand side at the cell at index at: -h/2 times the central differences of u, v, w,
   with h the cell size (1 / the largest side, as the classic program) */
PF_TEMPLATE PF_FN pf_real fl_div_point(PF_GLOBAL const pf_real* u, PF_GLOBAL const pf_real* v, PF_GLOBAL const pf_real* w,
                                       pf_box3 bx, long at, pf_real h) {
  return (pf_real)(-0.5) * h * (((u[at + 1] - u[at - 1]) + (v[at + bx.sy] - v[at - bx.sy])) + (w[at + bx.sz] - w[at - bx.sz]));
}

/* ---- the per-cell bodies of the family's kernels (core/kernels/fluids3d.hpp) ---------------- */

/* add_source: x += value at (i, j, k) */
PF_TEMPLATE PF_FN void fl_source_cell(PF_GLOBAL pf_real* x, pf_box3 bx, int b, long i, long j, long k, pf_real value) {
  const long at = pf_box_at(bx, i, j, k);
  fl_store(x, bx, b, i, j, k, at, x[at] + value);
}

/* advect: d at (i, j, k) from d0 along the cell's velocity */
PF_TEMPLATE PF_FN void fl_advect_cell(PF_GLOBAL pf_real* d, PF_GLOBAL const pf_real* d0, PF_GLOBAL const pf_real* u,
                                      PF_GLOBAL const pf_real* v, PF_GLOBAL const pf_real* w, pf_box3 bx, int b, long i,
                                      long j, long k, long at, pf_real dtx, pf_real dty, pf_real dtz, pf_real z_lo,
                                      pf_real z_hi) {
  fl_store(d, bx, b, i, j, k, at, fl_advect_point(d0, bx, i, j, k, dtx, dty, dtz, u[at], v[at], w[at], z_lo, z_hi));
}

/* divergence: div at (i, j, k); with has_p, p = 0 there and at its ghosts */
PF_TEMPLATE PF_FN void fl_div_cell(PF_GLOBAL const pf_real* u, PF_GLOBAL const pf_real* v, PF_GLOBAL const pf_real* w,
                                   PF_GLOBAL pf_real* div, PF_GLOBAL pf_real* p, int has_p, pf_box3 bx, long i, long j,
                                   long k, long at, pf_real h) {
  div[at] = fl_div_point(u, v, w, bx, at, h);
  if (has_p) fl_store(p, bx, PF_FL_SCALAR, i, j, k, at, (pf_real)0);
}

/* gradient: (u, v, w) -= scale * the central differences of p at (i, j, k) (every load before
   the first store, so that a GPU thread has them all in flight at once) */
PF_TEMPLATE PF_FN void fl_grad_cell(PF_GLOBAL pf_real* u, PF_GLOBAL pf_real* v, PF_GLOBAL pf_real* w,
                                    PF_GLOBAL const pf_real* p, pf_box3 bx, long i, long j, long k, long at, pf_real scale) {
  PF_GLOBAL const pf_real* pq = p + at;
  /* 32-bit pitches: check_field (core/kernels/fluids3d.cpp) refuses wider ones */
  const int sy = (int)bx.sy, sz = (int)bx.sz;
  const pf_real nu = u[at] - scale * (pq[1] - pq[-1]);
  const pf_real nv = v[at] - scale * (pq[sy] - pq[-sy]);
  const pf_real nw = w[at] - scale * (pq[sz] - pq[-sz]);
  fl_store(u, bx, PF_FL_U, i, j, k, at, nu);
  fl_store(v, bx, PF_FL_V, i, j, k, at, nv);
  fl_store(w, bx, PF_FL_W, i, j, k, at, nw);
}

/* The interior cells next to the boundary, numbered 0 .. fl_boundary_cells(bx) - 1 face by face
   (cells on an edge of the interior appear on several faces: they rewrite the same values). */
PF_FN long fl_boundary_cells(pf_box3 bx) { return 2 * (bx.ny * bx.nz + bx.nx * bx.nz + bx.nx * bx.ny); }

/* cell number n of fl_boundary_cells: writes its (i, j, k) */
PF_FN void fl_boundary_at(pf_box3 bx, long n, long* i, long* j, long* k) {
  const long fx = bx.ny * bx.nz, fy = bx.nx * bx.nz;
  if (n < 2 * fx) {
    *i = n < fx ? 0 : bx.nx - 1;
    n = n % fx;
    *j = n % bx.ny;
    *k = n / bx.ny;
  } else if (n < 2 * fx + 2 * fy) {
    n -= 2 * fx;
    *j = n < fy ? 0 : bx.ny - 1;
    n = n % fy;
    *i = n % bx.nx;
    *k = n / bx.nx;
  } else {
    n -= 2 * fx + 2 * fy;
    const long fz = bx.nx * bx.ny;
    *k = n < fz ? 0 : bx.nz - 1;
    n = n % fz;
    *i = n % bx.nx;
    *j = n / bx.nx;
  }
}

/* boundary: rewrites the ghosts of boundary cell number n from its value */
PF_TEMPLATE PF_FN void fl_boundary_cell(PF_GLOBAL pf_real* x, pf_box3 bx, int b, long n) {
  long i = 0, j = 0, k = 0;
  fl_boundary_at(bx, n, &i, &j, &k);
  fl_store_ghosts(x, bx, b, i, j, k, x[pf_box_at(bx, i, j, k)]);
}

PF_NAMESPACE_END

#endif
