/* The stencil7 family's math (core/linalg/stencil7.hpp's layout), written once for C++, CUDA and
   OpenCL C: the neighbour offsets of the 7 planes, and the inverse of a cell's diagonal (block)
   with the classification of one that has none. */
#ifndef PF_PHYSICS_STENCIL7_H
#define PF_PHYSICS_STENCIL7_H

#include "core/base/common.h"

/* A singular diagonal is reported as one word: the first active row's code
   (L * 2 + unknown) * 2 + kind, L the cell's index in the box's arrays; PF_S7_NONE when every
   active diagonal (block) has an inverse. */
#define PF_S7_SINGULAR 0  /* kind: zero (a block: no inverse) */
#define PF_S7_NONFINITE 1 /* kind: NaN or infinite entries */
#define PF_S7_NONE 0xffffffffffffffffUL

PF_NAMESPACE_BEGIN
#if !defined(__OPENCL_VERSION__) && !defined(__OPENCL_C_VERSION__)
using std::fma;
#endif

/* the index offset of plane q's neighbour (q = 1 .. 6: -x, +x, -y, +y, -z, +z) */
PF_FN long pf_s7_offset(int q, long sy, long sz) {
  const long d = (q == 1 || q == 2) ? 1 : (q == 3 || q == 4) ? sy : sz;
  return (q & 1) ? -d : d;
}

PF_TEMPLATE PF_FN int pf_s7_finite(pf_real v) { return v == v && v - v == v - v; }

/* -1 when d has an inverse, else unknown * 2 + kind (unknown 0) */
PF_TEMPLATE PF_FN int pf_s7_status1(pf_real d) {
  if (!pf_s7_finite(d)) return PF_S7_NONFINITE;
  return d == 0 ? PF_S7_SINGULAR : -1;
}

/* a d - b c to within a rounding of the exact value (Kahan's: b c's own rounding error added back),
   so that dependent rows give exactly 0 whether or not a compiler fuses a d - b c into one fma */
PF_TEMPLATE PF_FN pf_real pf_s7_det2(pf_real a, pf_real b, pf_real c, pf_real d) {
  const pf_real w = b * c;
  const pf_real e = fma(-b, c, w); /* w - b c, exactly */
  const pf_real f = fma(a, d, -w);
  return f + e;
}

/* -1 when the block (a b; c d) has an inverse, else unknown * 2 + kind: the row elimination
   would fail on (row 0 all zero, or non-finite: unknown 0; else unknown 1) */
PF_TEMPLATE PF_FN int pf_s7_status2(pf_real a, pf_real b, pf_real c, pf_real d) {
  if (!pf_s7_finite(a) || !pf_s7_finite(b)) return PF_S7_NONFINITE;
  if (!pf_s7_finite(c) || !pf_s7_finite(d)) return 2 + PF_S7_NONFINITE;
  if (a == 0 && b == 0) return PF_S7_SINGULAR;
  const pf_real det = pf_s7_det2(a, b, c, d);
  if (!pf_s7_finite(det)) return 2 + PF_S7_NONFINITE;
  return det == 0 ? 2 + PF_S7_SINGULAR : -1;
}

/* entry e (row * 2 + column) of the inverse of (a b; c d), whose determinant (pf_s7_det2) is det != 0 */
PF_TEMPLATE PF_FN pf_real pf_s7_inv2(pf_real a, pf_real b, pf_real c, pf_real d, pf_real det, int e) {
  const pf_real v = e == 0 ? d : e == 1 ? -b : e == 2 ? -c : a;
  return v / det;
}

PF_NAMESPACE_END

#endif
