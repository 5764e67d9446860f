/* stencil7: the 7-point operator (twin: kernels_cu/stencil7.cu; core/kernels/stencil7.hpp has the
   contracts). One work-item per entry of the box's arrays; PF_S7_BLOCK (1 or 2) is the program's
   block. A 2 x 2 block is one 4-vector load per plane and a cell's two values one 2-vector load
   (through vector pointers: their offsets are multiples of the vector, the buffers' bases aligned
   far beyond it). */
#include "core/base/converge.h"
#include "core/physics/amg.h"
#include "core/physics/stencil7.h"
#include "core/physics/stencil7_sor.h"
#include "kernels_cl/last_group.cl"

#if PF_DOUBLE
typedef double2 pf_real2;
typedef double4 pf_real4;
#else
typedef float2 pf_real2;
typedef float4 pf_real4;
#endif

PF_KERNEL void s7_apply(__global const pf_real* coef, __global const int* active, __global const pf_real* x,
                        __global const pf_real* b, __global pf_real* y, long extent, long sy, long sz,
                        __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  const long L = get_global_id(0);
  if (L >= extent) return;
#if PF_S7_BLOCK == 1
  if (!active[L]) {
    y[L] = 0;
    return;
  }
  pf_real v = coef[L] * x[L];
#pragma unroll
  for (int q = 1; q < 7; ++q) v += coef[q * extent + L] * x[L + pf_s7_offset(q, sy, sz)];
  y[L] = b ? b[L] - v : v;
#else
  __global pf_real2* y2 = (__global pf_real2*)y;
  if (!active[L]) {
    y2[L] = (pf_real2)(0, 0);
    return;
  }
  __global const pf_real4* c4 = (__global const pf_real4*)coef;
  __global const pf_real2* x2 = (__global const pf_real2*)x;
  pf_real2 v = (pf_real2)(0, 0);
#pragma unroll
  for (int q = 0; q < 7; ++q) {
    const pf_real4 k = c4[q * extent + L];
    const pf_real2 xn = x2[L + (q == 0 ? 0 : pf_s7_offset(q, sy, sz))];
    v.x += k.x * xn.x + k.y * xn.y;
    v.y += k.z * xn.x + k.w * xn.y;
  }
  y2[L] = b ? ((__global const pf_real2*)b)[L] - v : v;
#endif
}

#if PF_S7_BLOCK == 1
/* one Chebyshev step (core/kernels/stencil7.hpp): apply's residual, the direction, the new iterate.
   From zero (start), x's entries are start D^-1 b's, and with r the step stops at the residual. */
PF_KERNEL void s7_chebyshev(__global const pf_real* coef, __global const int* active, __global const pf_real* dinv,
                            __global const pf_real* b, __global const pf_real* x, __global pf_real* d,
                            __global pf_real* x_out, __global pf_real* r, pf_real alpha, pf_real beta, pf_real start,
                            long extent, long sy, long sz, __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  const long L = get_global_id(0);
  if (L >= extent) return;
  if (!active[L]) {
    d[L] = 0;
    x_out[L] = 0;
    if (r) r[L] = 0;
    return;
  }
  pf_real v = 0, xi;
  if (start != 0) {
    xi = start * dinv[L] * b[L];
    v = coef[L] * xi;
#pragma unroll
    for (int q = 1; q < 7; ++q) {
      const long n = L + pf_s7_offset(q, sy, sz);
      v += coef[q * extent + L] * (start * dinv[n] * b[n]);
    }
  } else {
    xi = x[L];
    v = coef[L] * xi;
#pragma unroll
    for (int q = 1; q < 7; ++q) v += coef[q * extent + L] * x[L + pf_s7_offset(q, sy, sz)];
  }
  if (r) {
    r[L] = b[L] - v;
    d[L] = xi;
    x_out[L] = xi;
    return;
  }
  const pf_real dn = amg_cheb_direction(alpha, start != 0 ? xi : d[L], beta, dinv[L], b[L] - v);
  d[L] = dn;
  x_out[L] = xi + dn;
}
#endif

PF_KERNEL void s7_invert(__global const pf_real* coef, __global const int* active, __global pf_real* dinv, long extent,
                         __global ulong* status, __global ulong* partials, __global uint* counter) {
  __local ulong red[PF_BLOCK];
  __local int last;
  ulong first = PF_S7_NONE;
  for (long L = get_global_id(0); L < extent; L += get_global_size(0)) {
#if PF_S7_BLOCK == 1
    const int st = active[L] ? pf_s7_status1(coef[L]) : -1;
    dinv[L] = active[L] && st < 0 ? (pf_real)1 / coef[L] : (pf_real)0;
#else
    const pf_real4 k = ((__global const pf_real4*)coef)[L];
    const int st = active[L] ? pf_s7_status2(k.x, k.y, k.z, k.w) : -1;
    const pf_real det = pf_s7_det2(k.x, k.y, k.z, k.w);
    const int ok = active[L] && st < 0;
    pf_real4 d = (pf_real4)(0, 0, 0, 0);
    if (ok) d = (pf_real4)(pf_s7_inv2(k.x, k.y, k.z, k.w, det, 0), pf_s7_inv2(k.x, k.y, k.z, k.w, det, 1),
                           pf_s7_inv2(k.x, k.y, k.z, k.w, det, 2), pf_s7_inv2(k.x, k.y, k.z, k.w, det, 3));
    ((__global pf_real4*)dinv)[L] = d;
#endif
    if (st >= 0 && first == PF_S7_NONE) first = (ulong)L * 4 + (ulong)st; /* L increases: the first is the lowest */
  }
  pf_launch_min_u64(first, status, partials, counter, red, &last);
}

PF_KERNEL void s7_from_sor(pf_box3 b, long cells, __global const pf_real* rb, __global const pf_real* scale,
                           __global pf_real* coef, __global pf_real* rhs, long extent) {
  const long c = get_global_id(0);
  if (c < cells) pf_s7_from_sor_cell(b, c, rb, scale, coef, rhs, extent);
}
