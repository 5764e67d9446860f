#pragma once
// The CUDA backend's implementation of every kernel family: backends/cuda/<family>.cpp, the host
// side (argument conversion, scratch, launch order) around kernels_cu/<family>.cu, one make_family
// overload each (core/kernels/family_set.hpp).
#include <memory>

#include "backends/cuda/context.hpp"
#include "core/kernels/family_set.hpp"

namespace poreflow::cuda_detail {

std::unique_ptr<BlasImpl> make_family(CudaContext& ctx, FamilyTag<BlasImpl>);
std::unique_ptr<ReduceImpl> make_family(CudaContext& ctx, FamilyTag<ReduceImpl>);
std::unique_ptr<ControlImpl> make_family(CudaContext& ctx, FamilyTag<ControlImpl>);
std::unique_ptr<Jacobi1DImpl> make_family(CudaContext& ctx, FamilyTag<Jacobi1DImpl>);
std::unique_ptr<Bl1dImpl> make_family(CudaContext& ctx, FamilyTag<Bl1dImpl>);
std::unique_ptr<TridiagImpl> make_family(CudaContext& ctx, FamilyTag<TridiagImpl>);
std::unique_ptr<Adi2DImpl> make_family(CudaContext& ctx, FamilyTag<Adi2DImpl>);
std::unique_ptr<Halo3DImpl> make_family(CudaContext& ctx, FamilyTag<Halo3DImpl>);
std::unique_ptr<Laplace3DImpl> make_family(CudaContext& ctx, FamilyTag<Laplace3DImpl>);
std::unique_ptr<Impes3DImpl> make_family(CudaContext& ctx, FamilyTag<Impes3DImpl>);
std::unique_ptr<Sor3DImpl> make_family(CudaContext& ctx, FamilyTag<Sor3DImpl>);
std::unique_ptr<Fluids3DImpl> make_family(CudaContext& ctx, FamilyTag<Fluids3DImpl>);

}  // namespace poreflow::cuda_detail
