/* ILU(0) and DILU in a multicolour order (core/kernels/ilu.hpp): the arithmetic of one row, written
   once for C++, CUDA and OpenCL C. A backend's kernel is the parallel loop over one colour's rows
   around these functions; the block size bs (1 or 2 unknowns a cell) is a compile-time constant
   there (a template argument, a #define), so the block loops below unroll.

   Both variants factor A into M = (D + Lv) D^-1 (D + Uv), Lv and Uv the parts of a row before and
   after its diagonal in the colour order, D block diagonal:
     DILU:   Lv, Uv are A's own; D_i = A_ii - sum_k A_ik D_k^-1 A_ki (k before i), so diag(M) = diag(A);
     ILU(0): Lv, Uv, D are the values of Gaussian elimination in the colour order with every fill
             outside A's pattern dropped (the factors, kept unscaled: L = I + Lv D^-1, U = D + Uv).
   The factors keep only D^-1 (dinv) and, for ILU(0) on CSR, a copy of A's values (lu). Applying M^-1
   is a forward sweep w_i = D_i^-1 (r_i - sum_k Lv_ik w_k) colour by colour, then a backward sweep
   z_i = w_i - D_i^-1 sum_j Uv_ij z_j in the reverse colour order, in place in z.

   Blocks are row-major (entry (r, c) at r bs + c) and held in private arrays of 4 values. */
#ifndef PF_PHYSICS_ILU_H
#define PF_PHYSICS_ILU_H

#include "core/base/box3.h"
#include "core/base/rb3.h"

/* The pivot words (2 int32) a factorisation reports through: [0] the first row with a bad pivot,
   [1] its colour; PF_ILU_NONE in both while none was found. "First": the smallest row index of the
   first colour that has one (a bad pivot poisons the later colours, which then must not report). */
#define PF_ILU_NONE 0x7fffffff

PF_NAMESPACE_BEGIN

/* not NaN, not infinite */
PF_TEMPLATE PF_FN int pf_ilu_finite(pf_real x) { return x - x == 0; }

PF_TEMPLATE PF_FN void pf_ilu_load(int bs, PF_GLOBAL const pf_real* p, pf_real* m) {
  for (int e = 0; e < bs * bs; ++e) m[e] = p[e];
}

PF_TEMPLATE PF_FN void pf_ilu_store(int bs, const pf_real* m, PF_GLOBAL pf_real* p) {
  for (int e = 0; e < bs * bs; ++e) p[e] = m[e];
}

/* c = a x (blocks) */
PF_TEMPLATE PF_FN void pf_ilu_mul(int bs, const pf_real* a, const pf_real* x, pf_real* c) {
  if (bs == 1) {
    c[0] = a[0] * x[0];
    return;
  }
  c[0] = a[0] * x[0] + a[1] * x[2];
  c[1] = a[0] * x[1] + a[1] * x[3];
  c[2] = a[2] * x[0] + a[3] * x[2];
  c[3] = a[2] * x[1] + a[3] * x[3];
}

/* s -= a x (blocks) */
PF_TEMPLATE PF_FN void pf_ilu_mul_sub(int bs, const pf_real* a, const pf_real* x, pf_real* s) {
  pf_real c[4];
  pf_ilu_mul(bs, a, x, c);
  for (int e = 0; e < bs * bs; ++e) s[e] -= c[e];
}

/* acc -= m x: a block and a vector of the arrays */
PF_TEMPLATE PF_FN void pf_ilu_mv_sub(int bs, PF_GLOBAL const pf_real* m, PF_GLOBAL const pf_real* x, pf_real* acc) {
  if (bs == 1) {
    acc[0] -= m[0] * x[0];
    return;
  }
  const pf_real x0 = x[0], x1 = x[1];
  acc[0] -= m[0] * x0 + m[1] * x1;
  acc[1] -= m[2] * x0 + m[3] * x1;
}

/* y = m x, m a block of the arrays */
PF_TEMPLATE PF_FN void pf_ilu_mv(int bs, PF_GLOBAL const pf_real* m, const pf_real* x, pf_real* y) {
  if (bs == 1) {
    y[0] = m[0] * x[0];
    return;
  }
  y[0] = m[0] * x[0] + m[1] * x[1];
  y[1] = m[2] * x[0] + m[3] * x[1];
}

/* inv = d^-1; 0 when the pivot is bad: d or its inverse not finite (a zero or singular block, or
   one poisoned by an earlier bad pivot) */
PF_TEMPLATE PF_FN int pf_ilu_invert(int bs, const pf_real* d, pf_real* inv) {
  if (bs == 1) {
    inv[0] = (pf_real)1 / d[0];
    return pf_ilu_finite(d[0]) && pf_ilu_finite(inv[0]);
  }
  const pf_real s = (pf_real)1 / (d[0] * d[3] - d[1] * d[2]);
  inv[0] = d[3] * s;
  inv[1] = -d[1] * s;
  inv[2] = -d[2] * s;
  inv[3] = d[0] * s;
  int ok = pf_ilu_finite(s);
  for (int e = 0; e < 4; ++e) ok = ok && pf_ilu_finite(d[e]) && pf_ilu_finite(inv[e]);
  return ok;
}

/* ---- the 7-point stencil in red-black order ---------------------------------------------------
   The layout of core/linalg/stencil7.hpp: plane q (0 the diagonal, 1 -x, 2 +x, 3 -y, 4 +y, 5 -z,
   6 +z), cell L at (q E + L) bs^2 (E the extent); vectors bs x E, dinv bs^2 x E. Colour c of
   core/base/rb3.h ((i + j + k) parity): every neighbour of a cell has the other colour, so in the
   order red then black no elimination makes fill inside the pattern and ILU(0) is DILU: the red
   pivots are A's diagonal, the black ones A_ii - sum_k A_ik A_kk^-1 A_ki over the red neighbours.
   Box indices go through int: the extent is below 2^31 (checked before a launch). */

/* the plane of the coefficient that couples the neighbour across face q back to the cell */
PF_FN int pf_ilu_s7_back(int q) { return (q & 1) ? q + 1 : q - 1; }

/* the step to the neighbour across face q (q = 1..6) */
PF_FN long pf_ilu_s7_step(pf_box3 b, int q) {
  const long s = q <= 2 ? 1 : (q <= 4 ? b.sy : b.sz);
  return (q & 1) ? -s : s;
}

/* whether the neighbour across face q is a cell of the box */
PF_FN int pf_ilu_s7_inside(pf_box3 b, int q, long i, long j, long k) {
  switch (q) {
    case 1: return i > 0;
    case 2: return i < b.nx - 1;
    case 3: return j > 0;
    case 4: return j < b.ny - 1;
    case 5: return k > 0;
    default: return k < b.nz - 1;
  }
}

/* 1 when entry L of the extent is a cell of the box, with its (i, j, k) (a cell of the box's
   pitches otherwise, maybe outside it) */
PF_FN int pf_ilu_s7_cell(pf_box3 b, long L, long* i, long* j, long* k) {
  /* from the box's lowest ghost (at base >= 0, check_box), L - base = (i + h) + (j + h) sy +
     (k + h) sz, with 0 <= i + h < sy and 0 <= (i + h) + (j + h) sy < sz for every cell of the
     box and its halo (check_box: the pitches keep rows and planes apart) */
  const int base = (int)(b.off - b.halo * (1 + b.sy + b.sz)), h = (int)b.halo;
  const int q = (int)L - base;
  if (q < 0) {
    *i = *j = *k = -1;
    return 0;
  }
  const int sy = (int)b.sy, sz = (int)b.sz, rem = q % sz;
  *k = q / sz - h;
  *j = rem / sy - h;
  *i = rem % sy - h;
  return pf_box_inside(b, *i, *j, *k);
}

/* the colour-c cell of a colour launch's index t (over pf_rb_m(b) half-cells, rb3's order): 1 and
   its (i, j, k), or 0 past the end of its row */
PF_FN int pf_ilu_s7_rb_cell(pf_box3 b, int c, long t, long* i, long* j, long* k) {
  const int hx = (int)pf_rb_hx(b), ny = (int)b.ny, tt = (int)t;
  const int jk = tt / hx;
  *j = jk % ny;
  *k = jk / ny;
  *i = 2 * (tt - jk * hx) + pf_rb_shift(c, *j, *k);
  return *i < b.nx;
}

/* Factor, colour 0, at entry L of the extent (a launch over the whole extent): an active red cell's
   dinv is its diagonal block's inverse, every entry that is no active cell gets 0, active black
   cells are left to pf_ilu_s7_factor1. Returns 0 on a bad pivot. */
PF_TEMPLATE PF_FN int pf_ilu_s7_factor0(int bs, PF_GLOBAL const pf_real* coef, PF_GLOBAL const int* active,
                                        PF_GLOBAL pf_real* dinv, pf_box3 b, long L) {
  long i, j, k;
  const int cell = pf_ilu_s7_cell(b, L, &i, &j, &k) && active[L];
  if (cell && pf_rb_colour(i, j, k) == 1) return 1;
  pf_real inv[4] = {0, 0, 0, 0};
  int ok = 1;
  if (cell) {
    pf_real d[4];
    pf_ilu_load(bs, coef + L * bs * bs, d);
    ok = pf_ilu_invert(bs, d, inv);
  }
  pf_ilu_store(bs, inv, dinv + L * bs * bs);
  return ok;
}

/* Factor, colour 1, at black cell (i, j, k): dinv = (A_LL - sum_N A_LN dinv_N A_NL)^-1 over its red
   neighbours N (an inactive one has dinv 0). Returns 0 on a bad pivot. */
PF_TEMPLATE PF_FN int pf_ilu_s7_factor1(int bs, PF_GLOBAL const pf_real* coef, PF_GLOBAL const int* active,
                                        PF_GLOBAL pf_real* dinv, pf_box3 b, long E, long i, long j, long k) {
  const long L = pf_box_at(b, i, j, k), b2 = bs * bs;
  if (!active[L]) return 1;
  pf_real s[4];
  pf_ilu_load(bs, coef + L * b2, s);
  for (int q = 1; q < 7; ++q) {
    if (!pf_ilu_s7_inside(b, q, i, j, k)) continue;
    const long N = L + pf_ilu_s7_step(b, q);
    pf_real a[4], di[4], back[4], t[4];
    pf_ilu_load(bs, coef + (q * E + L) * b2, a);
    pf_ilu_load(bs, dinv + N * b2, di);
    pf_ilu_load(bs, coef + (pf_ilu_s7_back(q) * E + N) * b2, back);
    pf_ilu_mul(bs, a, di, t);
    pf_ilu_mul_sub(bs, t, back, s);
  }
  pf_real inv[4];
  const int ok = pf_ilu_invert(bs, s, inv);
  pf_ilu_store(bs, inv, dinv + L * b2);
  return ok;
}

/* Forward sweep, colour 0, at entry L of the extent (a launch over the whole extent): an active red
   cell's w = dinv r (it has nothing before it), every entry that is no active cell gets 0 (so the
   later sweeps read zeros there, and z holds 0 off the unknowns), active black cells are left to
   pf_ilu_s7_lower1. */
PF_TEMPLATE PF_FN void pf_ilu_s7_lower0(int bs, PF_GLOBAL const int* active, PF_GLOBAL const pf_real* dinv,
                                        PF_GLOBAL const pf_real* r, PF_GLOBAL pf_real* z, pf_box3 b, long L) {
  long i, j, k;
  const int cell = pf_ilu_s7_cell(b, L, &i, &j, &k) && active[L];
  if (cell && pf_rb_colour(i, j, k) == 1) return;
  pf_real x[2] = {0, 0}, y[2] = {0, 0};
  if (cell) {
    for (int u = 0; u < bs; ++u) x[u] = r[L * bs + u];
    pf_ilu_mv(bs, dinv + L * bs * bs, x, y);
  }
  for (int u = 0; u < bs; ++u) z[L * bs + u] = y[u];
}

/* Forward sweep, colour 1, at black cell (i, j, k): w = dinv (r - sum_N A_LN w_N). A black cell's w
   is its final z (nothing comes after it), so `sum`, where given, gains it: the caller's z += ILU r
   without a launch of its own. */
PF_TEMPLATE PF_FN void pf_ilu_s7_lower1(int bs, PF_GLOBAL const pf_real* coef, PF_GLOBAL const int* active,
                                        PF_GLOBAL const pf_real* dinv, PF_GLOBAL const pf_real* r, PF_GLOBAL pf_real* z,
                                        PF_GLOBAL pf_real* sum, pf_box3 b, long E, long i, long j, long k) {
  const long L = pf_box_at(b, i, j, k), b2 = bs * bs;
  if (!active[L]) return;
  pf_real acc[2], y[2];
  for (int u = 0; u < bs; ++u) acc[u] = r[L * bs + u];
  for (int q = 1; q < 7; ++q)
    if (pf_ilu_s7_inside(b, q, i, j, k)) pf_ilu_mv_sub(bs, coef + (q * E + L) * b2, z + (L + pf_ilu_s7_step(b, q)) * bs, acc);
  pf_ilu_mv(bs, dinv + L * b2, acc, y);
  for (int u = 0; u < bs; ++u) z[L * bs + u] = y[u];
  if (sum)
    for (int u = 0; u < bs; ++u) sum[L * bs + u] += y[u];
}

/* Backward sweep, colour 0, at red cell (i, j, k): z = w - dinv sum_N A_LN z_N (the black cells,
   last in the order, have no later neighbours: their z is their w); `sum`, where given, gains the
   final z */
PF_TEMPLATE PF_FN void pf_ilu_s7_upper0(int bs, PF_GLOBAL const pf_real* coef, PF_GLOBAL const int* active,
                                        PF_GLOBAL const pf_real* dinv, PF_GLOBAL pf_real* z, PF_GLOBAL pf_real* sum,
                                        pf_box3 b, long E, long i, long j, long k) {
  const long L = pf_box_at(b, i, j, k), b2 = bs * bs;
  if (!active[L]) return;
  pf_real acc[2] = {0, 0}, y[2];
  for (int q = 1; q < 7; ++q)
    if (pf_ilu_s7_inside(b, q, i, j, k)) pf_ilu_mv_sub(bs, coef + (q * E + L) * b2, z + (L + pf_ilu_s7_step(b, q)) * bs, acc);
  pf_ilu_mv(bs, dinv + L * b2, acc, y);
  for (int u = 0; u < bs; ++u) {
    const pf_real v = z[L * bs + u] + y[u];
    z[L * bs + u] = v;
    if (sum) sum[L * bs + u] += v;
  }
}

/* ---- block CSR in a colouring of its graph ----------------------------------------------------
   A's arrays (core/linalg/csr.hpp: ptr, col, val) and the plan of core/kernels/ilu.hpp: order (the
   rows by colour), ent (per row, the positions of its entries: those before the diagonal in the
   colour order sorted by (colour, column), the diagonal at dpos[i], then those after it by column).
   Rows of one colour are not coupled, so a colour's rows are independent. */

/* the position of column c in col[lo, hi) (increasing), or -1 */
PF_FN int pf_ilu_find(PF_GLOBAL const int* col, int lo, int hi, int c) {
  const int end = hi;
  while (lo < hi) {
    const int mid = (lo + hi) >> 1;
    if (col[mid] < c) lo = mid + 1;
    else hi = mid;
  }
  return lo < end && col[lo] == c ? lo : -1;
}

/* ILU(0) of row i: lu's row is A's, then for each k before i (in elimination order: colour, then
   column) l = lu_ik D_k^-1 and lu_ij -= l lu_kj for every j after k in both rows (a merge of row k's
   later entries, by column, with row i's); dinv_i = the resulting diagonal's inverse. Rows before i
   are final (earlier colours). Returns 0 on a bad pivot. */
PF_TEMPLATE PF_FN int pf_ilu_csr_factor_ilu0(int bs, PF_GLOBAL const int* ptr, PF_GLOBAL const int* col,
                                             PF_GLOBAL const pf_real* val, PF_GLOBAL const int* ent,
                                             PF_GLOBAL const int* dpos, PF_GLOBAL pf_real* lu, PF_GLOBAL pf_real* dinv,
                                             int i) {
  const int b2 = bs * bs, p0 = ptr[i], p1 = ptr[i + 1], di = dpos[i];
  for (long e = (long)p0 * b2; e < (long)p1 * b2; ++e) lu[e] = val[e];
  for (int q = p0; q < di; ++q) {
    const int p = ent[q], k = col[p];
    pf_real a[4], dk[4], l[4];
    pf_ilu_load(bs, lu + (long)p * b2, a);
    pf_ilu_load(bs, dinv + (long)k * b2, dk);
    pf_ilu_mul(bs, a, dk, l);
    int at = p0;
    for (int s = dpos[k] + 1; s < ptr[k + 1]; ++s) {
      const int pk = ent[s], c = col[pk];
      while (at < p1 && col[at] < c) ++at;
      if (at == p1) break;
      if (col[at] != c) continue;
      pf_real u[4], x[4];
      pf_ilu_load(bs, lu + (long)pk * b2, u);
      pf_ilu_load(bs, lu + (long)at * b2, x);
      pf_ilu_mul_sub(bs, l, u, x);
      pf_ilu_store(bs, x, lu + (long)at * b2);
    }
  }
  pf_real d[4], inv[4];
  pf_ilu_load(bs, lu + (long)ent[di] * b2, d);
  const int ok = pf_ilu_invert(bs, d, inv);
  pf_ilu_store(bs, inv, dinv + (long)i * b2);
  return ok;
}

/* DILU of row i: dinv_i = (A_ii - sum_k A_ik D_k^-1 A_ki)^-1 over the k before i (A_ki found by a
   binary search of row k; absent: no term). Returns 0 on a bad pivot. */
PF_TEMPLATE PF_FN int pf_ilu_csr_factor_dilu(int bs, PF_GLOBAL const int* ptr, PF_GLOBAL const int* col,
                                             PF_GLOBAL const pf_real* val, PF_GLOBAL const int* ent,
                                             PF_GLOBAL const int* dpos, PF_GLOBAL pf_real* dinv, int i) {
  const int b2 = bs * bs, di = dpos[i];
  pf_real s[4];
  pf_ilu_load(bs, val + (long)ent[di] * b2, s);
  for (int q = ptr[i]; q < di; ++q) {
    const int p = ent[q], k = col[p];
    const int pk = pf_ilu_find(col, ptr[k], ptr[k + 1], i);
    if (pk < 0) continue;
    pf_real a[4], dk[4], back[4], t[4];
    pf_ilu_load(bs, val + (long)p * b2, a);
    pf_ilu_load(bs, dinv + (long)k * b2, dk);
    pf_ilu_load(bs, val + (long)pk * b2, back);
    pf_ilu_mul(bs, a, dk, t);
    pf_ilu_mul_sub(bs, t, back, s);
  }
  pf_real inv[4];
  const int ok = pf_ilu_invert(bs, s, inv);
  pf_ilu_store(bs, inv, dinv + (long)i * b2);
  return ok;
}

/* Forward sweep at row i: z_i = dinv_i (r_i - sum_k V_ik z_k) over the entries before the diagonal
   (V: lu for ILU(0), A's values for DILU). `sum`, where given (the last colour's launch, whose z is
   final), gains z_i. */
PF_TEMPLATE PF_FN void pf_ilu_csr_lower(int bs, PF_GLOBAL const int* ptr, PF_GLOBAL const int* col,
                                        PF_GLOBAL const pf_real* v, PF_GLOBAL const int* ent, PF_GLOBAL const int* dpos,
                                        PF_GLOBAL const pf_real* dinv, PF_GLOBAL const pf_real* r, PF_GLOBAL pf_real* z,
                                        PF_GLOBAL pf_real* sum, int i) {
  const int b2 = bs * bs;
  pf_real acc[2], y[2];
  for (int u = 0; u < bs; ++u) acc[u] = r[(long)i * bs + u];
  for (int q = ptr[i]; q < dpos[i]; ++q) {
    const int p = ent[q];
    pf_ilu_mv_sub(bs, v + (long)p * b2, z + (long)col[p] * bs, acc);
  }
  pf_ilu_mv(bs, dinv + (long)i * b2, acc, y);
  for (int u = 0; u < bs; ++u) z[(long)i * bs + u] = y[u];
  if (sum)
    for (int u = 0; u < bs; ++u) sum[(long)i * bs + u] += y[u];
}

/* Backward sweep at row i: z_i -= dinv_i sum_j V_ij z_j over the entries after the diagonal; `sum`,
   where given, gains the final z_i */
PF_TEMPLATE PF_FN void pf_ilu_csr_upper(int bs, PF_GLOBAL const int* ptr, PF_GLOBAL const int* col,
                                        PF_GLOBAL const pf_real* v, PF_GLOBAL const int* ent, PF_GLOBAL const int* dpos,
                                        PF_GLOBAL const pf_real* dinv, PF_GLOBAL pf_real* z, PF_GLOBAL pf_real* sum, int i) {
  const int b2 = bs * bs;
  pf_real acc[2] = {0, 0}, y[2];
  for (int q = dpos[i] + 1; q < ptr[i + 1]; ++q) {
    const int p = ent[q];
    pf_ilu_mv_sub(bs, v + (long)p * b2, z + (long)col[p] * bs, acc);
  }
  pf_ilu_mv(bs, dinv + (long)i * b2, acc, y);
  for (int u = 0; u < bs; ++u) {
    const pf_real x = z[(long)i * bs + u] + y[u];
    z[(long)i * bs + u] = x;
    if (sum) sum[(long)i * bs + u] += x;
  }
}

PF_NAMESPACE_END

#endif
