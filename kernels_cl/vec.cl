/* vec: the Krylov solvers' vector kernels (twin: kernels_cu/vec.cu; core/kernels/vec.hpp has the
   contracts). Element-wise kernels take one element per work-item; the kernels that reduce run a
   persistent grid (the host picks the groups) that strides over the vectors and combines in the
   last group (kernels_cl/last_group.cl). Every kernel returns at once when its guard says stop. */
#include "core/base/converge.h"
#include "core/physics/vec.h"
#include "kernels_cl/last_group.cl"

#define PF_VEC_U 8 /* basis vectors a multi_dot pass reads */

int pf_vec_stopped(__global const ulong* guard) { return guard && !pf_cv_running(guard); }

PF_KERNEL void vec_dot(ulong n, __global const pf_real* x1, __global const pf_real* y1, __global const pf_real* x2,
                       __global const pf_real* y2, __global pf_real* s, int slot1, int slot2, __global const ulong* guard,
                       __global pf_real* partials, __global uint* counter) {
  __local pf_real red[PF_BLOCK];
  __local int last;
  const int run = !pf_vec_stopped(guard), two = x2 != 0;
  const size_t m = run ? n : 0;
  pf_real a0 = 0, a1 = 0;
  for (size_t i = get_global_id(0); i < m; i += get_global_size(0)) {
    a0 += x1[i] * y1[i];
    if (two) a1 += x2[i] * y2[i];
  }
  pf_partial_sum(a0, partials, 0, red);
  pf_partial_sum(a1, partials, 1, red);
  if (pf_last_group(counter, &last)) {
    const pf_real r0 = pf_final_sum(partials, 0, red);
    const pf_real r1 = pf_final_sum(partials, 1, red);
    if (pf_is_leader() && run) {
      s[slot1] = r0;
      if (two) s[slot2] = r1;
    }
    pf_last_group_done(counter);
  }
}

/* a pass of PF_VEC_U basis vectors: the host sizes the partials for whole passes */
PF_KERNEL void vec_multi_dot(ulong n, __global const pf_real* v, ulong v_at, ulong ldv, int count, __global const pf_real* w,
                             __global pf_real* s, int slot, __global const ulong* guard, __global pf_real* partials,
                             __global uint* counter) {
  __local pf_real red[PF_BLOCK];
  __local int last;
  const int run = !pf_vec_stopped(guard);
  const size_t m = run ? n : 0;
  v += v_at;
  for (int q0 = 0; q0 < count; q0 += PF_VEC_U) {
    const int un = min(count - q0, PF_VEC_U);
    pf_real acc[PF_VEC_U];
    for (int u = 0; u < PF_VEC_U; ++u) acc[u] = 0;
    __global const pf_real* vq = v + (size_t)q0 * ldv;
    for (size_t i = get_global_id(0); i < m; i += get_global_size(0)) {
      const pf_real wi = w[i];
#pragma unroll
      for (int u = 0; u < PF_VEC_U; ++u)
        if (u < un) acc[u] += vq[u * ldv + i] * wi;
    }
    for (int u = 0; u < PF_VEC_U; ++u) pf_partial_sum(acc[u], partials, q0 + u, red);
  }
  if (pf_last_group(counter, &last)) {
    for (int q = 0; q < count; ++q) {
      const pf_real r = pf_final_sum(partials, q, red);
      if (pf_is_leader() && run) s[slot + q] = r;
    }
    pf_last_group_done(counter);
  }
}

PF_KERNEL void vec_axpby(ulong n, pf_real a, long a_slots, __global const pf_real* x, pf_real b, long b_slots,
                         __global pf_real* y, __global const pf_real* s, __global const ulong* guard) {
  if (pf_vec_stopped(guard)) return;
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const pf_real ca = pf_coef_value(s, a, a_slots);
  pf_real v = ca * x[i];
  if (!pf_coef_is_zero(b, b_slots)) v += pf_coef_value(s, b, b_slots) * y[i];
  y[i] = v;
}

PF_KERNEL void vec_axpbypcz(ulong n, pf_real a, long a_slots, __global const pf_real* x, pf_real b, long b_slots,
                            __global const pf_real* y, pf_real c, long c_slots, __global pf_real* z,
                            __global const pf_real* s, __global const ulong* guard) {
  if (pf_vec_stopped(guard)) return;
  const size_t i = get_global_id(0);
  if (i >= n) return;
  pf_real v = pf_coef_value(s, a, a_slots) * x[i];
  if (!pf_coef_is_zero(b, b_slots)) v += pf_coef_value(s, b, b_slots) * y[i];
  if (!pf_coef_is_zero(c, c_slots)) v += pf_coef_value(s, c, c_slots) * z[i];
  z[i] = v;
}

/* y1 and y2 over work-item's elements [i0, n) stepping by st; the dots of the new y2 into *dwy, *dyy */
void pf_update2(ulong n, size_t i0, size_t st, pf_real a1, long a1_slots, __global const pf_real* x1, pf_real b1,
                long b1_slots, __global pf_real* y1, pf_real a2, long a2_slots, __global const pf_real* x2, pf_real b2,
                long b2_slots, __global pf_real* y2, __global const pf_real* w, __global const pf_real* s, int wy, int yy,
                pf_real* dwy, pf_real* dyy) {
  const pf_real ca1 = pf_coef_value(s, a1, a1_slots), cb1 = pf_coef_value(s, b1, b1_slots);
  const pf_real ca2 = pf_coef_value(s, a2, a2_slots), cb2 = pf_coef_value(s, b2, b2_slots);
  const int r1 = !pf_coef_is_zero(b1, b1_slots), r2 = !pf_coef_is_zero(b2, b2_slots);
  for (size_t i = i0; i < n; i += st) {
    y1[i] = r1 ? ca1 * x1[i] + cb1 * y1[i] : ca1 * x1[i];
    const pf_real v = r2 ? ca2 * x2[i] + cb2 * y2[i] : ca2 * x2[i];
    y2[i] = v;
    if (wy) *dwy += w[i] * v;
    if (yy) *dyy += v * v;
  }
}

#define PF_UPDATE2_PARAMS                                                                                            \
  ulong n, pf_real a1, long a1_slots, __global const pf_real *x1, pf_real b1, long b1_slots, __global pf_real *y1, \
      pf_real a2, long a2_slots, __global const pf_real *x2, pf_real b2, long b2_slots, __global pf_real *y2,        \
      __global const pf_real *w, __global pf_real *s, int slot_wy, int slot_yy, __global const ulong *guard,         \
      __global pf_real *partials, __global uint *counter

/* without dots: one element per work-item, no reduction */
PF_KERNEL void vec_update2(PF_UPDATE2_PARAMS) {
  if (pf_vec_stopped(guard)) return;
  pf_real dwy = 0, dyy = 0;
  pf_update2(n, get_global_id(0), get_global_size(0), a1, a1_slots, x1, b1, b1_slots, y1, a2, a2_slots, x2, b2, b2_slots,
             y2, w, s, 0, 0, &dwy, &dyy);
}

PF_KERNEL void vec_update2_dots(PF_UPDATE2_PARAMS) {
  __local pf_real red[PF_BLOCK];
  __local int last;
  const int run = !pf_vec_stopped(guard), wy = slot_wy >= 0, yy = slot_yy >= 0;
  pf_real dwy = 0, dyy = 0;
  pf_update2(run ? n : 0, get_global_id(0), get_global_size(0), a1, a1_slots, x1, b1, b1_slots, y1, a2, a2_slots, x2, b2,
             b2_slots, y2, w, s, wy, yy, &dwy, &dyy);
  pf_partial_sum(dwy, partials, 0, red);
  pf_partial_sum(dyy, partials, 1, red);
  if (pf_last_group(counter, &last)) {
    const pf_real rwy = pf_final_sum(partials, 0, red);
    const pf_real ryy = pf_final_sum(partials, 1, red);
    if (pf_is_leader() && run) {
      if (wy) s[slot_wy] = rwy;
      if (yy) s[slot_yy] = ryy;
    }
    pf_last_group_done(counter);
  }
}

/* y += c sum_q s[slot + q] V_q over the work-item's elements; returns the sum of the new y^2 */
pf_real pf_multi_axpy(ulong n, size_t i0, size_t st, __global const pf_real* v, ulong ldv, int count, int count_slot,
                      pf_real c, int slot, __global pf_real* y, __global const pf_real* s) {
  if (count_slot >= 0) {
    const pf_real k = s[count_slot];
    count = k > 0 ? min(count, (int)k) : 0;
  }
  pf_real nn = 0;
  for (size_t i = i0; i < n; i += st) {
    pf_real yi = y[i];
    for (int q = 0; q < count; ++q) yi += c * s[slot + q] * v[(size_t)q * ldv + i];
    y[i] = yi;
    nn += yi * yi;
  }
  return nn;
}

#define PF_MULTI_AXPY_PARAMS                                                                                        \
  ulong n, __global const pf_real *v, ulong v_at, ulong ldv, int count, int count_slot, pf_real c, int slot,       \
      __global pf_real *y, __global pf_real *s, int norm_slot, __global const ulong *guard, __global pf_real *partials, \
      __global uint *counter

PF_KERNEL void vec_multi_axpy(PF_MULTI_AXPY_PARAMS) {
  if (pf_vec_stopped(guard)) return;
  pf_multi_axpy(n, get_global_id(0), get_global_size(0), v + v_at, ldv, count, count_slot, c, slot, y, s);
}

PF_KERNEL void vec_multi_axpy_norm(PF_MULTI_AXPY_PARAMS) {
  __local pf_real red[PF_BLOCK];
  __local int last;
  const int run = !pf_vec_stopped(guard);
  const pf_real nn =
      pf_multi_axpy(run ? n : 0, get_global_id(0), get_global_size(0), v + v_at, ldv, count, count_slot, c, slot, y, s);
  pf_partial_sum(nn, partials, 0, red);
  if (pf_last_group(counter, &last)) {
    const pf_real r = pf_final_sum(partials, 0, red);
    if (pf_is_leader() && run) s[norm_slot] = r;
    pf_last_group_done(counter);
  }
}

PF_KERNEL void vec_store(ulong n, pf_real a, long a_slots, __global const pf_real* w, __global pf_real* basis, ulong v_at,
                         __global pf_real* v, __global const pf_real* z, ulong z_at, __global const pf_real* s,
                         __global const ulong* guard) {
  if (pf_vec_stopped(guard)) return;
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const pf_real x = pf_coef_value(s, a, a_slots) * w[i];
  basis[v_at + i] = x;
  if (v) v[i] = x;
  if (z) basis[z_at + i] = z[i];
}

PF_KERNEL void vec_diag1(ulong cells, __global const pf_real* d, __global const pf_real* r, __global pf_real* z,
                         __global const ulong* guard) {
  if (pf_vec_stopped(guard)) return;
  const size_t i = get_global_id(0);
  if (i < cells) z[i] = d[i] * r[i];
}

PF_KERNEL void vec_diag2(ulong cells, __global const pf_real* d, __global const pf_real* r, __global pf_real* z,
                         __global const ulong* guard) {
  if (pf_vec_stopped(guard)) return;
  const size_t i = get_global_id(0);
  if (i >= cells) return;
  const pf_real r0 = r[2 * i], r1 = r[2 * i + 1];
  z[2 * i] = d[4 * i] * r0 + d[4 * i + 1] * r1;
  z[2 * i + 1] = d[4 * i + 2] * r0 + d[4 * i + 3] * r1;
}

PF_KERNEL void vec_gather(ulong n, __global const int* map, __global const pf_real* x, __global pf_real* y,
                          __global const ulong* guard) {
  if (pf_vec_stopped(guard)) return;
  const size_t i = get_global_id(0);
  if (i < n) y[i] = x[map[i]];
}

PF_KERNEL void vec_narrow(ulong n, __global const pf_real* x, __global float* y, __global const ulong* guard) {
  if (pf_vec_stopped(guard)) return;
  const size_t i = get_global_id(0);
  if (i < n) y[i] = (float)x[i];
}

PF_KERNEL void vec_widen(ulong n, __global const float* x, __global pf_real* y, __global const ulong* guard) {
  if (pf_vec_stopped(guard)) return;
  const size_t i = get_global_id(0);
  if (i < n) y[i] = (pf_real)x[i];
}

/* the one-work-item kernels (a group of PF_BLOCK is launched; the others do nothing) */
PF_KERNEL void vec_check(__global ulong* ctrl, __global const pf_real* s, __global pf_real* hist, long it, int rr, int ref,
                         long breakdown, pf_real tol2, long max_it) {
  if (get_global_id(0) == 0) pf_kr_check(ctrl, s, hist, it, rr, ref, breakdown, tol2, max_it);
}

PF_KERNEL void vec_gmres_column(__global ulong* ctrl, __global pf_real* s, __global pf_real* hist, long it, int j, int m,
                                int base, int ref, int two_pass, pf_real tol2, long max_it) {
  if (get_global_id(0) == 0) pf_gm_column(ctrl, s, hist, it, j, m, base, ref, two_pass, tol2, max_it);
}

PF_KERNEL void vec_gmres_solve(__global pf_real* s, int m, int base, __global const ulong* guard) {
  if (pf_vec_stopped(guard)) return;
  if (get_global_id(0) == 0) pf_gm_solve(s, m, base);
}

PF_KERNEL void vec_first_nonfinite(ulong n, __global const pf_real* x, __global ulong* word, __global ulong* partials,
                                   __global uint* counter) {
  __local ulong red[PF_BLOCK];
  __local int last;
  ulong first = 0xffffffffffffffffUL;
  for (size_t i = get_global_id(0); i < n; i += get_global_size(0))
    if (!pf_cv_finite(x[i])) {
      first = i; /* the work-item's indices increase: its first is its lowest */
      break;
    }
  pf_launch_min_u64(first, word, partials, counter, red, &last);
}
