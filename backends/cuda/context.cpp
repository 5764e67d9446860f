#include "backends/cuda/context.hpp"

#include <algorithm>
#include <cstdio>

namespace poreflow::cuda_detail {

CudaContext::CudaContext(int device) : device_(device) {
  PF_CHECK_CUDA(cudaSetDevice(device));
  // non-blocking: no implicit synchronisation with the legacy default stream
  PF_CHECK_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  PF_CHECK_CUDA(cudaStreamCreateWithFlags(&copy_stream_, cudaStreamNonBlocking));
  cudaDeviceProp prop{};
  PF_CHECK_CUDA(cudaGetDeviceProperties(&prop, device_));
  sms_ = prop.multiProcessorCount;
  l2_bytes_ = static_cast<std::size_t>(prop.l2CacheSize);
  int optin = 0;
  PF_CHECK_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
  smem_optin_ = static_cast<std::size_t>(optin);
  char buf[512];
  std::snprintf(buf, sizeof buf, "%s (cc %d.%d, %d SMs, %.1f GiB)", prop.name, prop.major, prop.minor, sms_,
                static_cast<double>(prop.totalGlobalMem) / (1024.0 * 1024.0 * 1024.0));
  description_ = buf;
}

CudaContext::~CudaContext() {
  // let enqueued work finish before the stream goes; the families' memory is gone by now
  (void)cudaSetDevice(device_);
  log_release(cudaStreamSynchronize(stream_), "cudaStreamSynchronize (cuda backend shutdown)");
  log_release(cudaStreamSynchronize(copy_stream_), "cudaStreamSynchronize (cuda backend shutdown, copies)");
  log_release(cudaStreamDestroy(copy_stream_), "cudaStreamDestroy (copies)");
  log_release(cudaStreamDestroy(stream_), "cudaStreamDestroy");
}

void CudaContext::ensure(DeviceMem& m, std::size_t bytes) const {
  if (m.get() && m.bytes() >= bytes) return;
  PF_CHECK_CUDA(cudaStreamSynchronize(stream_));
  const std::size_t grown = std::max(bytes, m.bytes() * 2);
  m = DeviceMem();
  m = DeviceMem(grown);
}

void CudaContext::ensure(PinnedMem& m, std::size_t bytes) const {
  if (m.get() && m.bytes() >= bytes) return;
  PF_CHECK_CUDA(cudaStreamSynchronize(stream_));
  m = PinnedMem();
  m = PinnedMem(bytes);
}

}  // namespace poreflow::cuda_detail
