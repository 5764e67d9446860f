#pragma once
// The host backends' implementation of every kernel family (core/reference/<family>.cpp; omp's
// own reductions in backends/omp/reduce.cpp), one make_family overload each (family_set.hpp).
#include <memory>

#include "core/kernels/family_set.hpp"
#include "core/reference/host_context.hpp"

namespace poreflow {

std::unique_ptr<BlasImpl> make_family(const HostContext& hc, FamilyTag<BlasImpl>);
std::unique_ptr<ReduceImpl> make_family(const HostContext& hc, FamilyTag<ReduceImpl>);  // serial's
std::unique_ptr<ControlImpl> make_family(const HostContext& hc, FamilyTag<ControlImpl>);
std::unique_ptr<Jacobi1DImpl> make_family(const HostContext& hc, FamilyTag<Jacobi1DImpl>);
std::unique_ptr<Bl1dImpl> make_family(const HostContext& hc, FamilyTag<Bl1dImpl>);
std::unique_ptr<TridiagImpl> make_family(const HostContext& hc, FamilyTag<TridiagImpl>);
std::unique_ptr<Adi2DImpl> make_family(const HostContext& hc, FamilyTag<Adi2DImpl>);
std::unique_ptr<Halo3DImpl> make_family(const HostContext& hc, FamilyTag<Halo3DImpl>);
std::unique_ptr<Laplace3DImpl> make_family(const HostContext& hc, FamilyTag<Laplace3DImpl>);
std::unique_ptr<Impes3DImpl> make_family(const HostContext& hc, FamilyTag<Impes3DImpl>);
std::unique_ptr<Sor3DImpl> make_family(const HostContext& hc, FamilyTag<Sor3DImpl>);
std::unique_ptr<Fluids3DImpl> make_family(const HostContext& hc, FamilyTag<Fluids3DImpl>);

}  // namespace poreflow
