#pragma once
// Launch wrappers of the blas family (kernels_cu/blas.cu; twin kernels_cl/blas.cl).
#include <cuda_runtime_api.h>

#include <cstddef>

namespace poreflow::cu {

// y[0, n) += alpha x[0, n); nothing once the control block `guard` (nullable) says stop
template <class T>
void launch_axpy(std::size_t n, T alpha, const T* x, T* y, const unsigned long long* guard, cudaStream_t stream);

// dst[0, n) = value: the typed fill behind the cuda backend's Backend::fill (CUDA's memset only
// repeats bytes; OpenCL has clEnqueueFillBuffer)
template <class T>
void launch_fill(T* dst, T value, std::size_t n, cudaStream_t stream);

}  // namespace poreflow::cu
