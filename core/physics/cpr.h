/* The arithmetic of CPR's pressure stage for 2 x 2 block systems (core/linalg/cpr.hpp), written
   once for C++, CUDA and OpenCL C; each function is one point (a cell, or an entry) of a kernel.
   Blocks are row-major: (r, c) at 4 k + 2 r + c, row r the equation, column 0 the pressure. */
#ifndef PF_PHYSICS_CPR_H
#define PF_PHYSICS_CPR_H

#include "core/base/common.h"

PF_NAMESPACE_BEGIN

/* Quasi-IMPES weights of cell i from its diagonal block D = [[a, b], [c, d]]: the combination
   w of the two equations that removes the second unknown from the diagonal (w^T D e_1 = 0),
   w = (d, -b), its sign chosen so that w^T D e_0 = |det D| > 0 and scaled by its largest entry
   (the pressure equation keeps the scale of the mass equations; OPM's quasi-IMPES does the
   same). A zero block (an inactive cell) or a singular one, or none (pos < 0), gives w = 0: that cell's pressure row is
   empty, as its block row is. */
PF_TEMPLATE PF_FN void cpr_weights_point(long i, long pos, PF_GLOBAL const pf_real* diag, PF_GLOBAL pf_real* w) {
  if (pos < 0) { /* a row without a diagonal block */
    w[2 * i] = 0;
    w[2 * i + 1] = 0;
    return;
  }
  const pf_real a = diag[4 * pos], b = diag[4 * pos + 1], c = diag[4 * pos + 2], d = diag[4 * pos + 3];
  const pf_real det = a * d - b * c;
  const pf_real big = fmax(fabs(d), fabs(b));
  if (det == (pf_real)0 || big == (pf_real)0 || !(det == det)) {
    w[2 * i] = 0;
    w[2 * i + 1] = 0;
    return;
  }
  const pf_real s = (det > (pf_real)0 ? (pf_real)1 : (pf_real)-1) / big;
  w[2 * i] = s * d;
  w[2 * i + 1] = -s * b;
}

/* Entry k of the pressure matrix, in row `row`: the pressure column of the block, weighted by the
   row's equations: w_0 A(0, 0) + w_1 A(1, 0). */
PF_TEMPLATE PF_FN void cpr_pressure_entry(long k, long row, PF_GLOBAL const pf_real* w, PF_GLOBAL const pf_real* a,
                                          PF_GLOBAL pf_real* ap) {
  ap[k] = w[2 * row] * a[4 * k] + w[2 * row + 1] * a[4 * k + 2];
}

/* Cell i of the pressure residual: the row's equations weighted as in its pressure row. */
PF_TEMPLATE PF_FN void cpr_restrict_point(long i, PF_GLOBAL const pf_real* w, PF_GLOBAL const pf_real* r,
                                          PF_GLOBAL pf_real* rp) {
  rp[i] = w[2 * i] * r[2 * i] + w[2 * i + 1] * r[2 * i + 1];
}

/* Cell i of the pressure stage's correction in the block vector: the pressure, no second unknown. */
PF_TEMPLATE PF_FN void cpr_prolong_point(long i, PF_GLOBAL const pf_real* xp, PF_GLOBAL pf_real* z) {
  z[2 * i] = xp[i];
  z[2 * i + 1] = 0;
}

PF_NAMESPACE_END

#endif
