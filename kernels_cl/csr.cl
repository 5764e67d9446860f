/* csr: block-CSR products and diagonals (twin: kernels_cu/csr.cu; contracts in core/kernels/csr.hpp).
   The program's defines: PF_CSR_B, the block (1 or 2), PF_CSR_LANES, the work-items summing one
   row (1, 2, ..., 32; a power of two dividing PF_BLOCK), and PF_CSR_CHEB: 1 makes the product
   kernel csr_chebyshev, a Chebyshev step of a scalar matrix, in place of csr_spmv. */
#include "core/base/converge.h"
#include "core/physics/amg.h"
#include "core/physics/csr.h"

#ifndef PF_CSR_CHEB
#define PF_CSR_CHEB 0
#endif

#if PF_DOUBLE
#define PF_CSR_REAL2 double2
#define PF_CSR_REAL4 double4
#else
#define PF_CSR_REAL2 float2
#define PF_CSR_REAL4 float4
#endif

#if PF_CSR_LANES > 1 && defined(PF_NV_PTX)
/* a down shuffle inside segments of PF_CSR_LANES lanes of the warp (the c operand's segment mask,
   as CUDA's __shfl_down_sync(mask, v, off, width) builds it) */
uint pf_csr_shfl_u32(uint v, uint off) {
  uint r;
  const uint c = ((32u - PF_CSR_LANES) << 8) | 0x1fu;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, %3, 0xffffffff;" : "=r"(r) : "r"(v), "r"(off), "r"(c));
  return r;
}
#if PF_DOUBLE
pf_real pf_csr_shfl(pf_real v, uint off) {
  const uint2 u = as_uint2(v);
  return as_double((uint2)(pf_csr_shfl_u32(u.x, off), pf_csr_shfl_u32(u.y, off)));
}
#else
pf_real pf_csr_shfl(pf_real v, uint off) { return as_float(pf_csr_shfl_u32(as_uint(v), off)); }
#endif
#endif

/* y = alpha A x + beta z (z null: not read; z may be y). PF_CSR_LANES work-items per row: lane l
   takes the row's entries l, l + LANES, ... (contiguous loads across the lanes), then a reduction
   inside the segment leaves the sum in lane 0: shuffles on NVIDIA, local memory elsewhere. Every
   work-item reaches the reduction, rows past the end with zero sums. */
#if PF_CSR_CHEB
/* A Chebyshev step (core/kernels/csr.hpp, CsrChebyshevArgs): the row's sum as csr_spmv makes it,
   then in lane 0 the residual, the direction and the new iterate. From zero (start), x's entries
   are start D^-1 b's, and with r the step stops at the residual. */
PF_KERNEL void csr_chebyshev(long rows, __global const int* ptr, __global const int* col, __global const pf_real* val,
                             __global const pf_real* x, __global const pf_real* b, __global const pf_real* dinv,
                             __global pf_real* d, __global pf_real* x_out, __global pf_real* r, pf_real alpha,
                             pf_real beta, pf_real start, __global const ulong* guard) {
#else
PF_KERNEL void csr_spmv(long rows, __global const int* ptr, __global const int* col, __global const pf_real* val,
                        __global const pf_real* x, pf_real alpha, pf_real beta, __global const pf_real* z,
                        __global pf_real* y, __global const ulong* guard) {
#endif
  if (guard && !pf_cv_running(guard)) return; /* the same word for every work-item */
  const long t = get_global_id(0);
  const long row = t / PF_CSR_LANES;
  const int lane = (int)(t % PF_CSR_LANES);
  pf_real s0 = 0, s1 = 0;
  if (row < rows) {
    const int k1 = ptr[row + 1];
    for (int k = ptr[row] + lane; k < k1; k += PF_CSR_LANES) {
      const long c = col[k];
#if PF_CSR_CHEB
      s0 += val[k] * (start != 0 ? start * dinv[c] * b[c] : x[c]);
#elif PF_CSR_B == 1
      s0 += val[k] * x[c];
#else
      const PF_CSR_REAL4 m = vload4((size_t)k, val);
      const PF_CSR_REAL2 xv = vload2((size_t)c, x);
      s0 += m.x * xv.x + m.y * xv.y;
      s1 += m.z * xv.x + m.w * xv.y;
#endif
    }
  }
#if PF_CSR_LANES > 1
#if defined(PF_NV_PTX)
  for (uint off = PF_CSR_LANES / 2; off > 0; off >>= 1) {
    s0 += pf_csr_shfl(s0, off);
#if PF_CSR_B == 2
    s1 += pf_csr_shfl(s1, off);
#endif
  }
#else
  __local pf_real l0[PF_BLOCK];
#if PF_CSR_B == 2
  __local pf_real l1[PF_BLOCK];
#endif
  const int lid = (int)get_local_id(0);
  l0[lid] = s0;
#if PF_CSR_B == 2
  l1[lid] = s1;
#endif
  barrier(CLK_LOCAL_MEM_FENCE);
  for (int off = PF_CSR_LANES / 2; off > 0; off >>= 1) {
    if (lane < off) {
      l0[lid] += l0[lid + off];
#if PF_CSR_B == 2
      l1[lid] += l1[lid + off];
#endif
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  s0 = l0[lid];
#if PF_CSR_B == 2
  s1 = l1[lid];
#endif
#endif
#endif
  if (row >= rows || lane != 0) return;
#if PF_CSR_CHEB
  const pf_real xi = start != 0 ? start * dinv[row] * b[row] : x[row];
  if (r) {
    r[row] = b[row] - s0;
    d[row] = xi;
    x_out[row] = xi;
    return;
  }
  const pf_real dn = amg_cheb_direction(alpha, start != 0 ? xi : d[row], beta, dinv[row], b[row] - s0);
  d[row] = dn;
  x_out[row] = xi + dn;
#elif PF_CSR_B == 1
  y[row] = z ? alpha * s0 + beta * z[row] : alpha * s0;
#else
  if (z) {
    const pf_real z0 = z[2 * row], z1 = z[2 * row + 1]; /* z may be y */
    y[2 * row] = alpha * s0 + beta * z0;
    y[2 * row + 1] = alpha * s1 + beta * z1;
  } else {
    y[2 * row] = alpha * s0;
    y[2 * row + 1] = alpha * s1;
  }
#endif
}

/* the setup kernels: a row (or an entry) per work-item */

PF_KERNEL void csr_diag_inv(long rows, __global const int* ptr, __global const int* col, __global const pf_real* val,
                            __global pf_real* dinv, __global int* bad, __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  const long i = get_global_id(0);
  if (i >= rows) return;
  __global pf_real* out = dinv + i * (PF_CSR_B * PF_CSR_B);
  const int k0 = ptr[i], k1 = ptr[i + 1];
  const int k = k0 == k1 ? -1 : pf_csr_find(col, k0, k1, (int)i);
  int singular = k0 != k1 && k < 0;
  if (k < 0) {
    for (int e = 0; e < PF_CSR_B * PF_CSR_B; ++e) out[e] = 0;
  } else {
#if PF_CSR_B == 1
    singular = pf_csr_inv1(val[k], out);
#else
    __global const pf_real* d = val + 4 * (long)k;
    singular = pf_csr_inv2(d[0], d[1], d[2], d[3], out);
#endif
  }
  /* ~row: the largest word is the first row */
  if (singular) atomic_max((volatile __global uint*)bad, ~(uint)i);
}

PF_KERNEL void csr_dinv_bound(long rows, __global const int* ptr, __global const pf_real* val, __global const pf_real* dinv,
                              __global pf_real* out, __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  const long i = get_global_id(0);
  if (i >= rows) return;
#if PF_CSR_B == 1
  out[i] = pf_csr_bound1(dinv[i], val, ptr[i], ptr[i + 1]);
#else
  out[2 * i] = pf_csr_bound2(dinv + 4 * i, val, ptr[i], ptr[i + 1], 0);
  out[2 * i + 1] = pf_csr_bound2(dinv + 4 * i, val, ptr[i], ptr[i + 1], 1);
#endif
}

PF_KERNEL void csr_gather(long nnz, __global const long* map, __global const pf_real* src, __global pf_real* val,
                          __global const ulong* guard) {
  if (guard && !pf_cv_running(guard)) return;
  const long k = get_global_id(0);
  if (k >= nnz) return;
  const long from = map[k] * (PF_CSR_B * PF_CSR_B);
  for (int e = 0; e < PF_CSR_B * PF_CSR_B; ++e) val[k * (PF_CSR_B * PF_CSR_B) + e] = src[from + e];
}
