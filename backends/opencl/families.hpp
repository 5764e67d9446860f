#pragma once
// The OpenCL backend's implementation of every kernel family: backends/opencl/<family>.cpp, the
// host side around kernels_cl/<family>.cl (built as its own program, program.hpp), one make_family
// overload each (core/kernels/family_set.hpp).
#include "backends/opencl/context.hpp"
#include "core/kernels/family_set.hpp"

namespace poreflow::ocl {

#define PF_CL_MAKE_FAMILY(Type, name) PF_DECLARE_MAKE_FAMILY_FOR(ClContext, Type, name)
PF_FAMILIES(PF_CL_MAKE_FAMILY)
#undef PF_CL_MAKE_FAMILY

}  // namespace poreflow::ocl
