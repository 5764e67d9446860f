// The control family (twin: kernels_cl/control.cl): the full convergence decision on one thread,
// and the best-iterate copy it may ask for.
#include <algorithm>

#include "core/kernels/converge.h"
#include "kernels_cu/control.cuh"

namespace poreflow::cu {
namespace {

template <class T>
__global__ void decide_kernel(unsigned long long* ctrl, long it, int slot, T abs_tol, T rel_tol, int flags, long cycle,
                              long max_it) {
  phys::pf_cv_decide<T>(ctrl, it, slot, abs_tol, rel_tol, flags, cycle, max_it);
}

template <class T>
__global__ void save_kernel(const unsigned long long* ctrl, long it, std::size_t n, const T* __restrict__ src,
                            T* __restrict__ dst) {
  if (!phys::pf_cv_save_now(ctrl, it)) return;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) dst[i] = src[i];
}

}  // namespace

template <class T>
void launch_cv_decide(unsigned long long* ctrl, long it, int slot, T abs_tol, T rel_tol, int flags, long cycle, long max_it,
                      cudaStream_t stream) {
  decide_kernel<T><<<1, 1, 0, stream>>>(ctrl, it, slot, abs_tol, rel_tol, flags, cycle, max_it);
}

template <class T>
void launch_cv_save(const unsigned long long* ctrl, long it, std::size_t n, const T* src, T* dst, cudaStream_t stream) {
  constexpr unsigned kBlock = 256;
  const std::size_t blocks = std::min<std::size_t>((n + kBlock - 1) / kBlock, 1u << 16);
  save_kernel<T><<<static_cast<unsigned>(blocks), kBlock, 0, stream>>>(ctrl, it, n, src, dst);
}

template void launch_cv_decide<float>(unsigned long long*, long, int, float, float, int, long, long, cudaStream_t);
template void launch_cv_decide<double>(unsigned long long*, long, int, double, double, int, long, long, cudaStream_t);
template void launch_cv_save<float>(const unsigned long long*, long, std::size_t, const float*, float*, cudaStream_t);
template void launch_cv_save<double>(const unsigned long long*, long, std::size_t, const double*, double*, cudaStream_t);

}  // namespace poreflow::cu
