#pragma once
// Device and pinned host memory of the CUDA backend, owned RAII-style. Destructors cannot throw:
// a failed release is logged (log_release).
#include <cuda_runtime_api.h>

#include <cstddef>
#include <utility>

#include "backends/cuda/cuda_check.hpp"
#include "core/kernels/backend.hpp"

namespace poreflow::cuda_detail {

// Logs a failed release. At process exit a backend held in a static may be destroyed after the
// CUDA runtime has unloaded, which then frees everything itself; that case
// (cudaErrorCudartUnloading) is not worth a message.
void log_release(cudaError_t e, const char* what);

// Scratch memory, grown on demand.
class DeviceMem {
 public:
  DeviceMem() = default;
  explicit DeviceMem(std::size_t bytes);
  ~DeviceMem() { release(); }
  DeviceMem(DeviceMem&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceMem& operator=(DeviceMem&& o) noexcept;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void release();
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// Page-locked host memory: the staging of asynchronous device-to-host copies.
class PinnedMem {
 public:
  PinnedMem() = default;
  explicit PinnedMem(std::size_t bytes);
  ~PinnedMem() { release(); }
  PinnedMem(PinnedMem&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  PinnedMem& operator=(PinnedMem&& o) noexcept;
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void release();
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

// A Buffer in device memory of one device.
class CudaBuffer final : public Buffer {
 public:
  CudaBuffer(int device, std::size_t bytes);
  ~CudaBuffer() override;
  void* data() const { return ptr_; }

 private:
  int device_;
  void* ptr_ = nullptr;
};

inline void* dptr(Buffer& b) { return static_cast<CudaBuffer&>(b).data(); }
inline const void* dptr(const Buffer& b) { return static_cast<const CudaBuffer&>(b).data(); }
template <class T>
T* dptr(Buffer& b) {
  return static_cast<T*>(dptr(b));
}
template <class T>
const T* dptr(const Buffer& b) {
  return static_cast<const T*>(dptr(b));
}
template <class T>
T* dptr(Buffer* b) {
  return b ? static_cast<T*>(dptr(*b)) : nullptr;
}
template <class T>
const T* dptr(const Buffer* b) {
  return b ? static_cast<const T*>(dptr(*b)) : nullptr;
}

}  // namespace poreflow::cuda_detail
