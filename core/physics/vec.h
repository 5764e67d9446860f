/* The vec family's math (docs/linalg.md), written once for C++, CUDA and OpenCL C: the scalars a
   kernel computes from a solve's device scalars (a Coef), the solves' residual check, and the
   small dense steps of FGMRES (the Givens rotation of a Hessenberg column, the triangular solve at
   a restart), which run on one work-item so that no scalar of a solve goes to the host. */
#ifndef PF_PHYSICS_VEC_H
#define PF_PHYSICS_VEC_H

#include "core/base/common.h"
#include "core/base/converge.h"

/* A Coef's slots packed into one 64-bit integer, so that a kernel takes a scalar expression as two
   parameters (c, slots): four fields of 15 bits holding slot + 1 (0: no slot), num0, num1, den0,
   den1 from the low end, and bit 60 asking for the square root of the denominator. Breakdown slot
   lists (the check's) use the same four fields. */
#define PF_COEF_BITS 15
#define PF_COEF_FIELD 0x7fffL
#define PF_COEF_MAX_SLOT 32766
#define PF_COEF_SQRT_BIT 60

/* FGMRES's slots from a base, for restart length m (pf_gm_*): */
#define PF_GM_BETA2 0 /* ||r0||^2 at the cycle's start */
#define PF_GM_NN 1    /* ||w||^2 after the orthogonalisation: the new Hessenberg entry squared */
#define PF_GM_K 2     /* the columns of the running cycle, a count held as a value */
#define PF_GM_KY 3    /* the coefficients the last triangular solve wrote: the update's count */
#define PF_GM_H1 4    /* m: the first Gram-Schmidt pass's coefficients, then the second's (h2) */

PF_NAMESPACE_BEGIN

PF_FN int pf_slot_of(long packed, int q) { return (int)((packed >> (PF_COEF_BITS * q)) & PF_COEF_FIELD) - 1; }

/* c * s[num0] * s[num1] / (s[den0] * s[den1]) of the packed slots (those present); the square root
   of the denominator on request; a zero denominator gives 0 (a breakdown the check reports). */
PF_TEMPLATE PF_FN pf_real pf_coef_value(PF_GLOBAL const pf_real* s, pf_real c, long packed) {
  if (packed == 0) return c;
  pf_real num = c, den = (pf_real)1;
  int has_den = 0;
  for (int q = 0; q < 4; ++q) {
    const int k = pf_slot_of(packed, q);
    if (k < 0) continue;
    if (q < 2) {
      num *= s[k];
    } else {
      den *= s[k];
      has_den = 1;
    }
  }
  if (!has_den) return num;
  if ((packed >> PF_COEF_SQRT_BIT) & 1) den = sqrt(den);
  return den == 0 ? (pf_real)0 : num / den;
}

/* A term whose coefficient is the constant 0 is left out: its vector is not read (an output that
   starts undefined, the first iteration's p = r). */
PF_TEMPLATE PF_FN int pf_coef_is_zero(pf_real c, long packed) { return packed == 0 && c == 0; }

/* ||r||^2 relative to the reference ||b||^2; a zero reference (b = 0) makes it absolute */
PF_TEMPLATE PF_FN pf_real pf_kr_rel2(pf_real rr, pf_real ref) { return rr / (ref > 0 ? ref : (pf_real)1); }

/* The decision at iteration `it` on m2 (the relative residual squared): its square root goes into
   hist[it] and the control block's PF_CV_LAST; then a non-finite m2 stops (PF_CV_NONFINITE), m2 <=
   tol2 converges, a breakdown stops (before the convergence test when broke_first: FGMRES's
   singular triangle, whose estimate says 0), and it >= max_it is the limit. */
PF_TEMPLATE PF_FN void pf_kr_decide(PF_GLOBAL pf_u64* w, PF_GLOBAL pf_real* hist, long it, pf_real m2, pf_real tol2,
                                    int broke, int broke_first, long max_it) {
  const pf_real rel = sqrt(m2);
  hist[it] = rel;
  w[PF_CV_LAST] = PF_TO_WORD(rel);
  int reason = PF_CV_RUNNING;
  if (!pf_cv_finite(m2)) reason = PF_CV_NONFINITE;
  else if (broke && broke_first) reason = PF_CV_BREAKDOWN;
  else if (m2 <= tol2) reason = PF_CV_CONVERGED;
  else if (broke) reason = PF_CV_BREAKDOWN;
  else if (it >= max_it) reason = PF_CV_LIMIT;
  if (reason != PF_CV_RUNNING) {
    w[PF_CV_ITER] = (pf_u64)it;
    w[PF_CV_STOP] = (pf_u64)reason;
  }
}

/* The check of CG and BiCGSTAB: s[rr] = ||r||^2, s[ref] = ||b||^2; a breakdown is any of the
   packed slots (up to four) holding exactly 0. Nothing once the block says stop. it < 0: the
   iteration the block counts (one more than the last check's), so that the launches of an
   iteration do not change with its number and can be recorded once and replayed. */
PF_TEMPLATE PF_FN void pf_kr_check(PF_GLOBAL pf_u64* w, PF_GLOBAL const pf_real* s, PF_GLOBAL pf_real* hist, long it, int rr,
                                   int ref, long breakdown, pf_real tol2, long max_it) {
  if (w[PF_CV_STOP] != 0) return;
  if (it < 0) it = (long)w[PF_CV_NEXT_IT] < max_it ? (long)w[PF_CV_NEXT_IT] : max_it;
  w[PF_CV_NEXT_IT] = (pf_u64)(it + 1);
  int broke = 0;
  for (int q = 0; q < 4; ++q) {
    const int k = pf_slot_of(breakdown, q);
    if (k >= 0 && s[k] == 0) broke = 1;
  }
  pf_kr_decide(w, hist, it, pf_kr_rel2(s[rr], s[ref]), tol2, broke, 0, max_it);
}

/* ---- FGMRES: the slots after PF_GM_H1 for restart length m ---------------------------------- */
PF_FN int pf_gm_h2(int m) { return PF_GM_H1 + m; }
PF_FN int pf_gm_g(int m) { return PF_GM_H1 + 2 * m; } /* m + 1: the rotated right-hand side */
PF_FN int pf_gm_cs(int m) { return PF_GM_H1 + 3 * m + 1; }
PF_FN int pf_gm_sn(int m) { return PF_GM_H1 + 4 * m + 1; }
PF_FN int pf_gm_y(int m) { return PF_GM_H1 + 5 * m + 1; }
PF_FN int pf_gm_r(int m) { return PF_GM_H1 + 6 * m + 1; } /* m x m, column-major: the rotated Hessenberg */
PF_FN int pf_gm_slots(int m) { return PF_GM_H1 + 6 * m + 1 + m * m; }

/* sqrt(a^2 + b^2) without overflow */
PF_TEMPLATE PF_FN pf_real pf_gm_hypot(pf_real a, pf_real b) {
  const pf_real sc = fabs(a) + fabs(b);
  if (sc == 0) return (pf_real)0;
  const pf_real x = a / sc, y = b / sc;
  return sc * sqrt(x * x + y * y);
}

/* Column j of the cycle (iteration `it` of the solve) from the two Gram-Schmidt passes
   (h = h1 + h2, h2 left out unless two_pass) and ||w|| = sqrt(s[NN]): the earlier rotations
   applied, a new one zeroing the subdiagonal, the rotated right-hand side g updated (from
   g = (||r0||, 0, ...) at j = 0), K = j + 1; then the decision on |g[j+1]|^2 / s[ref]. A column
   whose rotated diagonal is 0 is a breakdown (the triangle is singular). */
PF_TEMPLATE PF_FN void pf_gm_column(PF_GLOBAL pf_u64* w, PF_GLOBAL pf_real* s, PF_GLOBAL pf_real* hist, long it, int j, int m,
                                    int base, int ref, int two_pass, pf_real tol2, long max_it) {
  if (w[PF_CV_STOP] != 0) return;
  PF_GLOBAL pf_real* t = s + base;
  PF_GLOBAL pf_real* col = t + pf_gm_r(m) + j * m;
  PF_GLOBAL pf_real* g = t + pf_gm_g(m);
  PF_GLOBAL pf_real* cs = t + pf_gm_cs(m);
  PF_GLOBAL pf_real* sn = t + pf_gm_sn(m);
  for (int i = 0; i <= j; ++i) col[i] = t[PF_GM_H1 + i] + (two_pass ? t[pf_gm_h2(m) + i] : (pf_real)0);
  const pf_real nn = t[PF_GM_NN];
  const pf_real hn = nn > 0 ? sqrt(nn) : nn == nn ? (pf_real)0 : nn; /* NaN stays */
  if (j == 0) {
    g[0] = sqrt(t[PF_GM_BETA2]);
    for (int i = 1; i <= m; ++i) g[i] = 0;
  }
  for (int i = 0; i < j; ++i) {
    const pf_real a = col[i], b = col[i + 1];
    col[i] = cs[i] * a + sn[i] * b;
    col[i + 1] = -sn[i] * a + cs[i] * b;
  }
  const pf_real a = col[j];
  const pf_real d = pf_gm_hypot(a, hn);
  const pf_real c = d == 0 ? (pf_real)1 : a / d, sv = d == 0 ? (pf_real)0 : hn / d;
  col[j] = d;
  cs[j] = c;
  sn[j] = sv;
  g[j + 1] = -sv * g[j];
  g[j] = c * g[j];
  t[PF_GM_K] = (pf_real)(j + 1);
  pf_kr_decide(w, hist, it, pf_kr_rel2(g[j + 1] * g[j + 1], s[ref]), tol2, d == 0, 1, max_it);
}

/* The restart's solve R y = g over the K columns of the cycle (R upper triangular; a zero pivot
   gives 0), y into the Y slots, KY = K (the update's count), K = 0: a second call before the next
   column writes KY = 0, so an update after it adds nothing. Runs after a stop too (not guarded):
   the cycle that stopped still updates x. */
PF_TEMPLATE PF_FN void pf_gm_solve(PF_GLOBAL pf_real* s, int m, int base) {
  PF_GLOBAL pf_real* t = s + base;
  PF_GLOBAL const pf_real* r = t + pf_gm_r(m);
  PF_GLOBAL const pf_real* g = t + pf_gm_g(m);
  PF_GLOBAL pf_real* y = t + pf_gm_y(m);
  const pf_real kv = t[PF_GM_K];
  const int k = kv > 0 ? (kv < (pf_real)m ? (int)kv : m) : 0;
  for (int i = k - 1; i >= 0; --i) {
    pf_real acc = g[i];
    for (int l = i + 1; l < k; ++l) acc -= r[i + l * m] * y[l];
    const pf_real d = r[i + i * m];
    y[i] = d == 0 ? (pf_real)0 : acc / d;
  }
  t[PF_GM_KY] = (pf_real)k;
  t[PF_GM_K] = 0;
}

PF_NAMESPACE_END

#endif
