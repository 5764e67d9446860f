// The bl1d family (twin: kernels_cl/bl1d.cl): Buckley-Leverett point-wise kernels. The formulas
// are core/physics/bl1d.h; the edges are handled as in backends/host/bl1d.cpp.
#include <algorithm>

#include "core/physics/bl1d.h"
#include "kernels_cu/bl1d.cuh"

namespace poreflow::cu {
namespace {

constexpr unsigned kBlock = 256;

// enough blocks to cover n with one element per thread; grid-stride loops cover the rest
unsigned grid_for(std::size_t n) { return static_cast<unsigned>(std::min<std::size_t>((n + kBlock - 1) / kBlock, 1u << 20)); }

template <class T>
__global__ void face_mobility_kernel(const T* __restrict__ s, T* __restrict__ m, std::size_t nf, T k, T mu_w, T mu_o) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nf; i += stride)
    m[i] = phys::bl_face_mobility<T>(s[i], s[i + 1], k, mu_w, mu_o);
}

template <class T>
__global__ void face_velocity_kernel(const T* __restrict__ p, const T* __restrict__ m, T* __restrict__ u, std::size_t nf,
                                     T inv_h) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < nf; i += stride)
    u[i] = phys::bl_face_velocity<T>(m[i], p[i], p[i + 1], inv_h);
}

// s_new[0] = s_inj, interior points by the upwind update, s_new[n-1] = s_new[n-2] (dS/dx = 0).
// No thread can read another's output, so the thread that computes point n-2 also stores it at
// n-1 (and for n == 2, where point n-2 is the injection point, thread 0 does).
template <class T>
__global__ void saturation_kernel(const T* __restrict__ s, const T* __restrict__ u, T* __restrict__ q, std::size_t n, T c,
                                  T s_inj, T mu_w, T mu_o) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    if (i == 0) {
      q[0] = s_inj;
      if (n == 2) q[1] = s_inj;
    } else if (i + 1 < n) {
      const T v = phys::bl_saturation_point<T>(s[i - 1], s[i], s[i + 1], u[i - 1], u[i], c, mu_w, mu_o);
      q[i] = v;
      if (i + 2 == n) q[n - 1] = v;
    }
  }
}

// the 1D pressure equation as one tridiagonal system (bl_pressure_row: Dirichlet ends)
template <class T>
__global__ void pressure_system_kernel(const T* __restrict__ m, std::size_t n, T pl, T pr, T* __restrict__ a,
                                       T* __restrict__ b, T* __restrict__ c, T* __restrict__ d) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    phys::bl_pressure_row<T>(static_cast<long>(i), static_cast<long>(n), i > 0 ? m[i - 1] : T(0),
                             i + 1 < n ? m[i] : T(0), pl, pr, &a[i], &b[i], &c[i], &d[i]);
}

}  // namespace

template <class T>
void launch_bl_pressure_system(const T* mface, std::size_t n, T p_left, T p_right, T* a, T* b, T* c, T* d,
                               cudaStream_t stream) {
  if (n == 0) return;
  pressure_system_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(mface, n, p_left, p_right, a, b, c, d);
}

template void launch_bl_pressure_system<float>(const float*, std::size_t, float, float, float*, float*, float*, float*,
                                               cudaStream_t);
template void launch_bl_pressure_system<double>(const double*, std::size_t, double, double, double*, double*, double*,
                                                double*, cudaStream_t);

template <class T>
void launch_bl_face_mobility(const T* s, T* mface, std::size_t nfaces, T k, T mu_w, T mu_o, cudaStream_t stream) {
  if (nfaces == 0) return;
  face_mobility_kernel<T><<<grid_for(nfaces), kBlock, 0, stream>>>(s, mface, nfaces, k, mu_w, mu_o);
}

template <class T>
void launch_bl_face_velocity(const T* p, const T* mface, T* u, std::size_t nfaces, T inv_h, cudaStream_t stream) {
  if (nfaces == 0) return;
  face_velocity_kernel<T><<<grid_for(nfaces), kBlock, 0, stream>>>(p, mface, u, nfaces, inv_h);
}

template <class T>
void launch_bl_saturation(const T* s_old, const T* u, T* s_new, std::size_t n, T c, T s_inj, T mu_w, T mu_o,
                          cudaStream_t stream) {
  if (n < 2) return;
  saturation_kernel<T><<<grid_for(n), kBlock, 0, stream>>>(s_old, u, s_new, n, c, s_inj, mu_w, mu_o);
}

template void launch_bl_face_mobility<float>(const float*, float*, std::size_t, float, float, float, cudaStream_t);
template void launch_bl_face_mobility<double>(const double*, double*, std::size_t, double, double, double, cudaStream_t);
template void launch_bl_face_velocity<float>(const float*, const float*, float*, std::size_t, float, cudaStream_t);
template void launch_bl_face_velocity<double>(const double*, const double*, double*, std::size_t, double, cudaStream_t);
template void launch_bl_saturation<float>(const float*, const float*, float*, std::size_t, float, float, float, float,
                                          cudaStream_t);
template void launch_bl_saturation<double>(const double*, const double*, double*, std::size_t, double, double, double,
                                           double, cudaStream_t);

}  // namespace poreflow::cu
