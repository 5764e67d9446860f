#pragma once
// The typed fill of the CUDA backend's memory operations (kernels_cu/fill.cu): CUDA's memset only
// repeats bytes.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace poreflow::cu {

// dst[0, n) = value
template <class T>
void launch_fill(T* dst, T value, std::size_t n, cudaStream_t stream);

}  // namespace poreflow::cu
