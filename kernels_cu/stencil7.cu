// The stencil7 family (twin: kernels_cl/stencil7.cl): one thread per entry of the box's arrays.
//
// apply/residual is a streaming kernel; the bytes it must move per active entry, which a bench's
// bandwidth divides by (x counted once: its neighbours at +-1, +-sy and +-sz are re-read from L1/L2,
// which the streaming loads of everything else leave to it):
//   block 1: 7 coefficients + the mask (4) + x + y (+ b for the residual):
//            double 76 (84) bytes, float 40 (44)
//   block 2: 7 blocks of 4 + the mask + x (2) + y (2) (+ b (2)):
//            double 260 (276) bytes, float 132 (140)
// The coefficients, the mask and b are read once (__ldcs: evict first) and y written once (__stcs),
// so L2 keeps x for its neighbours; x goes through the read-only path. Inactive entries read no
// coefficient. Indices are 32-bit when the coefficient planes allow.
#include <algorithm>
#include <climits>

#include "core/base/converge.h"
#include "core/physics/amg.h"
#include "core/physics/stencil7.h"
#include "core/physics/stencil7_sor.h"
#include "kernels_cu/last_group.cuh"
#include "kernels_cu/stencil7.cuh"

namespace poreflow::cu {
namespace {

constexpr int B = kLastBlock;
using u64 = unsigned long long;

template <class T>
struct Vec2;
template <>
struct Vec2<float> {
  using type = float2;
  using quad = float4;
};
template <>
struct Vec2<double> {
  using type = double2;
};

// a 2 x 2 block, row-major, at 4 e of c
template <class T, class I>
__device__ __forceinline__ void load_block(const T* c, I e, T k[4]) {
  if constexpr (sizeof(T) == 4) {
    const float4 v = __ldcs(reinterpret_cast<const float4*>(c) + e);
    k[0] = v.x, k[1] = v.y, k[2] = v.z, k[3] = v.w;
  } else {
    const double2 a = __ldcs(reinterpret_cast<const double2*>(c) + 2 * e);
    const double2 b = __ldcs(reinterpret_cast<const double2*>(c) + 2 * e + 1);
    k[0] = a.x, k[1] = a.y, k[2] = b.x, k[3] = b.y;
  }
}

template <class T, int BLK, class I>
__global__ void __launch_bounds__(B) s7_apply_kernel(const T* __restrict__ coef, const int* __restrict__ active,
                                                     const T* __restrict__ x, const T* __restrict__ b, T* __restrict__ y,
                                                     long extent_l, long sy_l, long sz_l, const u64* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const I extent = static_cast<I>(extent_l), sy = static_cast<I>(sy_l), sz = static_cast<I>(sz_l);
  const I L = static_cast<I>(blockIdx.x) * B + static_cast<I>(threadIdx.x);
  if (L >= extent) return;
  const I off[7] = {0, -1, 1, -sy, sy, -sz, sz};
  const bool on = __ldcs(active + L) != 0;
  if constexpr (BLK == 1) {
    T v = 0;
    if (on) {
#pragma unroll
      for (int q = 0; q < 7; ++q) v += __ldcs(coef + q * extent + L) * __ldg(x + L + off[q]);
      if (b) v = __ldcs(b + L) - v;
    }
    __stcs(y + L, v);
  } else {
    using V2 = typename Vec2<T>::type;
    V2 v{0, 0};
    if (on) {
      const V2* x2 = reinterpret_cast<const V2*>(x);
#pragma unroll
      for (int q = 0; q < 7; ++q) {
        T k[4];
        load_block(coef, q * extent + L, k);
        const V2 xn = __ldg(x2 + L + off[q]);
        v.x += k[0] * xn.x + k[1] * xn.y;
        v.y += k[2] * xn.x + k[3] * xn.y;
      }
      if (b) {
        const V2 bb = __ldcs(reinterpret_cast<const V2*>(b) + L);
        v.x = bb.x - v.x;
        v.y = bb.y - v.y;
      }
    }
    __stcs(reinterpret_cast<V2*>(y) + L, v);
  }
}

// One Chebyshev step (core/kernels/stencil7.hpp): the residual of apply's scalar path, then the
// direction and the new iterate. d is read and written once (plain loads: its line is written
// back), dinv and b streamed, x as in apply. FROM_ZERO: x's entries are start D^-1 b's (b and dinv
// read as x would be), and with r the step stops at the residual.
template <class T, class I, bool FROM_ZERO>
__global__ void __launch_bounds__(B) s7_chebyshev_kernel(const T* __restrict__ coef, const int* __restrict__ active,
                                                         const T* __restrict__ dinv, const T* __restrict__ b,
                                                         const T* __restrict__ x, T* __restrict__ d, T* __restrict__ x_out,
                                                         T* __restrict__ r, T alpha, T beta, T start, long extent_l,
                                                         long sy_l, long sz_l, const u64* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const I extent = static_cast<I>(extent_l), sy = static_cast<I>(sy_l), sz = static_cast<I>(sz_l);
  const I L = static_cast<I>(blockIdx.x) * B + static_cast<I>(threadIdx.x);
  if (L >= extent) return;
  const I off[7] = {0, -1, 1, -sy, sy, -sz, sz};
  if (__ldcs(active + L) == 0) {
    d[L] = 0;
    __stcs(x_out + L, T(0));
    if (FROM_ZERO && r) __stcs(r + L, T(0));
    return;
  }
  auto xv = [&](I j) -> T {
    if constexpr (FROM_ZERO) return start * __ldg(dinv + j) * __ldg(b + j);
    else return __ldg(x + j);
  };
  T v = 0;
#pragma unroll
  for (int q = 0; q < 7; ++q) v += __ldcs(coef + q * extent + L) * xv(L + off[q]);
  const T xi = xv(L);
  if (FROM_ZERO && r) {
    __stcs(r + L, __ldg(b + L) - v);
    d[L] = xi;
    __stcs(x_out + L, xi);
    return;
  }
  const T dl = FROM_ZERO ? __ldg(dinv + L) : __ldcs(dinv + L), bl = FROM_ZERO ? __ldg(b + L) : __ldcs(b + L);
  const T dn = phys::amg_cheb_direction<T>(alpha, FROM_ZERO ? xi : d[L], beta, dl, bl - v);
  d[L] = dn;
  __stcs(x_out + L, xi + dn);
}

template <class T, int BLK>
__global__ void __launch_bounds__(B) s7_invert_kernel(const T* __restrict__ coef, const int* __restrict__ active,
                                                      T* __restrict__ dinv, long extent, u64* status, u64* partials,
                                                      unsigned* counter) {
  u64 first = PF_S7_NONE;
  const long stride = static_cast<long>(gridDim.x) * B;
  for (long L = static_cast<long>(blockIdx.x) * B + threadIdx.x; L < extent; L += stride) {
    const bool on = active[L] != 0;
    int st = -1;
    if constexpr (BLK == 1) {
      st = on ? phys::pf_s7_status1(coef[L]) : -1;
      dinv[L] = on && st < 0 ? T(1) / coef[L] : T(0);
    } else {
      T k[4];
      load_block(coef, L, k);
      st = on ? phys::pf_s7_status2(k[0], k[1], k[2], k[3]) : -1;
      const T det = phys::pf_s7_det2(k[0], k[1], k[2], k[3]);
#pragma unroll
      for (int e = 0; e < 4; ++e) dinv[4 * L + e] = on && st < 0 ? phys::pf_s7_inv2(k[0], k[1], k[2], k[3], det, e) : T(0);
    }
    if (st >= 0 && first == PF_S7_NONE) first = static_cast<u64>(L) * 4 + static_cast<u64>(st);  // L increases
  }
  launch_min_u64(first, status, partials, counter);
}

template <class T, int BLK>
void apply_block(const T* coef, const int* active, const T* x, const T* b, T* y, long extent, long sy, long sz,
                 const u64* guard, cudaStream_t stream) {
  const unsigned grid = static_cast<unsigned>((extent + B - 1) / B);
  // 32-bit indices while every one formed (a plane's entry in vector units, at most 2 vectors a
  // block; a neighbour) stays below 2^31
  const bool narrow = 7 * (BLK == 1 ? 1 : 2) * extent + sz + 1 < static_cast<long>(INT_MAX);
  if (narrow)
    s7_apply_kernel<T, BLK, int><<<grid, B, 0, stream>>>(coef, active, x, b, y, extent, sy, sz, guard);
  else
    s7_apply_kernel<T, BLK, long><<<grid, B, 0, stream>>>(coef, active, x, b, y, extent, sy, sz, guard);
}

template <class T>
__global__ void s7_from_sor_kernel(pf_box3 b, long cells, const T* rb, const T* scale, T* coef, T* rhs, long extent) {
  const long c = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < cells) phys::pf_s7_from_sor_cell<T>(b, c, rb, scale, coef, rhs, extent);
}

}  // namespace

template <class T>
void launch_s7_from_sor(pf_box3 b, long cells, const T* rb, const T* scale, T* coef, T* rhs, long extent, cudaStream_t stream) {
  const unsigned threads = 256;
  s7_from_sor_kernel<T><<<static_cast<unsigned>((cells + threads - 1) / threads), threads, 0, stream>>>(b, cells, rb, scale, coef,
                                                                                                      rhs, extent);
}
template void launch_s7_from_sor<float>(pf_box3, long, const float*, const float*, float*, float*, long, cudaStream_t);
template void launch_s7_from_sor<double>(pf_box3, long, const double*, const double*, double*, double*, long, cudaStream_t);

template <class T>
void launch_s7_apply(const T* coef, const int* active, const T* x, const T* b, T* y, long extent, long sy, long sz,
                     const u64* guard, int block, cudaStream_t stream) {
  if (block == 1) apply_block<T, 1>(coef, active, x, b, y, extent, sy, sz, guard, stream);
  else apply_block<T, 2>(coef, active, x, b, y, extent, sy, sz, guard, stream);
}

template <class T>
void launch_s7_chebyshev(const T* coef, const int* active, const T* dinv, const T* b, const T* x, T* d, T* x_out, T* r,
                         T alpha, T beta, T start, long extent, long sy, long sz, const u64* guard, cudaStream_t stream) {
  const unsigned grid = static_cast<unsigned>((extent + B - 1) / B);
#define PF_S7_CHEB(I, Z) \
  s7_chebyshev_kernel<T, I, Z><<<grid, B, 0, stream>>>(coef, active, dinv, b, x, d, x_out, r, alpha, beta, start, extent, sy, sz, guard)
  const bool narrow = 7 * extent + sz + 1 < static_cast<long>(INT_MAX);  // 32-bit indices, as apply's
  if (start != T(0)) {
    if (narrow) PF_S7_CHEB(int, true);
    else PF_S7_CHEB(long, true);
  } else {
    if (narrow) PF_S7_CHEB(int, false);
    else PF_S7_CHEB(long, false);
  }
#undef PF_S7_CHEB
}
template void launch_s7_chebyshev<float>(const float*, const int*, const float*, const float*, const float*, float*, float*,
                                         float*, float, float, float, long, long, long, const u64*, cudaStream_t);
template void launch_s7_chebyshev<double>(const double*, const int*, const double*, const double*, const double*, double*,
                                          double*, double*, double, double, double, long, long, long, const u64*, cudaStream_t);

unsigned s7_invert_grid(long extent, int sm_count) {
  const long want = (extent + 16L * B - 1) / (16L * B);
  const long cap = std::min<long>(8L * std::max(sm_count, 1), kS7MaxGrid);
  return static_cast<unsigned>(std::clamp<long>(want, 1, cap));
}

template <class T>
void launch_s7_invert(const T* coef, const int* active, T* dinv, long extent, u64* status, int block, const S7InvertLaunch& l,
                      cudaStream_t stream) {
  if (block == 1)
    s7_invert_kernel<T, 1><<<l.grid, B, 0, stream>>>(coef, active, dinv, extent, status, l.partials, l.counter);
  else
    s7_invert_kernel<T, 2><<<l.grid, B, 0, stream>>>(coef, active, dinv, extent, status, l.partials, l.counter);
}

template void launch_s7_apply<float>(const float*, const int*, const float*, const float*, float*, long, long, long,
                                     const u64*, int, cudaStream_t);
template void launch_s7_apply<double>(const double*, const int*, const double*, const double*, double*, long, long, long,
                                      const u64*, int, cudaStream_t);
template void launch_s7_invert<float>(const float*, const int*, float*, long, u64*, int, const S7InvertLaunch&, cudaStream_t);
template void launch_s7_invert<double>(const double*, const int*, double*, long, u64*, int, const S7InvertLaunch&,
                                       cudaStream_t);

}  // namespace poreflow::cu
