// The vec family (twin: kernels_cl/vec.cl): element-wise kernels one element per thread; the
// kernels that reduce run a persistent grid that strides over the vectors, four elements in flight
// per thread, and combine in the last block (kernels_cu/last_group.cuh).
#include <algorithm>

#include "core/base/converge.h"
#include "core/physics/vec.h"
#include "kernels_cu/last_group.cuh"
#include "kernels_cu/vec.cuh"

namespace poreflow::cu {
namespace {

constexpr int B = kLastBlock;
constexpr int kU = 8;       // basis vectors a multi_dot pass reads
constexpr int kUnroll = 4;  // independent elements a reducing thread loads at once

__device__ __forceinline__ bool stopped(const u64* guard) { return guard && !phys::pf_cv_running(guard); }

template <class T>
__device__ __forceinline__ T coef(const T* s, T c, long slots) {
  return phys::pf_coef_value<T>(s, c, slots);
}

__device__ __forceinline__ std::size_t gtid() { return static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; }
__device__ __forceinline__ std::size_t gstride() { return static_cast<std::size_t>(gridDim.x) * blockDim.x; }

template <class T>
__global__ void __launch_bounds__(B) dot_kernel(std::size_t n, const T* __restrict__ x1, const T* __restrict__ y1,
                                                const T* __restrict__ x2, const T* __restrict__ y2, T* s, int slot1,
                                                int slot2, const u64* guard, T* partials, unsigned* counter) {
  if (stopped(guard)) return;
  __shared__ T warp_res[B / 32];
  const bool two = x2 != nullptr;
  T a0 = 0, a1 = 0;
  const std::size_t st = gstride();
  std::size_t i = gtid();
  for (; i + (kUnroll - 1) * st < n; i += kUnroll * st) {
    T p[kUnroll], q[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) p[u] = x1[i + u * st], q[u] = y1[i + u * st];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) a0 += p[u] * q[u];
    if (two) {
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) p[u] = x2[i + u * st], q[u] = y2[i + u * st];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) a1 += p[u] * q[u];
    }
  }
  for (; i < n; i += st) {
    a0 += x1[i] * y1[i];
    if (two) a1 += x2[i] * y2[i];
  }
  partial_sum(a0, partials, 0, warp_res);
  if (two) partial_sum(a1, partials, 1, warp_res);
  if (!last_block(counter)) return;
  const T r0 = final_sum(partials, 0, warp_res);
  if (threadIdx.x == 0) s[slot1] = r0;
  if (two) {
    const T r1 = final_sum(partials, 1, warp_res);
    if (threadIdx.x == 0) s[slot2] = r1;
  }
}

template <class T>
__global__ void __launch_bounds__(B) multi_dot_kernel(std::size_t n, const T* __restrict__ v, std::size_t v_at,
                                                      std::size_t ldv, int count, const T* __restrict__ w, T* s, int slot,
                                                      const u64* guard, T* partials, unsigned* counter) {
  if (stopped(guard)) return;
  __shared__ T warp_res[B / 32];
  v += v_at;
  for (int q0 = 0; q0 < count; q0 += kU) {
    const int un = min(count - q0, kU);
    T acc[kU];
#pragma unroll
    for (int u = 0; u < kU; ++u) acc[u] = 0;
    const T* vq = v + static_cast<std::size_t>(q0) * ldv;
    for (std::size_t i = gtid(); i < n; i += gstride()) {
      const T wi = w[i];
#pragma unroll
      for (int u = 0; u < kU; ++u)
        if (u < un) acc[u] += vq[u * ldv + i] * wi;
    }
    for (int u = 0; u < un; ++u) partial_sum(acc[u], partials, q0 + u, warp_res);
  }
  if (!last_block(counter)) return;
  for (int q = 0; q < count; ++q) {
    const T r = final_sum(partials, q, warp_res);
    if (threadIdx.x == 0) s[slot + q] = r;
  }
}

template <class T>
__global__ void axpby_kernel(std::size_t n, T a, long a_slots, const T* __restrict__ x, T b, long b_slots, T* __restrict__ y,
                             const T* s, const u64* guard) {
  if (stopped(guard)) return;
  const T ca = coef(s, a, a_slots), cb = coef(s, b, b_slots);
  const bool read_y = !phys::pf_coef_is_zero(b, b_slots);
  for (std::size_t i = gtid(); i < n; i += gstride()) y[i] = read_y ? ca * x[i] + cb * y[i] : ca * x[i];
}

template <class T>
__global__ void axpbypcz_kernel(std::size_t n, T a, long a_slots, const T* __restrict__ x, T b, long b_slots,
                                const T* __restrict__ y, T c, long c_slots, T* __restrict__ z, const T* s, const u64* guard) {
  if (stopped(guard)) return;
  const T ca = coef(s, a, a_slots), cb = coef(s, b, b_slots), cc = coef(s, c, c_slots);
  const bool use_y = !phys::pf_coef_is_zero(b, b_slots), use_z = !phys::pf_coef_is_zero(c, c_slots);
  for (std::size_t i = gtid(); i < n; i += gstride()) {
    T v = ca * x[i];
    if (use_y) v += cb * y[i];
    if (use_z) v += cc * z[i];
    z[i] = v;
  }
}

template <class T>
__global__ void __launch_bounds__(B) update2_kernel(std::size_t n, T a1, long a1_slots, const T* __restrict__ x1, T b1,
                                                    long b1_slots, T* __restrict__ y1, T a2, long a2_slots,
                                                    const T* __restrict__ x2, T b2, long b2_slots, T* __restrict__ y2,
                                                    const T* __restrict__ w, T* s, int slot_wy, int slot_yy,
                                                    const u64* guard, T* partials, unsigned* counter) {
  if (stopped(guard)) return;
  __shared__ T warp_res[B / 32];
  const T ca1 = coef<T>(s, a1, a1_slots), cb1 = coef<T>(s, b1, b1_slots);
  const T ca2 = coef<T>(s, a2, a2_slots), cb2 = coef<T>(s, b2, b2_slots);
  const bool r1 = !phys::pf_coef_is_zero(b1, b1_slots), r2 = !phys::pf_coef_is_zero(b2, b2_slots);
  const bool wy = slot_wy >= 0, yy = slot_yy >= 0;
  T dwy = 0, dyy = 0;
  for (std::size_t i = gtid(); i < n; i += gstride()) {
    y1[i] = r1 ? ca1 * x1[i] + cb1 * y1[i] : ca1 * x1[i];
    const T v = r2 ? ca2 * x2[i] + cb2 * y2[i] : ca2 * x2[i];
    y2[i] = v;
    if (wy) dwy += w[i] * v;
    if (yy) dyy += v * v;
  }
  if (!wy && !yy) return;  // uniform: no dots, no combine
  partial_sum(dwy, partials, 0, warp_res);
  partial_sum(dyy, partials, 1, warp_res);
  if (!last_block(counter)) return;
  const T rwy = final_sum(partials, 0, warp_res);
  const T ryy = final_sum(partials, 1, warp_res);
  if (threadIdx.x == 0) {
    if (wy) s[slot_wy] = rwy;
    if (yy) s[slot_yy] = ryy;
  }
}

template <class T>
__global__ void __launch_bounds__(B) multi_axpy_kernel(std::size_t n, const T* __restrict__ v, std::size_t v_at,
                                                       std::size_t ldv, int count, int count_slot, T c, int slot,
                                                       T* __restrict__ y, T* s, int norm_slot, const u64* guard, T* partials,
                                                       unsigned* counter) {
  if (stopped(guard)) return;
  __shared__ T warp_res[B / 32];
  if (count_slot >= 0) {
    const T k = s[count_slot];
    count = k > 0 ? min(count, static_cast<int>(k)) : 0;
  }
  v += v_at;
  T nn = 0;
  for (std::size_t i = gtid(); i < n; i += gstride()) {
    T yi = y[i];
    for (int q = 0; q < count; ++q) yi += c * s[slot + q] * v[static_cast<std::size_t>(q) * ldv + i];
    y[i] = yi;
    nn += yi * yi;
  }
  if (norm_slot < 0) return;
  partial_sum(nn, partials, 0, warp_res);
  if (!last_block(counter)) return;
  const T r = final_sum(partials, 0, warp_res);
  if (threadIdx.x == 0) s[norm_slot] = r;
}

template <class T>
__global__ void store_kernel(std::size_t n, T a, long a_slots, const T* __restrict__ w, T* __restrict__ basis,
                             std::size_t v_at, T* __restrict__ v, const T* __restrict__ z, std::size_t z_at, const T* s,
                             const u64* guard) {
  if (stopped(guard)) return;
  const T ca = coef(s, a, a_slots);
  for (std::size_t i = gtid(); i < n; i += gstride()) {
    const T x = ca * w[i];
    basis[v_at + i] = x;
    if (v) v[i] = x;
    if (z) basis[z_at + i] = z[i];
  }
}

template <class T>
__global__ void diag1_kernel(std::size_t cells, const T* __restrict__ d, const T* __restrict__ r, T* __restrict__ z,
                             const u64* guard) {
  if (stopped(guard)) return;
  for (std::size_t i = gtid(); i < cells; i += gstride()) z[i] = d[i] * r[i];
}

template <class T>
__global__ void diag2_kernel(std::size_t cells, const T* __restrict__ d, const T* __restrict__ r, T* __restrict__ z,
                             const u64* guard) {
  if (stopped(guard)) return;
  for (std::size_t i = gtid(); i < cells; i += gstride()) {
    const T r0 = r[2 * i], r1 = r[2 * i + 1];
    z[2 * i] = d[4 * i] * r0 + d[4 * i + 1] * r1;
    z[2 * i + 1] = d[4 * i + 2] * r0 + d[4 * i + 3] * r1;
  }
}

template <class T>
__global__ void gather_kernel(std::size_t n, const int* __restrict__ map, const T* __restrict__ x, T* __restrict__ y,
                              const u64* guard) {
  if (stopped(guard)) return;
  for (std::size_t i = gtid(); i < n; i += gstride()) y[i] = x[map[i]];
}

template <class X, class Y>
__global__ void convert_kernel(std::size_t n, const X* __restrict__ x, Y* __restrict__ y, const u64* guard) {
  if (stopped(guard)) return;
  for (std::size_t i = gtid(); i < n; i += gstride()) y[i] = static_cast<Y>(x[i]);
}

template <class T>
__global__ void check_kernel(u64* ctrl, const T* s, T* hist, long it, int rr, int ref, long breakdown, T tol2, long max_it) {
  phys::pf_kr_check<T>(ctrl, s, hist, it, rr, ref, breakdown, tol2, max_it);
}

template <class T>
__global__ void gmres_column_kernel(u64* ctrl, T* s, T* hist, long it, int j, int m, int base, int ref, int two_pass, T tol2,
                                    long max_it) {
  phys::pf_gm_column<T>(ctrl, s, hist, it, j, m, base, ref, two_pass, tol2, max_it);
}

template <class T>
__global__ void gmres_solve_kernel(T* s, int m, int base, const u64* guard) {
  if (stopped(guard)) return;
  phys::pf_gm_solve<T>(s, m, base);
}

template <class T>
__global__ void __launch_bounds__(B) first_nonfinite_kernel(std::size_t n, const T* __restrict__ x, u64* word, u64* partials,
                                                            unsigned* counter) {
  u64 first = ~0ull;
  for (std::size_t i = gtid(); i < n; i += gstride())
    if (!phys::pf_cv_finite(x[i])) {
      first = i;  // a thread's indices increase: its first is its lowest
      break;
    }
  launch_min_u64(first, word, partials, counter);
}

// blocks of an element-wise launch over n elements (a grid-stride loop covers the rest)
unsigned points_grid(std::size_t n) { return static_cast<unsigned>(std::clamp<std::size_t>((n + B - 1) / B, 1, 1u << 20)); }

}  // namespace

unsigned vec_grid(std::size_t n, int sm_count) {
  // at least 16 elements a thread before the grid grows; then up to 8 blocks (2048 threads) an SM
  const std::size_t want = (n + 16 * B - 1) / (16 * B);
  const std::size_t cap = std::min<std::size_t>(8 * static_cast<std::size_t>(std::max(sm_count, 1)), kVecMaxGrid);
  return static_cast<unsigned>(std::clamp<std::size_t>(want, 1, cap));
}

template <class T>
void launch_vec_dot(std::size_t n, const T* x1, const T* y1, const T* x2, const T* y2, T* s, int slot1, int slot2,
                    const u64* guard, const VecLaunch& l, cudaStream_t stream) {
  dot_kernel<T><<<l.grid, B, 0, stream>>>(n, x1, y1, x2, y2, s, slot1, slot2, guard, static_cast<T*>(l.partials), l.counter);
}

template <class T>
void launch_vec_multi_dot(std::size_t n, const T* v, std::size_t v_at, std::size_t ldv, int count, const T* w, T* s, int slot,
                          const u64* guard, const VecLaunch& l, cudaStream_t stream) {
  multi_dot_kernel<T><<<l.grid, B, 0, stream>>>(n, v, v_at, ldv, count, w, s, slot, guard, static_cast<T*>(l.partials),
                                                l.counter);
}

template <class T>
void launch_vec_axpby(std::size_t n, T a, long a_slots, const T* x, T b, long b_slots, T* y, const T* s, const u64* guard,
                      cudaStream_t stream) {
  axpby_kernel<T><<<points_grid(n), B, 0, stream>>>(n, a, a_slots, x, b, b_slots, y, s, guard);
}

template <class T>
void launch_vec_axpbypcz(std::size_t n, T a, long a_slots, const T* x, T b, long b_slots, const T* y, T c, long c_slots, T* z,
                         const T* s, const u64* guard, cudaStream_t stream) {
  axpbypcz_kernel<T><<<points_grid(n), B, 0, stream>>>(n, a, a_slots, x, b, b_slots, y, c, c_slots, z, s, guard);
}

template <class T>
void launch_vec_update2(std::size_t n, T a1, long a1_slots, const T* x1, T b1, long b1_slots, T* y1, T a2, long a2_slots,
                        const T* x2, T b2, long b2_slots, T* y2, const T* w, T* s, int slot_wy, int slot_yy,
                        const u64* guard, const VecLaunch& l, cudaStream_t stream) {
  // without dots, one element a thread; with them, the persistent grid its partials are sized for
  const unsigned grid = slot_wy >= 0 || slot_yy >= 0 ? l.grid : points_grid(n);
  update2_kernel<T><<<grid, B, 0, stream>>>(n, a1, a1_slots, x1, b1, b1_slots, y1, a2, a2_slots, x2, b2, b2_slots, y2, w, s,
                                            slot_wy, slot_yy, guard, static_cast<T*>(l.partials), l.counter);
}

template <class T>
void launch_vec_multi_axpy(std::size_t n, const T* v, std::size_t v_at, std::size_t ldv, int count, int count_slot, T c,
                           int slot, T* y, T* s, int norm_slot, const u64* guard, const VecLaunch& l, cudaStream_t stream) {
  const unsigned grid = norm_slot >= 0 ? l.grid : points_grid(n);
  multi_axpy_kernel<T><<<grid, B, 0, stream>>>(n, v, v_at, ldv, count, count_slot, c, slot, y, s, norm_slot, guard,
                                               static_cast<T*>(l.partials), l.counter);
}

template <class T>
void launch_vec_store(std::size_t n, T a, long a_slots, const T* w, T* basis, std::size_t v_at, T* v, const T* z,
                      std::size_t z_at, const T* s, const u64* guard, cudaStream_t stream) {
  store_kernel<T><<<points_grid(n), B, 0, stream>>>(n, a, a_slots, w, basis, v_at, v, z, z_at, s, guard);
}

template <class T>
void launch_vec_diag(std::size_t cells, const T* d, const T* r, T* z, const u64* guard, int block, cudaStream_t stream) {
  if (block == 1) diag1_kernel<T><<<points_grid(cells), B, 0, stream>>>(cells, d, r, z, guard);
  else diag2_kernel<T><<<points_grid(cells), B, 0, stream>>>(cells, d, r, z, guard);
}

template <class T>
void launch_vec_gather(std::size_t n, const int* map, const T* x, T* y, const u64* guard, cudaStream_t stream) {
  gather_kernel<T><<<points_grid(n), B, 0, stream>>>(n, map, x, y, guard);
}

template <class T>
void launch_vec_narrow(std::size_t n, const T* x, float* y, const u64* guard, cudaStream_t stream) {
  convert_kernel<T, float><<<points_grid(n), B, 0, stream>>>(n, x, y, guard);
}

template <class T>
void launch_vec_widen(std::size_t n, const float* x, T* y, const u64* guard, cudaStream_t stream) {
  convert_kernel<float, T><<<points_grid(n), B, 0, stream>>>(n, x, y, guard);
}

template <class T>
void launch_vec_check(u64* ctrl, const T* s, T* hist, long it, int rr, int ref, long breakdown, T tol2, long max_it,
                      cudaStream_t stream) {
  check_kernel<T><<<1, 1, 0, stream>>>(ctrl, s, hist, it, rr, ref, breakdown, tol2, max_it);
}

template <class T>
void launch_vec_gmres_column(u64* ctrl, T* s, T* hist, long it, int j, int m, int base, int ref, int two_pass, T tol2,
                             long max_it, cudaStream_t stream) {
  gmres_column_kernel<T><<<1, 1, 0, stream>>>(ctrl, s, hist, it, j, m, base, ref, two_pass, tol2, max_it);
}

template <class T>
void launch_vec_gmres_solve(T* s, int m, int base, const u64* guard, cudaStream_t stream) {
  gmres_solve_kernel<T><<<1, 1, 0, stream>>>(s, m, base, guard);
}

template <class T>
void launch_vec_first_nonfinite(std::size_t n, const T* x, u64* word, const VecLaunch& l, cudaStream_t stream) {
  first_nonfinite_kernel<T><<<l.grid, B, 0, stream>>>(n, x, word, static_cast<u64*>(l.partials), l.counter);
}

#define PF_VEC_INSTANTIATE(T)                                                                                                \
  template void launch_vec_dot<T>(std::size_t, const T*, const T*, const T*, const T*, T*, int, int, const u64*,             \
                                  const VecLaunch&, cudaStream_t);                                                           \
  template void launch_vec_multi_dot<T>(std::size_t, const T*, std::size_t, std::size_t, int, const T*, T*, int, const u64*, \
                                        const VecLaunch&, cudaStream_t);                                                     \
  template void launch_vec_axpby<T>(std::size_t, T, long, const T*, T, long, T*, const T*, const u64*, cudaStream_t);       \
  template void launch_vec_axpbypcz<T>(std::size_t, T, long, const T*, T, long, const T*, T, long, T*, const T*, const u64*, \
                                       cudaStream_t);                                                                        \
  template void launch_vec_update2<T>(std::size_t, T, long, const T*, T, long, T*, T, long, const T*, T, long, T*, const T*, \
                                      T*, int, int, const u64*, const VecLaunch&, cudaStream_t);                             \
  template void launch_vec_multi_axpy<T>(std::size_t, const T*, std::size_t, std::size_t, int, int, T, int, T*, T*, int,     \
                                         const u64*, const VecLaunch&, cudaStream_t);                                        \
  template void launch_vec_store<T>(std::size_t, T, long, const T*, T*, std::size_t, T*, const T*, std::size_t, const T*,    \
                                    const u64*, cudaStream_t);                                                               \
  template void launch_vec_diag<T>(std::size_t, const T*, const T*, T*, const u64*, int, cudaStream_t);                      \
  template void launch_vec_gather<T>(std::size_t, const int*, const T*, T*, const u64*, cudaStream_t);                       \
  template void launch_vec_narrow<T>(std::size_t, const T*, float*, const u64*, cudaStream_t);                             \
  template void launch_vec_widen<T>(std::size_t, const float*, T*, const u64*, cudaStream_t);                              \
  template void launch_vec_check<T>(u64*, const T*, T*, long, int, int, long, T, long, cudaStream_t);                        \
  template void launch_vec_gmres_column<T>(u64*, T*, T*, long, int, int, int, int, int, T, long, cudaStream_t);              \
  template void launch_vec_gmres_solve<T>(T*, int, int, const u64*, cudaStream_t);                                           \
  template void launch_vec_first_nonfinite<T>(std::size_t, const T*, u64*, const VecLaunch&, cudaStream_t);

PF_VEC_INSTANTIATE(float)
PF_VEC_INSTANTIATE(double)
#undef PF_VEC_INSTANTIATE

}  // namespace poreflow::cu
