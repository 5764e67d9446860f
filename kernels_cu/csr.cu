// The csr family (twin: kernels_cl/csr.cl): block-CSR products, a row per thread or per group of
// lanes of a warp (core/kernels/csr.hpp, csr_lanes), and the diagonal's inverse and bound.
#include "core/base/converge.h"
#include "core/physics/amg.h"
#include "core/physics/csr.h"
#include "kernels_cu/csr.cuh"

namespace poreflow::cu {
namespace {

// a 2 x 2 block in one load (16 bytes of float, 2 x 16 of double), and a pair of x
template <class T>
struct Block2 {
  T v0, v1, v2, v3;
};
__device__ inline Block2<float> load_block2(const float* p) {
  const float4 q = *reinterpret_cast<const float4*>(p);
  return {q.x, q.y, q.z, q.w};
}
__device__ inline Block2<double> load_block2(const double* p) {
  const double2 a = reinterpret_cast<const double2*>(p)[0], b = reinterpret_cast<const double2*>(p)[1];
  return {a.x, a.y, b.x, b.y};
}
__device__ inline float2 load_pair(const float* p) { return *reinterpret_cast<const float2*>(p); }
__device__ inline double2 load_pair(const double* p) { return *reinterpret_cast<const double2*>(p); }

// x's entries as a product reads them: stored, or (a Chebyshev step from zero) start D^-1 b
template <class T>
struct XStored {
  const T* __restrict__ x;
  __device__ T operator()(long c) const { return x[c]; }
};
template <class T>
struct XFromZero {
  const T* __restrict__ b;
  const T* __restrict__ dinv;
  T start;
  __device__ T operator()(long c) const { return start * dinv[c] * b[c]; }
};

// L lanes (a power of two, at most 32, aligned inside a warp) sum a row: lane l takes the row's
// entries l, l + L, ... so that the group's loads of val and col are contiguous; a shuffle tree
// leaves the sum in lane 0. Threads past the last row take part in the shuffles with zero sums.
// A scalar row reads x through xs; 2 x 2 blocks read pairs of x.
template <class T, int B, int L, class XS>
__device__ inline void row_sum(long rows, long row, int lane, const int* __restrict__ ptr, const int* __restrict__ col,
                               const T* __restrict__ val, const T* __restrict__ x, const XS& xs, T& s0, T& s1) {
  s0 = 0;
  s1 = 0;
  if (row < rows) {
    const int k1 = ptr[row + 1];
    for (int k = ptr[row] + lane; k < k1; k += L) {
      const long c = col[k];
      if constexpr (B == 1) {
        s0 += val[k] * xs(c);
      } else {
        const Block2<T> m = load_block2(val + 4 * static_cast<long>(k));
        const auto xv = load_pair(x + 2 * c);
        s0 += m.v0 * xv.x + m.v1 * xv.y;
        s1 += m.v2 * xv.x + m.v3 * xv.y;
      }
    }
  }
  if constexpr (L > 1) {
#pragma unroll
    for (int off = L / 2; off > 0; off /= 2) {
      s0 += __shfl_down_sync(0xffffffffu, s0, off, L);
      if constexpr (B == 2) s1 += __shfl_down_sync(0xffffffffu, s1, off, L);
    }
  }
}

template <class T, int B, int L>
__global__ void __launch_bounds__(kCsrThreads)
    csr_spmv_kernel(long rows, const int* __restrict__ ptr, const int* __restrict__ col, const T* __restrict__ val,
                    const T* __restrict__ x, T alpha, T beta, const T* z, T* y, const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;  // the same word for every thread: no shuffle is left waiting
  const long t = static_cast<long>(blockIdx.x) * kCsrThreads + threadIdx.x;
  const long row = t / L;
  const int lane = static_cast<int>(t % L);
  T s0, s1;
  row_sum<T, B, L>(rows, row, lane, ptr, col, val, x, XStored<T>{x}, s0, s1);
  if (row >= rows || lane != 0) return;
  if constexpr (B == 1) {
    y[row] = z ? alpha * s0 + beta * z[row] : alpha * s0;
  } else {
    if (z) {
      const T z0 = z[2 * row], z1 = z[2 * row + 1];  // z may be y
      y[2 * row] = alpha * s0 + beta * z0;
      y[2 * row + 1] = alpha * s1 + beta * z1;
    } else {
      y[2 * row] = alpha * s0;
      y[2 * row + 1] = alpha * s1;
    }
  }
}

// One Chebyshev step of a scalar matrix (CsrChebyshevArgs): apply's row sum, then in lane 0 the
// residual, the direction and the new iterate. FROM_ZERO: x's entries are start D^-1 b's, and
// with r the step stops at the residual.
template <class T, int L, bool FROM_ZERO>
__global__ void __launch_bounds__(kCsrThreads)
    csr_chebyshev_kernel(long rows, const int* __restrict__ ptr, const int* __restrict__ col, const T* __restrict__ val,
                         const T* __restrict__ x, const T* __restrict__ b, const T* __restrict__ dinv, T* __restrict__ d,
                         T* __restrict__ x_out, T* __restrict__ r, T alpha, T beta, T start,
                         const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const long t = static_cast<long>(blockIdx.x) * kCsrThreads + threadIdx.x;
  const long row = t / L;
  const int lane = static_cast<int>(t % L);
  T s0, s1;
  if constexpr (FROM_ZERO) row_sum<T, 1, L>(rows, row, lane, ptr, col, val, x, XFromZero<T>{b, dinv, start}, s0, s1);
  else row_sum<T, 1, L>(rows, row, lane, ptr, col, val, x, XStored<T>{x}, s0, s1);
  if (row >= rows || lane != 0) return;
  const T xi = FROM_ZERO ? start * dinv[row] * b[row] : x[row];
  if (FROM_ZERO && r) {
    r[row] = b[row] - s0;
    d[row] = xi;
    x_out[row] = xi;
    return;
  }
  const T dn = phys::amg_cheb_direction<T>(alpha, FROM_ZERO ? xi : d[row], beta, dinv[row], b[row] - s0);
  d[row] = dn;
  x_out[row] = xi + dn;
}

template <class T, int B>
void spmv_lanes(unsigned grid, long rows, const int* ptr, const int* col, const T* val, const T* x, T alpha, T beta,
                const T* z, T* y, const unsigned long long* guard, int lanes, cudaStream_t s) {
  switch (lanes) {
    case 1: csr_spmv_kernel<T, B, 1><<<grid, kCsrThreads, 0, s>>>(rows, ptr, col, val, x, alpha, beta, z, y, guard); break;
    case 2: csr_spmv_kernel<T, B, 2><<<grid, kCsrThreads, 0, s>>>(rows, ptr, col, val, x, alpha, beta, z, y, guard); break;
    case 4: csr_spmv_kernel<T, B, 4><<<grid, kCsrThreads, 0, s>>>(rows, ptr, col, val, x, alpha, beta, z, y, guard); break;
    case 8: csr_spmv_kernel<T, B, 8><<<grid, kCsrThreads, 0, s>>>(rows, ptr, col, val, x, alpha, beta, z, y, guard); break;
    case 16: csr_spmv_kernel<T, B, 16><<<grid, kCsrThreads, 0, s>>>(rows, ptr, col, val, x, alpha, beta, z, y, guard); break;
    default: csr_spmv_kernel<T, B, 32><<<grid, kCsrThreads, 0, s>>>(rows, ptr, col, val, x, alpha, beta, z, y, guard); break;
  }
}

unsigned grid_of(long items) { return static_cast<unsigned>((items + kCsrThreads - 1) / kCsrThreads); }

template <class T, bool FROM_ZERO>
void chebyshev_lanes(long rows, const int* ptr, const int* col, const T* val, const T* x, const T* b, const T* dinv, T* d,
                     T* x_out, T* r, T alpha, T beta, T start, const unsigned long long* guard, int lanes, cudaStream_t s) {
  const unsigned grid = grid_of(rows * lanes);
#define PF_CHEB(L)                                                                                                   \
  csr_chebyshev_kernel<T, L, FROM_ZERO><<<grid, kCsrThreads, 0, s>>>(rows, ptr, col, val, x, b, dinv, d, x_out, r, alpha, \
                                                                      beta, start, guard)
  switch (lanes) {
    case 1: PF_CHEB(1); break;
    case 2: PF_CHEB(2); break;
    case 4: PF_CHEB(4); break;
    case 8: PF_CHEB(8); break;
    case 16: PF_CHEB(16); break;
    default: PF_CHEB(32); break;
  }
#undef PF_CHEB
}

// a row per thread: setup kernels, once per matrix
template <class T, int B>
__global__ void __launch_bounds__(kCsrThreads)
    csr_diag_inv_kernel(long rows, const int* __restrict__ ptr, const int* __restrict__ col, const T* __restrict__ val,
                        T* __restrict__ dinv, int* bad, const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const long i = static_cast<long>(blockIdx.x) * kCsrThreads + threadIdx.x;
  if (i >= rows) return;
  T* out = dinv + i * B * B;
  const int k0 = ptr[i], k1 = ptr[i + 1];
  const int k = k0 == k1 ? -1 : phys::pf_csr_find(col, k0, k1, static_cast<int>(i));
  int singular = k0 != k1 && k < 0;
  if (k < 0) {
    for (int e = 0; e < B * B; ++e) out[e] = T(0);
  } else if constexpr (B == 1) {
    singular = phys::pf_csr_inv1(val[k], out);
  } else {
    const T* d = val + 4 * static_cast<long>(k);
    singular = phys::pf_csr_inv2(d[0], d[1], d[2], d[3], out);
  }
  // ~row: the largest word is the first row
  if (singular) atomicMax(reinterpret_cast<unsigned*>(bad), ~static_cast<unsigned>(i));
}

template <class T, int B>
__global__ void __launch_bounds__(kCsrThreads)
    csr_dinv_bound_kernel(long rows, const int* __restrict__ ptr, const T* __restrict__ val, const T* __restrict__ dinv,
                          T* __restrict__ out, const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const long i = static_cast<long>(blockIdx.x) * kCsrThreads + threadIdx.x;
  if (i >= rows) return;
  if constexpr (B == 1) {
    out[i] = phys::pf_csr_bound1(dinv[i], val, ptr[i], ptr[i + 1]);
  } else {
    out[2 * i] = phys::pf_csr_bound2(dinv + 4 * i, val, ptr[i], ptr[i + 1], 0);
    out[2 * i + 1] = phys::pf_csr_bound2(dinv + 4 * i, val, ptr[i], ptr[i + 1], 1);
  }
}

template <class T, int B>
__global__ void __launch_bounds__(kCsrThreads)
    csr_gather_kernel(long nnz, const long* __restrict__ map, const T* __restrict__ src, T* __restrict__ val,
                      const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const long k = static_cast<long>(blockIdx.x) * kCsrThreads + threadIdx.x;
  if (k >= nnz) return;
  const long from = map[k] * (B * B);
#pragma unroll
  for (int e = 0; e < B * B; ++e) val[k * (B * B) + e] = src[from + e];
}

}  // namespace

template <class T>
void launch_csr_spmv(long rows, const int* ptr, const int* col, const T* val, const T* x, T alpha, T beta, const T* z, T* y,
                     const unsigned long long* guard, CsrLaunch l, cudaStream_t stream) {
  const unsigned grid = grid_of(rows * l.lanes);
  if (l.block == 1) spmv_lanes<T, 1>(grid, rows, ptr, col, val, x, alpha, beta, z, y, guard, l.lanes, stream);
  else spmv_lanes<T, 2>(grid, rows, ptr, col, val, x, alpha, beta, z, y, guard, l.lanes, stream);
}

template <class T>
void launch_csr_chebyshev(long rows, const int* ptr, const int* col, const T* val, const T* x, const T* b, const T* dinv,
                          T* d, T* x_out, T* r, T alpha, T beta, T start, const unsigned long long* guard, int lanes,
                          cudaStream_t stream) {
  if (start != T(0)) chebyshev_lanes<T, true>(rows, ptr, col, val, x, b, dinv, d, x_out, r, alpha, beta, start, guard, lanes, stream);
  else chebyshev_lanes<T, false>(rows, ptr, col, val, x, b, dinv, d, x_out, r, alpha, beta, start, guard, lanes, stream);
}

template <class T>
void launch_csr_diag_inv(long rows, const int* ptr, const int* col, const T* val, T* dinv, int* bad,
                         const unsigned long long* guard, int block, cudaStream_t stream) {
  if (block == 1) csr_diag_inv_kernel<T, 1><<<grid_of(rows), kCsrThreads, 0, stream>>>(rows, ptr, col, val, dinv, bad, guard);
  else csr_diag_inv_kernel<T, 2><<<grid_of(rows), kCsrThreads, 0, stream>>>(rows, ptr, col, val, dinv, bad, guard);
}

template <class T>
void launch_csr_dinv_bound(long rows, const int* ptr, const T* val, const T* dinv, T* out, const unsigned long long* guard,
                           int block, cudaStream_t stream) {
  if (block == 1) csr_dinv_bound_kernel<T, 1><<<grid_of(rows), kCsrThreads, 0, stream>>>(rows, ptr, val, dinv, out, guard);
  else csr_dinv_bound_kernel<T, 2><<<grid_of(rows), kCsrThreads, 0, stream>>>(rows, ptr, val, dinv, out, guard);
}

template <class T>
void launch_csr_gather(long nnz, const long* map, const T* src, T* val, const unsigned long long* guard, int block,
                       cudaStream_t stream) {
  if (block == 1) csr_gather_kernel<T, 1><<<grid_of(nnz), kCsrThreads, 0, stream>>>(nnz, map, src, val, guard);
  else csr_gather_kernel<T, 2><<<grid_of(nnz), kCsrThreads, 0, stream>>>(nnz, map, src, val, guard);
}

#define PF_CSR_INSTANTIATE(T)                                                                                           \
  template void launch_csr_spmv<T>(long, const int*, const int*, const T*, const T*, T, T, const T*, T*,                 \
                                   const unsigned long long*, CsrLaunch, cudaStream_t);                                 \
  template void launch_csr_chebyshev<T>(long, const int*, const int*, const T*, const T*, const T*, const T*, T*, T*, T*, T, \
                                        T, T, const unsigned long long*, int, cudaStream_t);                            \
  template void launch_csr_diag_inv<T>(long, const int*, const int*, const T*, T*, int*, const unsigned long long*, int, \
                                       cudaStream_t);                                                                   \
  template void launch_csr_dinv_bound<T>(long, const int*, const T*, const T*, T*, const unsigned long long*, int,       \
                                         cudaStream_t);                                                                 \
  template void launch_csr_gather<T>(long, const long*, const T*, T*, const unsigned long long*, int, cudaStream_t);
PF_CSR_INSTANTIATE(float)
PF_CSR_INSTANTIATE(double)
#undef PF_CSR_INSTANTIATE

}  // namespace poreflow::cu
