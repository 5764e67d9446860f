/* The arithmetic of aggregation AMG's refresh and smoothing (core/linalg/amg_setup.hpp), written
   once for C++, CUDA and OpenCL C: each function is one row (or one point) of a kernel. The
   plans' positions index the CSR value arrays; core/linalg/amg_setup.cpp's amg_p_values and
   amg_galerkin are the same loops in double on the host (the tests' reference). */
#ifndef PF_PHYSICS_AMG_H
#define PF_PHYSICS_AMG_H

#include "core/base/common.h"

PF_NAMESPACE_BEGIN

/* Row i of the smoothed prolongator P = (I - omega D_F^-1 A_F) P_tent: d_F(i) is A's diagonal
   plus the row's weak entries; entry k of the row sums the strong a_ij whose j is in the entry's
   aggregate (src), and the row's own aggregate (own) adds 1 - omega. */
PF_TEMPLATE PF_FN void amg_p_row(long i, PF_GLOBAL const int* p_ptr, PF_GLOBAL const int* diag_pos,
                                 PF_GLOBAL const int* weak_ptr, PF_GLOBAL const int* weak, PF_GLOBAL const int* src_ptr,
                                 PF_GLOBAL const int* src, PF_GLOBAL const int* own, pf_real omega,
                                 PF_GLOBAL const pf_real* a, PF_GLOBAL pf_real* p) {
  const int b = p_ptr[i], e = p_ptr[i + 1];
  if (b == e) return;
  pf_real dF = diag_pos[i] >= 0 ? a[diag_pos[i]] : (pf_real)0;
  for (int w = weak_ptr[i]; w < weak_ptr[i + 1]; ++w) dF += a[weak[w]];
  const pf_real f = dF != (pf_real)0 ? omega / dF : (pf_real)0;
  for (int k = b; k < e; ++k) {
    pf_real s = 0;
    for (int q = src_ptr[k]; q < src_ptr[k + 1]; ++q) s += a[src[q]];
    p[k] = (own[k] ? (pf_real)1 - omega : (pf_real)0) - f * s;
  }
}

/* Coarse row I of A_c = R A P: over R's row I (fine rows i with R(I, i)), A's row i (columns j)
   and P's row j (coarse columns J), each product added to A_c(I, J), found by bisection in the
   row's increasing columns. One work-item owns the row: no atomics, the same order every run. */
PF_TEMPLATE PF_FN void amg_galerkin_row(long I, PF_GLOBAL const int* r_ptr, PF_GLOBAL const int* r_col,
                                        PF_GLOBAL const pf_real* r_val, PF_GLOBAL const int* a_ptr,
                                        PF_GLOBAL const int* a_col, PF_GLOBAL const pf_real* a_val,
                                        PF_GLOBAL const int* p_ptr, PF_GLOBAL const int* p_col,
                                        PF_GLOBAL const pf_real* p_val, PF_GLOBAL const int* c_ptr,
                                        PF_GLOBAL const int* c_col, PF_GLOBAL pf_real* c_val) {
  const int cb = c_ptr[I], ce = c_ptr[I + 1];
  for (int k = cb; k < ce; ++k) c_val[k] = 0;
  for (int k = r_ptr[I]; k < r_ptr[I + 1]; ++k) {
    const int i = r_col[k];
    const pf_real ri = r_val[k];
    for (int q = a_ptr[i]; q < a_ptr[i + 1]; ++q) {
      const pf_real raij = ri * a_val[q];
      const int j = a_col[q];
      for (int m = p_ptr[j]; m < p_ptr[j + 1]; ++m) {
        const int J = p_col[m];
        int lo = cb, hi = ce - 1;
        while (lo < hi) {
          const int mid = (lo + hi) / 2;
          if (c_col[mid] < J) lo = mid + 1;
          else hi = mid;
        }
        c_val[lo] += raij * p_val[m];
      }
    }
  }
}

/* Entry c of A_c = R A P, for the GPUs: the sums of amg_galerkin_row in the same order, one
   work-item an entry. A row's entries are neighbours, so the work-items of a row read its R, A and
   P entries together, and a level of a few thousand rows still fills the GPU (one work-item a row
   left most of it idle, each walking a long chain of dependent loads). The row I holding c is
   found by bisection in c_ptr (the last row starting at or before c: empty rows are passed over). */
PF_TEMPLATE PF_FN void amg_galerkin_entry(long c, long rows, PF_GLOBAL const int* r_ptr, PF_GLOBAL const int* r_col,
                                          PF_GLOBAL const pf_real* r_val, PF_GLOBAL const int* a_ptr,
                                          PF_GLOBAL const int* a_col, PF_GLOBAL const pf_real* a_val,
                                          PF_GLOBAL const int* p_ptr, PF_GLOBAL const int* p_col,
                                          PF_GLOBAL const pf_real* p_val, PF_GLOBAL const int* c_ptr,
                                          PF_GLOBAL const int* c_col, PF_GLOBAL pf_real* c_val) {
  long lo = 0, hi = rows - 1;
  while (lo < hi) {
    const long mid = (lo + hi + 1) / 2;
    if (c_ptr[mid] <= c) lo = mid;
    else hi = mid - 1;
  }
  const long I = lo;
  const int J = c_col[c];
  pf_real s = 0;
  for (int k = r_ptr[I]; k < r_ptr[I + 1]; ++k) {
    const int i = r_col[k];
    const pf_real ri = r_val[k];
    for (int q = a_ptr[i]; q < a_ptr[i + 1]; ++q) {
      const pf_real raij = ri * a_val[q];
      const int j = a_col[q];
      for (int m = p_ptr[j]; m < p_ptr[j + 1]; ++m)
        if (p_col[m] == J) s += raij * p_val[m];
    }
  }
  c_val[c] = s;
}

/* A Chebyshev step's new direction from the old one and the residual r (Jacobi with alpha = 0):
   alpha d + beta D^-1 r. The stencil7 family's fused step (chebyshev) takes the same. */
PF_TEMPLATE PF_FN pf_real amg_cheb_direction(pf_real alpha, pf_real d, pf_real beta, pf_real dinv, pf_real r) {
  return alpha * d + beta * dinv * r;
}

/* One step of the smoother at point i (Chebyshev's recurrence; Jacobi with alpha = 0):
   d = alpha d + beta D^-1 r, x += d; start: d = beta D^-1 r, x = d. */
PF_TEMPLATE PF_FN void amg_smooth_point(long i, pf_real alpha, pf_real beta, PF_GLOBAL const pf_real* r,
                                        PF_GLOBAL const pf_real* dinv, PF_GLOBAL pf_real* d, PF_GLOBAL pf_real* x,
                                        int start) {
  if (start) { /* d and x are 0: neither is read */
    const pf_real di = beta * dinv[i] * r[i];
    d[i] = di;
    x[i] = di;
    return;
  }
  const pf_real di = amg_cheb_direction(alpha, d[i], beta, dinv[i], r[i]);
  d[i] = di;
  x[i] += di;
}

PF_NAMESPACE_END

#endif
