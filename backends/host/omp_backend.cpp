#include "backends/host/omp_backend.hpp"

#include <omp.h>

#include "backends/host/host_backend.hpp"

namespace poreflow {

std::unique_ptr<Backend> make_omp_backend(int threads) {
  const int n = threads > 0 ? threads : omp_get_max_threads();
  return std::make_unique<HostBackend>(true, n, make_omp_reduce(n));
}

}  // namespace poreflow
