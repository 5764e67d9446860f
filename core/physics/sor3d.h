/* The red-black SOR point of the 7-point operator, written once for C++, CUDA and OpenCL C.

   Row of cell C: D p_C - (W p_w + E p_e + S p_s + N p_n + B p_b + T p_t) = R, with the six
   neighbour coefficients >= 0 (0 where there is no neighbour: a boundary or an inactive cell, whose
   value is then multiplied by 0 and must only be finite) and D > 0. The eight coefficients of a
   cell are stored in colour-packed arrays (core/base/rb3.h), array q at q * 2m. */
#ifndef PF_PHYSICS_SOR3D_H
#define PF_PHYSICS_SOR3D_H

#include "core/base/rb3.h"

#define PF_SOR_W 0 /* i - 1 */
#define PF_SOR_E 1 /* i + 1 */
#define PF_SOR_S 2 /* j - 1 */
#define PF_SOR_N 3 /* j + 1 */
#define PF_SOR_B 4 /* k - 1 */
#define PF_SOR_T 5 /* k + 1 */
#define PF_SOR_D 6 /* the diagonal */
#define PF_SOR_R 7 /* the right-hand side */
#define PF_SOR_NCOEF 8

PF_NAMESPACE_BEGIN

/* the residual R - (D p - sum of neighbours) of a row, in a fixed order so every backend computes
   the same value to rounding */
PF_TEMPLATE PF_FN pf_real sor_residual(pf_real w, pf_real e, pf_real s, pf_real n, pf_real b, pf_real t, pf_real d,
                                       pf_real r, pf_real p, pf_real pw, pf_real pe, pf_real ps, pf_real pn, pf_real pb,
                                       pf_real pt) {
  return r - d * p + ((w * pw + e * pe) + (s * ps + n * pn)) + (b * pb + t * pt);
}

/* The update of cell (i, j, k) of colour c at half-index ih: reads its coefficients from coef (rb
   layout of box b), its value and its neighbours' from p (box b, halo >= 1); writes the new value
   and returns |residual| before the update. */
PF_TEMPLATE PF_FN pf_real sor_point(PF_GLOBAL const pf_real* coef, PF_GLOBAL pf_real* p, pf_box3 b, int c, long ih, long j,
                                    long k, pf_real omega) {
  const long i = 2 * ih + pf_rb_shift(c, j, k);
  const long q = pf_rb_at(b, c, ih, j, k), m2 = 2 * pf_rb_m(b);
  const long at = pf_box_at(b, i, j, k);
  const pf_real pc = p[at];
  const pf_real res = sor_residual(coef[q + PF_SOR_W * m2], coef[q + PF_SOR_E * m2], coef[q + PF_SOR_S * m2],
                                   coef[q + PF_SOR_N * m2], coef[q + PF_SOR_B * m2], coef[q + PF_SOR_T * m2],
                                   coef[q + PF_SOR_D * m2], coef[q + PF_SOR_R * m2], pc, p[at - 1], p[at + 1],
                                   p[at - b.sy], p[at + b.sy], p[at - b.sz], p[at + b.sz]);
  p[at] = pc + omega * res / coef[q + PF_SOR_D * m2];
  return fabs(res);
}

/* Line SOR along k (the "zline" design): columns coloured by (i + j) parity; the column of colour c
   at half-index ih of row j (i = 2 ih + ((c + j) & 1), present when i < nx) is solved exactly along
   k (Thomas) with its x and y neighbours' current values, then relaxed: p += omega (x - p).
   The column's matrix does not change during a solve: sor_zline_factor, before the first
   iteration, stores Thomas's factors (c'_k and 1 / den_k) in scratch (arrays 0 and 1 of E values,
   at the cells' indices in p's array); a sweep then runs the right-hand side through them (array 2
   holds d'_k between the forward and the backward pass): no division in the chain.
   A GPU thread walks a whole column, a chain of dependent steps: each chunk of PF_ZCHUNK cells first
   issues all its loads (independent of the chain, so their latencies overlap), then runs the chain
   on registers, instead of waiting on each cell's loads in turn. */
#ifndef PF_ZCHUNK
#define PF_ZCHUNK 8
#endif
#if defined(__CUDACC__) || defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define PF_UNROLL _Pragma("unroll")
#else
#define PF_UNROLL
#endif
/* the factors of the column at (i, j), either colour (sub-diagonal -B, super-diagonal -T) */
PF_TEMPLATE PF_FN void sor_zline_factor(PF_GLOBAL const pf_real* coef, PF_GLOBAL pf_real* scratch, long E, pf_box3 b,
                                        long i, long j) {
  const long m2 = 2 * pf_rb_m(b);
  pf_real cp = (pf_real)0;
  for (long k = 0; k < b.nz; ++k) {
    const long q = pf_rb_of(b, i, j, k), at = pf_box_at(b, i, j, k);
    const pf_real inv = (pf_real)1 / (coef[q + PF_SOR_D * m2] + coef[q + PF_SOR_B * m2] * cp);
    cp = -coef[q + PF_SOR_T * m2] * inv;
    scratch[at] = cp;
    scratch[E + at] = inv;
  }
}

PF_TEMPLATE PF_FN pf_real sor_zline_column(PF_GLOBAL const pf_real* coef, PF_GLOBAL pf_real* p, PF_GLOBAL pf_real* scratch,
                                           long E, pf_box3 b, int c, long ih, long j, pf_real omega) {
  const long i = 2 * ih + ((c + j) & 1);
  const long m2 = 2 * pf_rb_m(b);
  pf_real worst = (pf_real)0, dp = (pf_real)0;
  for (long k0 = 0; k0 < b.nz; k0 += PF_ZCHUNK) {
    pf_real lb[PF_ZCHUNK] = {0}, li[PF_ZCHUNK] = {0}, lr[PF_ZCHUNK] = {0}; /* (every used entry is loaded first) */
    PF_UNROLL
    for (int u = 0; u < PF_ZCHUNK; ++u) {
      const long k = k0 + u;
      if (k < b.nz) {
        const long q = pf_rb_of(b, i, j, k), at = pf_box_at(b, i, j, k);
        const pf_real w = coef[q + PF_SOR_W * m2], e = coef[q + PF_SOR_E * m2], s = coef[q + PF_SOR_S * m2],
                      n = coef[q + PF_SOR_N * m2], bo = coef[q + PF_SOR_B * m2], t = coef[q + PF_SOR_T * m2],
                      d = coef[q + PF_SOR_D * m2], r = coef[q + PF_SOR_R * m2];
        const pf_real pw = p[at - 1], pe = p[at + 1], ps = p[at - b.sy], pn = p[at + b.sy];
        const pf_real res = sor_residual(w, e, s, n, bo, t, d, r, p[at], pw, pe, ps, pn, p[at - b.sz], p[at + b.sz]);
        if (fabs(res) > worst || res != res) worst = fabs(res); /* a NaN, once in, stays */
        lb[u] = bo;
        li[u] = scratch[E + at];
        lr[u] = r + ((w * pw + e * pe) + (s * ps + n * pn));
      }
    }
    PF_UNROLL
    for (int u = 0; u < PF_ZCHUNK; ++u) {
      const long k = k0 + u;
      if (k < b.nz) {
        dp = (lr[u] + lb[u] * dp) * li[u];
        scratch[2 * E + pf_box_at(b, i, j, k)] = dp;
      }
    }
  }
  pf_real x = (pf_real)0;
  for (long k1 = b.nz - 1; k1 >= 0; k1 -= PF_ZCHUNK) {
    pf_real lc[PF_ZCHUNK] = {0}, lq[PF_ZCHUNK] = {0}, lo[PF_ZCHUNK] = {0};
    PF_UNROLL
    for (int u = 0; u < PF_ZCHUNK; ++u) {
      const long k = k1 - u;
      if (k >= 0) {
        const long at = pf_box_at(b, i, j, k);
        lc[u] = scratch[at];
        lq[u] = scratch[2 * E + at];
        lo[u] = p[at];
      }
    }
    PF_UNROLL
    for (int u = 0; u < PF_ZCHUNK; ++u) {
      const long k = k1 - u;
      if (k >= 0) {
        x = lq[u] - lc[u] * x;
        p[pf_box_at(b, i, j, k)] = lo[u] + omega * (x - lo[u]);
      }
    }
  }
  return worst;
}

PF_NAMESPACE_END

#endif
