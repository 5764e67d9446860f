/* A 7-point operator's rows (core/linalg/stencil7.hpp's layout, scalar) from sor3d's
   colour-packed coefficients (core/physics/sor3d.h: D p - sum of the neighbours' terms = R), so a
   Krylov solver can solve the system a model assembled for SOR. Written once for C++, CUDA and
   OpenCL C. */
#ifndef PF_PHYSICS_STENCIL7_SOR_H
#define PF_PHYSICS_STENCIL7_SOR_H

#include "core/base/rb3.h"
#include "core/physics/sor3d.h"

PF_NAMESPACE_BEGIN

/* Cell c (c = i + nx (j + ny k)) of box b: its diagonal, its neighbours' coefficients negated and
   its right-hand side, each times the row's scale
   (scale[L] where given and > 0, else 1: a model whose rows were divided by a volume multiplies
   them back, which keeps a symmetric system symmetric). A coefficient across the box's edge is
   kept as sor3d holds it: at the grid's edge a model writes 0 there (impes3d: no transmissibility),
   across a face shared with another process it couples to the ghost the operator's exchange fills
   (docs/mpi.md). */
PF_TEMPLATE PF_FN void pf_s7_from_sor_cell(pf_box3 b, long c, PF_GLOBAL const pf_real* rb, PF_GLOBAL const pf_real* scale,
                                           PF_GLOBAL pf_real* coef, PF_GLOBAL pf_real* rhs, long extent) {
  const long i = c % b.nx, j = (c / b.nx) % b.ny, k = c / (b.nx * b.ny);
  const long L = pf_box_at(b, i, j, k), q = pf_rb_of(b, i, j, k), m2 = 2 * pf_rb_m(b);
  const pf_real s = scale && scale[L] > (pf_real)0 ? scale[L] : (pf_real)1;
  coef[L] = s * rb[q + PF_SOR_D * m2];
  coef[1 * extent + L] = -s * rb[q + PF_SOR_W * m2];
  coef[2 * extent + L] = -s * rb[q + PF_SOR_E * m2];
  coef[3 * extent + L] = -s * rb[q + PF_SOR_S * m2];
  coef[4 * extent + L] = -s * rb[q + PF_SOR_N * m2];
  coef[5 * extent + L] = -s * rb[q + PF_SOR_B * m2];
  coef[6 * extent + L] = -s * rb[q + PF_SOR_T * m2];
  rhs[L] = s * rb[q + PF_SOR_R * m2];
}

PF_NAMESPACE_END

#endif
