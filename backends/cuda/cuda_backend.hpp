#pragma once
// Host side of the CUDA backend. Only compiled when CUDA is (POREFLOW_HAVE_CUDA).
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/backend.hpp"

namespace poreflow {
int cuda_device_count();                        // 0 when there is no driver or no device
std::vector<std::string> cuda_describe_devices();  // one line each: name, memory, SMs, capability
std::unique_ptr<Backend> make_cuda_backend(int device);
}  // namespace poreflow
