#pragma once
// The omp backend: the host backend's families (backends/host) on every thread, with omp's own
// reduce family (reduce.cpp).
#include <memory>

#include "core/kernels/backend.hpp"
#include "core/kernels/reduce.hpp"

namespace poreflow {
// threads <= 0: OpenMP's default (OMP_NUM_THREADS or all cores)
std::unique_ptr<Backend> make_omp_backend(int threads);
// the two OpenMP reductions on `threads` threads
std::unique_ptr<ReduceImpl> make_omp_reduce(int threads);
}  // namespace poreflow
