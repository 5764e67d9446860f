#pragma once
// The OpenCL backend's implementation of every kernel family: backends/opencl/<family>.cpp, the
// host side around kernels_cl/<family>.cl (built as its own program, program.hpp), one make_family
// overload each (core/kernels/family_set.hpp).
#include <memory>

#include "backends/opencl/context.hpp"
#include "core/kernels/family_set.hpp"

namespace poreflow::ocl {

std::unique_ptr<BlasImpl> make_family(ClContext& ctx, FamilyTag<BlasImpl>);
std::unique_ptr<ReduceImpl> make_family(ClContext& ctx, FamilyTag<ReduceImpl>);
std::unique_ptr<ControlImpl> make_family(ClContext& ctx, FamilyTag<ControlImpl>);
std::unique_ptr<Jacobi1DImpl> make_family(ClContext& ctx, FamilyTag<Jacobi1DImpl>);
std::unique_ptr<Bl1dImpl> make_family(ClContext& ctx, FamilyTag<Bl1dImpl>);
std::unique_ptr<TridiagImpl> make_family(ClContext& ctx, FamilyTag<TridiagImpl>);
std::unique_ptr<Adi2DImpl> make_family(ClContext& ctx, FamilyTag<Adi2DImpl>);
std::unique_ptr<Halo3DImpl> make_family(ClContext& ctx, FamilyTag<Halo3DImpl>);
std::unique_ptr<Laplace3DImpl> make_family(ClContext& ctx, FamilyTag<Laplace3DImpl>);
std::unique_ptr<Impes3DImpl> make_family(ClContext& ctx, FamilyTag<Impes3DImpl>);
std::unique_ptr<Sor3DImpl> make_family(ClContext& ctx, FamilyTag<Sor3DImpl>);
std::unique_ptr<Fluids3DImpl> make_family(ClContext& ctx, FamilyTag<Fluids3DImpl>);

}  // namespace poreflow::ocl
