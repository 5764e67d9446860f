#pragma once
// The host backends' implementation of every kernel family (backends/host/<family>.cpp; omp's
// own reductions in backends/host/reduce_omp.cpp), one make_family overload each (family_set.hpp).
#include "core/kernels/family_set.hpp"
#include "backends/host/host_context.hpp"

namespace poreflow {

#define PF_HOST_MAKE_FAMILY(Type, name) PF_DECLARE_MAKE_FAMILY_FOR(const HostContext, Type, name)
PF_FAMILIES(PF_HOST_MAKE_FAMILY)
#undef PF_HOST_MAKE_FAMILY

}  // namespace poreflow
