#pragma once
// The CUDA backend's implementation of every kernel family: backends/cuda/<family>.cpp, the host
// side (argument conversion, scratch, launch order) around kernels_cu/<family>.cu, one make_family
// overload each (core/kernels/family_set.hpp).
#include "backends/cuda/context.hpp"
#include "core/kernels/family_set.hpp"

namespace poreflow::cuda_detail {

#define PF_CUDA_MAKE_FAMILY(Type, name) PF_DECLARE_MAKE_FAMILY_FOR(CudaContext, Type, name)
PF_FAMILIES(PF_CUDA_MAKE_FAMILY)
#undef PF_CUDA_MAKE_FAMILY

}  // namespace poreflow::cuda_detail
