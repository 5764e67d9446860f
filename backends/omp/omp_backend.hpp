#pragma once
#include <memory>

#include "core/backend.hpp"

namespace poreflow {
// threads <= 0: OpenMP's default (OMP_NUM_THREADS or all cores)
std::unique_ptr<Backend> make_omp_backend(int threads);
}  // namespace poreflow
