#pragma once
// Launch wrappers of the tridiag family (kernels_cu/tridiag.cu: its kernels and the launch of a
// plan; the plan: core/kernels/tridiag_plan.hpp; twin kernels_cl/tridiag.cl).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/kernels/tridiag.hpp"
#include "core/kernels/tridiag_plan.hpp"

namespace poreflow::cu {

// A planned solve: its shape (value_bytes = sizeof(T)), the plan made for it (tri::plan_of), and
// the scratch the plan needs (plan.scratch values; nullptr when 0).
struct TridiagLaunch {
  poreflow::tri::Shape shape;
  poreflow::tri::Plan plan;
  void* scratch = nullptr;
};

// The solve of a, b, c, d into x (TridiagArgs::kernel_args) by the plan's kernels: x = the
// solution + add (add null: the solution alone); with a guard (a control block, or null) every
// kernel returns once it says stop.
template <class T>
void launch_tridiag(const T* a, const T* b, const T* c, const T* d, T* x, const T* add, const unsigned long long* guard,
                    const TridiagLaunch& l, cudaStream_t stream);

// cuSPARSE solves in place and wants the ignored couplings zero: x = d, a0 = a with a[first] = 0,
// c0 = c with c[last] = 0, and b0 = b unless b0 is null (gtsvInterleavedBatch takes its
// diagonals as writable arrays, so it gets copies).
template <class T>
void launch_tridiag_vendor_prep(const T* a, const T* b, const T* c, const T* d, T* a0, T* b0, T* c0, T* x,
                                std::size_t n, std::size_t batch, TridiagLayout layout, cudaStream_t stream);

}  // namespace poreflow::cu
