#pragma once
// The device-neutral interface. A Backend owns device memory (Buffers) and gives one accessor per
// kernel family; models and solvers are written once as sequences of family calls.
//
// A family F lives in files named after it (docs/architecture.md has the recipe):
// core/kernels/F.hpp declares its argument structs, the contract of each kernel, the interface a
// backend implements (FImpl) and the public calls (FKernels), which check the arguments once, the
// same way on every backend, before they reach the backend's implementation. Backend::F() returns
// those checked calls; F_impl() is what each backend overrides, pure, so a backend that lacks a
// family does not compile.
#include <cstddef>
#include <memory>
#include <string>

#include "core/base/types.hpp"
#include "core/kernels/family_list.hpp"

namespace poreflow {

// Device memory owned by a backend. Host backends keep it in host memory.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes) : bytes_(bytes) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_;
};

// Host memory for staging transfers between a device and the host (an MPI exchange's layers):
// page-locked on CUDA, so the copies run by DMA straight from it; ordinary memory elsewhere.
class StagingBuffer {
 public:
  virtual ~StagingBuffer() = default;
  virtual unsigned char* data() = 0;
  virtual std::size_t bytes() const = 0;
};

// ---- argument checks every family makes ---------------------------------------------------------

// Throws BackendError naming `what` unless [offset, offset + bytes) lies inside b.
void check_range(const Buffer& b, std::size_t bytes, std::size_t offset, const char* what);
// Throws BackendError naming `what` (and `detail`, when given) when b is missing or holds fewer
// than n values of prec. Messages are built only on failure: these run before every launch.
void check_values(const Buffer* b, std::size_t n, Precision prec, const char* what, const char* detail = nullptr);

// ---- the kernel families (core/kernels/family_list.hpp; each in core/kernels/<family>.hpp) -----
#define PF_FAMILY_DECLARE(Type, name) \
  class Type##Kernels;                \
  class Type##Impl;
PF_FAMILIES(PF_FAMILY_DECLARE)
#undef PF_FAMILY_DECLARE

// ---- the backend ----------------------------------------------------------------------------------

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string name() const = 0;          // "serial", "omp", "cuda", "opencl"
  virtual std::string device_name() const = 0;   // the device it runs on, for logs and tables
  virtual bool supports(Precision) const { return true; }
  bool is_host() const { return name() == "serial" || name() == "omp"; }  // no device launches
  // AMG's levels of at most this many rows cycle in one launch by default (AmgConfig::tail_rows):
  // where a launch costs far more than a small level's work and cannot be recorded (docs/linalg.md,
  // "The coarse levels in one launch"); 0: none
  virtual std::size_t one_launch_rows() const { return 0; }

  // memory
  virtual std::unique_ptr<Buffer> alloc(std::size_t bytes) = 0;
  virtual void upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset = 0) = 0;
  virtual void download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset = 0) = 0;
  // dst's bytes from dst_offset on = src's bytes from src_offset on (enqueued)
  virtual void copy(const Buffer& src, Buffer& dst, std::size_t bytes, std::size_t src_offset = 0,
                    std::size_t dst_offset = 0) = 0;
  virtual void fill(Buffer& dst, Precision prec, double value, std::size_t n) = 0;
  virtual void sync() = 0;  // waits for all enqueued work
  virtual std::unique_ptr<StagingBuffer> alloc_staging(std::size_t bytes);  // for staging (see StagingBuffer)

  // Transfers between device memory and staging memory enqueued without a wait, so the host can
  // go on while later kernels run (an exchange overlapped with a sweep). A read runs after the
  // work enqueued before it; a write after the transfers before it, and the work enqueued after
  // it waits for it, but it may run beside kernels enqueued since the last read (CUDA: a copy
  // stream), so it must not touch memory those use. The staging memory must stay untouched until
  // a Marker after them was waited for. The host backends have no queue: theirs are done at once.
  virtual void download_async(const Buffer& src, StagingBuffer& dst, std::size_t dst_offset, std::size_t bytes,
                              std::size_t offset);
  virtual void upload_async(Buffer& dst, std::size_t offset, StagingBuffer& src, std::size_t src_offset, std::size_t bytes);
  // A point in the queue: wait() returns once the work enqueued before mark() is done, whatever
  // was enqueued after it.
  class Marker {
   public:
    virtual ~Marker() = default;
    virtual void wait() = 0;
  };
  virtual std::unique_ptr<Marker> mark();

  // Recording (CUDA Graphs): the work enqueued between begin_recording() and end_recording() is
  // recorded, not run, and a Recording replays it as one launch. A recording holds the buffers and
  // values of its launches as they were, so it is only for work that repeats them exactly (the
  // iterations of a Krylov solve). Nothing recorded may wait for the device or allocate; such a
  // call throws, and abort_recording() then ends the recording. Backends without it (the host
  // backends, OpenCL) say so by can_record(), and the caller enqueues its work itself.
  class Recording {
   public:
    virtual ~Recording() = default;
    virtual void replay() = 0;
  };
  virtual bool can_record() const { return false; }
  virtual void begin_recording();  // BackendError where !can_record()
  // into: a recording of the same launches with other values is updated in place (cheaper than
  // a new one); else it is replaced
  virtual void end_recording(std::unique_ptr<Recording>& into);
  virtual void abort_recording() noexcept {}

  // What a run may still allocate: the device's free memory and its largest single buffer, in
  // bytes (0: unknown). Models compare their need with it before allocating.
  struct MemoryInfo {
    std::size_t free = 0, max_buffer = 0;
  };
  virtual MemoryInfo memory() const = 0;

  // the kernel families: checked calls into this backend's implementation (be.reduce().run(...))
#define PF_FAMILY_ACCESSOR(Type, name) Type##Kernels name();
  PF_FAMILIES(PF_FAMILY_ACCESSOR)
#undef PF_FAMILY_ACCESSOR

 protected:
  // What each backend implements, one per family. The arguments are checked before these are
  // reached; only the family's public calls use them.
#define PF_FAMILY_IMPL(Type, name) virtual Type##Impl& name##_impl() = 0;
  PF_FAMILIES(PF_FAMILY_IMPL)
#undef PF_FAMILY_IMPL
};

// Throws BackendError naming `what` when the backend cannot compute in prec (an OpenCL device
// without double precision).
void check_precision(const Backend& be, Precision prec, const char* what);

}  // namespace poreflow
