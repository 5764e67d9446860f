#include "backends/cuda/memory.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>

namespace poreflow::cuda_detail {

void log_release(cudaError_t e, const char* what) {
  if (e == cudaSuccess || e == cudaErrorCudartUnloading) return;
  spdlog::error("{} failed: {}", what, cudaGetErrorString(e));
}

DeviceMem::DeviceMem(std::size_t bytes) : bytes_(bytes) { PF_CHECK_CUDA(cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 1))); }

DeviceMem& DeviceMem::operator=(DeviceMem&& o) noexcept {
  if (this != &o) {
    release();
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void DeviceMem::release() {
  if (!ptr_) return;
  log_release(cudaFree(ptr_), "cudaFree");
  ptr_ = nullptr;
}

PinnedMem::PinnedMem(std::size_t bytes) : bytes_(bytes) {
  PF_CHECK_CUDA(cudaMallocHost(&ptr_, std::max<std::size_t>(bytes, 1)));
}

PinnedMem& PinnedMem::operator=(PinnedMem&& o) noexcept {
  if (this != &o) {
    release();
    ptr_ = std::exchange(o.ptr_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void PinnedMem::release() {
  if (!ptr_) return;
  log_release(cudaFreeHost(ptr_), "cudaFreeHost");
  ptr_ = nullptr;
}

CudaBuffer::CudaBuffer(int device, std::size_t bytes) : Buffer(bytes), device_(device) {
  // at least one byte so that empty fields have a valid pointer (cudaMalloc aligns to 256)
  PF_CHECK_CUDA(cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 1)));
}

CudaBuffer::~CudaBuffer() {
  // cudaFree waits for work that may still use the memory; it needs the owning device current
  int cur = -1;
  if (cudaGetDevice(&cur) == cudaSuccess && cur != device_) (void)cudaSetDevice(device_);
  log_release(cudaFree(ptr_), "cudaFree");
  if (cur >= 0 && cur != device_) (void)cudaSetDevice(cur);
}

}  // namespace poreflow::cuda_detail
