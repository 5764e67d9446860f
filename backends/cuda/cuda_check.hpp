#pragma once
// Error checking for the CUDA runtime: every call and every launch of the cuda backend goes
// through one of these macros, so a failure becomes a BackendError naming the call and the place.
#include <cuda_runtime_api.h>

#include <string>

#include "core/base/error.hpp"

namespace poreflow::cuda_detail {

[[noreturn]] inline void throw_cuda(cudaError_t err, const char* what, const char* file, int line) {
  std::string msg = std::string(what) + " failed: " + cudaGetErrorString(err);
  throw BackendError(where(msg.c_str(), file, line));
}

}  // namespace poreflow::cuda_detail

// PF_CHECK_CUDA(cudaMemcpyAsync(...)) -> "cudaMemcpyAsync(...) failed: <reason> (at file:line)"
#define PF_CHECK_CUDA(call)                                                              \
  do {                                                                                   \
    cudaError_t pf_cuda_err_ = (call);                                                   \
    if (pf_cuda_err_ != cudaSuccess)                                                     \
      ::poreflow::cuda_detail::throw_cuda(pf_cuda_err_, #call, __FILE__, __LINE__);      \
  } while (0)

// After a kernel launch (or a launch wrapper): a bad configuration shows up in cudaGetLastError
// at once; faults inside the kernel show up at the next synchronising call, which is checked too.
#define PF_CHECK_LAUNCH(name)                                                                        \
  do {                                                                                               \
    cudaError_t pf_cuda_err_ = cudaGetLastError();                                                   \
    if (pf_cuda_err_ != cudaSuccess)                                                                 \
      ::poreflow::cuda_detail::throw_cuda(pf_cuda_err_, (std::string("launch of ") + (name)).c_str(), \
                                          __FILE__, __LINE__);                                       \
  } while (0)
