/* The csr family's point functions (core/kernels/csr.hpp), written once for C++, CUDA and OpenCL C,
   so that every backend inverts a diagonal block and judges it singular by the same arithmetic.
   Block (r, c) of entry k is at val[k * b^2 + r * b + c]. */
#ifndef PF_PHYSICS_CSR_H
#define PF_PHYSICS_CSR_H

#include "core/base/common.h"

PF_NAMESPACE_BEGIN

/* the entry of column c in col[lo, hi) (increasing), or -1: a binary search, since coarse rows
   are long */
PF_FN int pf_csr_find(PF_GLOBAL const int* col, int lo, int hi, int c) {
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    const int m = col[mid];
    if (m == c) return mid;
    if (m < c) lo = mid + 1;
    else hi = mid;
  }
  return -1;
}

PF_TEMPLATE PF_FN int pf_csr_finite(pf_real v) { return v == v && v - v == v - v; /* not NaN, not +-inf */ }

/* out[0] = 1 / d; returns 1 when that is not finite (d zero, tiny or not finite itself) */
PF_TEMPLATE PF_FN int pf_csr_inv1(pf_real d, PF_GLOBAL pf_real* out) {
  const pf_real v = (pf_real)1 / d;
  out[0] = v;
  return !pf_csr_finite(v);
}

/* out[0..3] = the inverse of the row-major 2 x 2 block (a b; c d); returns 1 when the determinant
   is 0 or an entry of the inverse is not finite */
PF_TEMPLATE PF_FN int pf_csr_inv2(pf_real a, pf_real b, pf_real c, pf_real d, PF_GLOBAL pf_real* out) {
  const pf_real det = a * d - b * c;
  const pf_real i0 = d / det, i1 = -b / det, i2 = -c / det, i3 = a / det;
  out[0] = i0;
  out[1] = i1;
  out[2] = i2;
  out[3] = i3;
  return det == (pf_real)0 || !(pf_csr_finite(i0) && pf_csr_finite(i1) && pf_csr_finite(i2) && pf_csr_finite(i3));
}

/* |dinv| sum_k |val[k]| over the row's entries [k0, k1): a scalar row of |D^-1 A|'s row sums */
PF_TEMPLATE PF_FN pf_real pf_csr_bound1(pf_real dinv, PF_GLOBAL const pf_real* val, int k0, int k1) {
  pf_real s = 0;
  for (int k = k0; k < k1; ++k) s += fabs(val[k]);
  return fabs(dinv) * s;
}

/* unknown r of a 2 x 2 row: sum over its entries k of |(D^-1 A_k)_r0| + |(D^-1 A_k)_r1|, with
   D^-1 = dv[0..3] */
PF_TEMPLATE PF_FN pf_real pf_csr_bound2(PF_GLOBAL const pf_real* dv, PF_GLOBAL const pf_real* val, int k0, int k1, int r) {
  const pf_real d0 = dv[2 * r], d1 = dv[2 * r + 1];
  pf_real s = 0;
  for (int k = k0; k < k1; ++k) {
    PF_GLOBAL const pf_real* m = val + 4 * (long)k; /* past 2^31 values */
    s += fabs(d0 * m[0] + d1 * m[2]) + fabs(d0 * m[1] + d1 * m[3]);
  }
  return s;
}

PF_NAMESPACE_END

#endif
