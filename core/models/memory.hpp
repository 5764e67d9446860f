#pragma once
// What a model needs in memory, computed from its configuration before anything is allocated,
// and the check against what the backend has free (Backend::memory(): device memory on cuda and
// opencl, the host's available memory on serial and omp).
#include <cstddef>
#include <string>

#include "core/kernels/backend.hpp"

namespace poreflow {

struct MemoryNeed {
  std::string what;          // e.g. "the 1025 x 1025 grid (1050625 nodes)"
  std::size_t total = 0;     // bytes on the backend, work arrays included
  std::size_t largest = 0;   // the largest single buffer
};

// 512 KiB, 3.2 MiB, 246 GiB, 32 TiB, 2.5 PiB
std::string bytes_text(std::size_t bytes);

// ConfigError naming the need and what the backend has when it does not fit
void check_memory(const MemoryNeed& need, Precision prec, const Backend& be);

// one line for --dry-run: the need, and what the backend has free
std::string describe_memory(const MemoryNeed& need, Precision prec, const Backend& be);

}  // namespace poreflow
