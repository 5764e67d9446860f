/* The 7-point Laplacian, written once for C++, CUDA and OpenCL C: the smallest 3D stencil family,
   the model of the red-black sweeps of impes3d and fluids3d. The point function takes values, not
   arrays, so a tiled kernel can feed it from shared or local memory. */
#ifndef PF_PHYSICS_LAPLACE3D_H
#define PF_PHYSICS_LAPLACE3D_H

#include "core/base/box3.h"

PF_NAMESPACE_BEGIN

/* cx (w - 2c + e) + cy (s - 2c + n) + cz (b - 2c + t): c the cell, w/e its x, s/n its y and b/t its
   z neighbours, cx = 1/hx^2 and so on for the discrete Laplacian */
PF_TEMPLATE PF_FN pf_real lap7_point(pf_real c, pf_real w, pf_real e, pf_real s, pf_real n, pf_real b, pf_real t,
                                     pf_real cx, pf_real cy, pf_real cz) {
  const pf_real c2 = c + c;
  return cx * (w - c2 + e) + cy * (s - c2 + n) + cz * (b - c2 + t);
}

/* the Laplacian of cell (i, j, k) of `in` (its box needs a halo of at least 1) */
PF_TEMPLATE PF_FN pf_real lap7_at(PF_GLOBAL const pf_real* in, pf_box3 bi, long i, long j, long k, pf_real cx, pf_real cy,
                                  pf_real cz) {
  const long p = pf_box_at(bi, i, j, k);
  return lap7_point(in[p], in[p - 1], in[p + 1], in[p - bi.sy], in[p + bi.sy], in[p - bi.sz], in[p + bi.sz], cx, cy, cz);
}

PF_NAMESPACE_END

#endif
