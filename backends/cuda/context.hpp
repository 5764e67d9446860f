#pragma once
// What the CUDA backend's families share: the device, the one stream every launch goes on (so work
// runs in call order), the device's limits, and scratch memory that grows on demand.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <string>

#include "backends/cuda/memory.hpp"

namespace poreflow::cuda_detail {

class CudaContext {
 public:
  explicit CudaContext(int device);
  ~CudaContext();
  CudaContext(const CudaContext&) = delete;
  CudaContext& operator=(const CudaContext&) = delete;

  int device() const { return device_; }
  cudaStream_t stream() const { return stream_; }
  // the stream of the asynchronous staging transfers (Backend::download_async, upload_async), so
  // they run beside the kernels; ordered with stream() by events
  cudaStream_t copy_stream() const { return copy_stream_; }
  int sm_count() const { return sms_; }
  std::size_t l2_bytes() const { return l2_bytes_; }
  std::size_t smem_optin() const { return smem_optin_; }  // opt-in shared memory per block
  const std::string& description() const { return description_; }

  // The calling thread may have another device current (several backends in one process).
  void activate() const { PF_CHECK_CUDA(cudaSetDevice(device_)); }
  void sync() const {
    PF_CHECK_CUDA(cudaStreamSynchronize(stream_));
    PF_CHECK_CUDA(cudaStreamSynchronize(copy_stream_));
  }

  // Grow scratch memory to at least `bytes`; waits first, since enqueued work may still use the
  // old allocation. Device memory grows geometrically (amortised).
  void ensure(DeviceMem& m, std::size_t bytes) const;
  void ensure(PinnedMem& m, std::size_t bytes) const;

 private:
  int device_;
  cudaStream_t stream_ = nullptr, copy_stream_ = nullptr;
  int sms_ = 1;
  std::size_t l2_bytes_ = 0;
  std::size_t smem_optin_ = 48 * 1024;
  std::string description_;
};

}  // namespace poreflow::cuda_detail
