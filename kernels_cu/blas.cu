// The blas family (twin: kernels_cl/blas.cl).
#include <algorithm>

#include "core/base/converge.h"
#include "kernels_cu/blas.cuh"

namespace poreflow::cu {
namespace {

template <class T>
__global__ void axpy_kernel(std::size_t n, T alpha, const T* __restrict__ x, T* __restrict__ y,
                            const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
    y[i] += alpha * x[i];
}

template <class T>
__global__ void fill_kernel(T* __restrict__ dst, T value, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = value;
}

}  // namespace

template <class T>
void launch_axpy(std::size_t n, T alpha, const T* x, T* y, const unsigned long long* guard, cudaStream_t stream) {
  if (n == 0) return;
  constexpr unsigned kBlock = 256;
  const std::size_t blocks = std::min<std::size_t>((n + kBlock - 1) / kBlock, 1u << 16);
  axpy_kernel<T><<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(n, alpha, x, y, guard);
}

template void launch_axpy<float>(std::size_t, float, const float*, float*, const unsigned long long*, cudaStream_t);
template void launch_axpy<double>(std::size_t, double, const double*, double*, const unsigned long long*, cudaStream_t);

template <class T>
void launch_fill(T* dst, T value, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  constexpr unsigned kBlock = 256;
  const std::size_t blocks = std::min<std::size_t>((n + kBlock - 1) / kBlock, 1u << 16);
  fill_kernel<T><<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(dst, value, n);
}

template void launch_fill<float>(float*, float, std::size_t, cudaStream_t);
template void launch_fill<double>(double*, double, std::size_t, cudaStream_t);

}  // namespace poreflow::cu
