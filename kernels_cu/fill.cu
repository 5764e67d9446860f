// The typed fill of the CUDA backend's memory operations.
#include <algorithm>

#include "kernels_cu/fill.cuh"

namespace poreflow::cu {
namespace {

template <class T>
__global__ void fill_kernel(T* __restrict__ dst, T value, std::size_t n) {
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = value;
}

}  // namespace

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
