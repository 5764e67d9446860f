/* AMG's coarse levels in one work-group (the amg family's tail_cycle, core/kernels/amg.hpp):
   the cycle from a level down to the coarsest and back, as core/linalg/amg.cpp's cycle makes it
   with a launch a step, here with a group barrier a step. Small levels cost a launch each far more
   than their arithmetic (docs/linalg.md, "The coarse levels in one launch"); a group of 1 024
   work-items takes their rows in turn. Written once for C++ (one thread, or an OpenMP
   team), CUDA (one block) and OpenCL C (one work-group).

   The levels' arrays are packed: ints holds the patterns, vals the values (A, D^-1, R, P, the
   coarsest's dense inverse, the smoother's coefficients), work the vectors; level l's offsets
   into them are table[l * PF_AMG_TAIL_FIELDS + field]. The first level's right-hand side and
   iterate are b0 and x0 (its PF_AT_B and PF_AT_X are -1). A level's iterate alternates between
   its two vectors (PF_AT_X and PF_AT_Y): a Chebyshev step reads one and writes the other, so a
   step is one pass; which holds it is tracked as the cycle goes. */
#ifndef PF_PHYSICS_AMG_TAIL_H
#define PF_PHYSICS_AMG_TAIL_H

#include "core/base/common.h"
#include "core/physics/amg.h"

#define PF_AT_ROWS 0
#define PF_AT_A_PTR 1 /* ints */
#define PF_AT_A_COL 2
#define PF_AT_A_VAL 3 /* vals */
#define PF_AT_DINV 4
#define PF_AT_R_PTR 5 /* ints; -1 on the coarsest */
#define PF_AT_R_COL 6
#define PF_AT_R_VAL 7 /* vals */
#define PF_AT_P_PTR 8 /* ints */
#define PF_AT_P_COL 9
#define PF_AT_P_VAL 10 /* vals */
#define PF_AT_CINV 11  /* vals: the coarsest's dense inverse, column by column; -1: smoothed */
#define PF_AT_COEF 12  /* vals: the smoother's (alpha, beta) of each step */
#define PF_AT_DEGREE 13
#define PF_AT_B 14 /* work; -1: b0 */
#define PF_AT_X 15 /* work; -1: x0 */
#define PF_AT_Y 16 /* work */
#define PF_AT_D 17 /* work */
#define PF_AMG_TAIL_FIELDS 18
#define PF_AMG_TAIL_MAX 32 /* levels at most (AmgOptions::max_levels is at most 20) */

PF_NAMESPACE_BEGIN

/* sum_k val[k] v[col[k]] over row i's entries, four at a time: one work-group has too few
   work-items to hide a load's latency, so each keeps four loads in flight (four sums) */
PF_TEMPLATE PF_FN pf_real amg_tail_row(PF_GLOBAL const int* ptr, PF_GLOBAL const int* col,
                                       PF_GLOBAL const pf_real* val, PF_GLOBAL const pf_real* v, long i) {
  pf_real s0 = 0, s1 = 0, s2 = 0, s3 = 0;
  const int e = ptr[i + 1];
  int k = ptr[i];
  for (; k + 3 < e; k += 4) {
    const int c0 = col[k], c1 = col[k + 1], c2 = col[k + 2], c3 = col[k + 3];
    s0 += val[k] * v[c0];
    s1 += val[k + 1] * v[c1];
    s2 += val[k + 2] * v[c2];
    s3 += val[k + 3] * v[c3];
  }
  for (; k < e; ++k) s0 += val[k] * v[col[k]];
  return (s0 + s1) + (s2 + s3);
}

/* `degree` Chebyshev steps at level t (amg_smooth_point's recurrence, the residual taken in the
   same pass); from_zero: the first writes d and the iterate without reading them. cur: which of
   (x, y) holds the iterate; returns which holds it after. */
PF_TEMPLATE PF_FN int amg_tail_smooth(int tid, int nt, PF_GLOBAL const int* t, PF_GLOBAL const int* ints,
                                      PF_GLOBAL const pf_real* vals, PF_GLOBAL const pf_real* b, PF_GLOBAL pf_real* x,
                                      PF_GLOBAL pf_real* y, PF_GLOBAL pf_real* d, int cur, int from_zero) {
  const long n = t[PF_AT_ROWS];
  PF_GLOBAL const int* ptr = ints + t[PF_AT_A_PTR];
  PF_GLOBAL const int* col = ints + t[PF_AT_A_COL];
  PF_GLOBAL const pf_real* val = vals + t[PF_AT_A_VAL];
  PF_GLOBAL const pf_real* dinv = vals + t[PF_AT_DINV];
  PF_GLOBAL const pf_real* coef = vals + t[PF_AT_COEF];
  const int degree = t[PF_AT_DEGREE];
  int k = 0;
  if (from_zero) {
    PF_GLOBAL pf_real* to = cur ? y : x;
    const pf_real beta = coef[1];
    for (long i = tid; i < n; i += nt) {
      const pf_real di = beta * dinv[i] * b[i];
      d[i] = di;
      to[i] = di;
    }
    PF_GROUP_BARRIER();
    k = 1;
  }
  for (; k < degree; ++k) {
    const pf_real alpha = coef[2 * k], beta = coef[2 * k + 1];
    PF_GLOBAL const pf_real* from = cur ? y : x;
    PF_GLOBAL pf_real* to = cur ? x : y;
    for (long i = tid; i < n; i += nt) {
      const pf_real r = b[i] - amg_tail_row(ptr, col, val, from, i);
      const pf_real di = amg_cheb_direction(alpha, d[i], beta, dinv[i], r);
      d[i] = di;
      to[i] = from[i] + di;
    }
    PF_GROUP_BARRIER();
    cur = 1 - cur;
  }
  return cur;
}

/* level t's residual b - A x into s (the free vector of the two), then the next level's
   right-hand side bc = R s */
PF_TEMPLATE PF_FN void amg_tail_restrict(int tid, int nt, PF_GLOBAL const int* t, PF_GLOBAL const int* tc,
                                         PF_GLOBAL const int* ints, PF_GLOBAL const pf_real* vals,
                                         PF_GLOBAL const pf_real* b, PF_GLOBAL const pf_real* x, PF_GLOBAL pf_real* s,
                                         PF_GLOBAL pf_real* bc) {
  const long n = t[PF_AT_ROWS], nc = tc[PF_AT_ROWS];
  PF_GLOBAL const int* ptr = ints + t[PF_AT_A_PTR];
  PF_GLOBAL const int* col = ints + t[PF_AT_A_COL];
  PF_GLOBAL const pf_real* val = vals + t[PF_AT_A_VAL];
  for (long i = tid; i < n; i += nt) s[i] = b[i] - amg_tail_row(ptr, col, val, x, i);
  PF_GROUP_BARRIER();
  PF_GLOBAL const int* rp = ints + t[PF_AT_R_PTR];
  PF_GLOBAL const int* rc = ints + t[PF_AT_R_COL];
  PF_GLOBAL const pf_real* rv = vals + t[PF_AT_R_VAL];
  for (long I = tid; I < nc; I += nt) bc[I] = amg_tail_row(rp, rc, rv, s, I);
  PF_GROUP_BARRIER();
}

/* the cycle of levels [0, levels) of the table on b0, its result in x0; w: two coarse corrections
   a level (a W-cycle), else one */
PF_TEMPLATE PF_FN void amg_tail_cycle(int tid, int nt, int levels, int w, PF_GLOBAL const int* table,
                                      PF_GLOBAL const int* ints, PF_GLOBAL const pf_real* vals,
                                      PF_GLOBAL pf_real* work, PF_GLOBAL const pf_real* b0, PF_GLOBAL pf_real* x0) {
  int pass[PF_AMG_TAIL_MAX], cur[PF_AMG_TAIL_MAX];
  int l = 0, down = 1;
  for (;;) {
    PF_GLOBAL const int* t = table + (long)l * PF_AMG_TAIL_FIELDS;
    PF_GLOBAL const pf_real* b = t[PF_AT_B] < 0 ? b0 : work + t[PF_AT_B];
    PF_GLOBAL pf_real* x = t[PF_AT_X] < 0 ? x0 : work + t[PF_AT_X];
    PF_GLOBAL pf_real* y = work + t[PF_AT_Y];
    PF_GLOBAL pf_real* d = work + t[PF_AT_D];
    if (down && l == levels - 1) { /* the coarsest: its dense inverse, or smoothing */
      if (t[PF_AT_CINV] >= 0) { /* the inverse is stored by columns: neighbouring rows' loads are adjacent */
        const long n = t[PF_AT_ROWS];
        PF_GLOBAL const pf_real* c = vals + t[PF_AT_CINV];
        for (long i = tid; i < n; i += nt) {
          pf_real s0 = 0, s1 = 0;
          long j = 0;
          for (; j + 1 < n; j += 2) {
            s0 += c[j * n + i] * b[j];
            s1 += c[(j + 1) * n + i] * b[j + 1];
          }
          if (j < n) s0 += c[j * n + i] * b[j];
          x[i] = s0 + s1;
        }
        PF_GROUP_BARRIER();
        cur[l] = 0;
      } else {
        cur[l] = amg_tail_smooth(tid, nt, t, ints, vals, b, x, y, d, 0, 1);
      }
      if (l == 0) break;
      --l;
      down = 0;
      continue;
    }
    PF_GLOBAL const int* tc = t + PF_AMG_TAIL_FIELDS;
    PF_GLOBAL pf_real* bc = work + tc[PF_AT_B];
    if (down) { /* smoothing from 0, the residual restricted, the next level */
      cur[l] = amg_tail_smooth(tid, nt, t, ints, vals, b, x, y, d, 0, 1);
      pass[l] = 0;
      amg_tail_restrict(tid, nt, t, tc, ints, vals, b, cur[l] ? y : x, cur[l] ? x : y, bc);
      ++l;
      continue;
    }
    { /* back from level l + 1: x += P x_c; another correction, or smoothing and up */
      PF_GLOBAL const pf_real* xc = work + (cur[l + 1] ? tc[PF_AT_Y] : tc[PF_AT_X]);
      PF_GLOBAL pf_real* xl = cur[l] ? y : x;
      PF_GLOBAL const int* pp = ints + t[PF_AT_P_PTR];
      PF_GLOBAL const int* pc = ints + t[PF_AT_P_COL];
      PF_GLOBAL const pf_real* pv = vals + t[PF_AT_P_VAL];
      const long n = t[PF_AT_ROWS];
      for (long i = tid; i < n; i += nt) xl[i] += amg_tail_row(pp, pc, pv, xc, i);
      PF_GROUP_BARRIER();
    }
    if (++pass[l] < (w ? 2 : 1)) {
      amg_tail_restrict(tid, nt, t, tc, ints, vals, b, cur[l] ? y : x, cur[l] ? x : y, bc);
      ++l;
      down = 1;
      continue;
    }
    cur[l] = amg_tail_smooth(tid, nt, t, ints, vals, b, x, y, d, cur[l], 0);
    if (l == 0) break;
    --l;
  }
  if (cur[0]) { /* the first level's iterate into x0 */
    PF_GLOBAL const pf_real* y = work + table[PF_AT_Y];
    const long n = table[PF_AT_ROWS];
    for (long i = tid; i < n; i += nt) x0[i] = y[i];
  }
}

PF_NAMESPACE_END

#endif
