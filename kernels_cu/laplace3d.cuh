#pragma once
// Launch wrappers of the laplace3d family (kernels_cu/laplace3d.cu; twin kernels_cl/laplace3d.cl).
#include <cuda_runtime_api.h>

#include "core/kernels/box3.hpp"

namespace poreflow::cu {

template <class T>
void launch_lap7(const T* in, pf_box3 bi, T* out, pf_box3 bo, T cx, T cy, T cz, const BoxShape& shape, cudaStream_t stream);

}  // namespace poreflow::cu
