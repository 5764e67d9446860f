#pragma once
// What the OpenCL backend's families share: the device, context and in-order queue (launches need
// no events), the per-family programs, and the launch and argument helpers. Every call's error
// code is checked (cl_check.hpp).
#include <array>
#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <unordered_set>
#include <vector>

#include "backends/opencl/cl_check.hpp"
#include "backends/opencl/program.hpp"
#include "core/kernels/backend.hpp"
#include "core/kernels/kernel_args.hpp"
#include "core/kernels/launch_tally.hpp"

namespace poreflow::ocl {

// A Buffer in the device's memory.
class ClBuffer final : public Buffer {
 public:
  ClBuffer(const cl::Context& ctx, std::size_t bytes);
  cl::Buffer mem;
};

inline const cl::Buffer& mem(const Buffer& b) { return static_cast<const ClBuffer&>(b).mem; }

class ClContext {
 public:
  ClContext(const cl::Platform& platform, const cl::Device& device);

  const cl::Context& context() const { return ctx_; }
  cl::CommandQueue& queue() { return queue_; }
  Programs& programs() { return *progs_; }
  const DeviceTraits& traits() const { return progs_->traits(); }
  const cl::Device& device() const { return device_; }
  const std::string& device_name() const { return device_name_; }
  bool gpu() const { return gpu_; }
  std::size_t compute_units() const { return units_; }
  std::size_t local_mem() const { return local_mem_; }
  // Fast's launch shape (the CUDA twin's: 256 work-items, about 4 groups per compute unit); also
  // the work-group of one-work-item-per-point kernels
  int fast_block() const { return fast_block_; }
  std::size_t fast_groups() const { return fast_groups_; }
  // the host waits for the device (counted: core/kernels/launch_tally.hpp)
  void sync() {
    TallyTimer timed(TallyTimer::Wait);
    PF_CHECK_CL(queue_.finish());
  }

  // A cached kernel of a family's program; the block must fit the device.
  ClKernel& kernel(std::string_view family, Precision prec, int block, std::string_view name, std::string_view defines = {},
                   int instance = 0);

  // CL_KERNEL_WORK_GROUP_SIZE is no limit to check up front: NVIDIA's driver answers 256 for every
  // kernel and runs them with 1024. A group the kernel cannot run is reported when it is refused.
  void launch(cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local);
  void launch(cl::Kernel& k, std::size_t global, std::size_t local) { launch(k, cl::NDRange(global), cl::NDRange(local)); }
  // one work-item per point; the global size is a multiple of the group (PoCL needs uniform groups)
  void launch_points(cl::Kernel& k, std::size_t n);

  // Sets every argument of k in order: the parts, each a description (a kernel_args() tuple of
  // core/kernels/kernel_args.hpp, whose Real values take precision prec) or a per-launch value (a
  // cl type such as cl_long or cl_int4, a cl::Buffer, cl::Local(bytes)). Throws BackendError naming
  // the kernel unless that is exactly the number of parameters it was built with
  // (CL_KERNEL_NUM_ARGS): a description that disagrees with the kernel is an error, not a wrong
  // answer. Returns the number of arguments the first part set: the index of the first extra,
  // for launches that change extras in place (set) between launches.
  template <class... Parts>
  cl_uint set_args(ClKernel& k, Precision prec, const Parts&... parts);

  // one argument, by index (an extra changed between launches)
  template <class T>
  void set(cl::Kernel& k, cl_uint index, const T& value) {
    PF_CHECK_CL(k.setArg(index, value));
  }

  // Double atomics need cl_khr_int64_*_atomics; BackendError naming the way out otherwise.
  void require_int64_atomics(Precision p) const;

  template <class T>
  void fill_bytes(const cl::Buffer& dst, T pattern, std::size_t bytes) {
    if (bytes) PF_CHECK_CL(queue_.enqueueFillBuffer(dst, pattern, 0, bytes));
  }
  // grows a scratch buffer; a command already enqueued keeps the old one alive until it is done
  void ensure(std::unique_ptr<ClBuffer>& b, std::size_t bytes);

 private:
  cl::Device device_;
  cl::Context ctx_;
  cl::CommandQueue queue_;
  std::unique_ptr<Programs> progs_;
  std::string device_name_;
  bool gpu_ = false;
  std::size_t units_ = 1, local_mem_ = 0;
  int fast_block_ = 256;
  std::size_t fast_groups_ = 1;
  // kernel and work-group shape of every launch so far (looked up at every launch: no allocation)
  using Shape = std::array<std::size_t, 4>;
  struct ShapeHash {
    std::size_t operator()(const Shape& s) const {
      std::size_t h = 0;
      for (std::size_t v : s) h = h * 1000003u ^ std::hash<std::size_t>{}(v);
      return h;
    }
  };
  std::unordered_set<Shape, ShapeHash> launched_;
};

namespace set_args_detail {

// Sets described or extra values one after another, counting them.
class Setter {
 public:
  Setter(ClKernel& k, Precision prec) : k_(k), prec_(prec) {}
  cl_uint count() const { return next_; }

  template <class X>
  void put(const X& x) {
    using namespace karg;
    if constexpr (is_tuple<X>::value) {
      std::apply([&](const auto&... y) { (put(y), ...); }, x);
    } else if constexpr (std::is_same_v<X, Real>) {
      if (prec_ == Precision::Float) raw(cl_float(x.v));
      else raw(cl_double(x.v));
    } else if constexpr (is_buffer<X>::value) {
      if (x.b) raw(mem(*x.b));
      else if constexpr (is_optional<X>::value) bytes(sizeof(cl_mem), nullptr);  // a null __global pointer
      else missing();
    } else if constexpr (is_out_at<X>::value) {
      if (!x.b) missing();
      raw(mem(*x.b));
      raw(cl_long(x.at));
    } else if constexpr (std::is_same_v<X, std::size_t>) {
      raw(cl_ulong(x));
    } else if constexpr (std::is_same_v<X, long>) {
      raw(cl_long(x));
    } else if constexpr (std::is_same_v<X, int>) {
      raw(cl_int(x));
    } else if constexpr (std::is_same_v<X, pf_box3>) {
      bytes(sizeof(pf_box3), &x);
    } else {
      static_assert(!std::is_same_v<X, bool>, "a kernel takes no bool: pass the cl type of its parameter");
      raw(x);  // an extra: a cl type, a cl::Buffer, cl::Local(bytes)
    }
  }

 private:
  // Arguments past the kernel's parameters are counted, not set: the count check names them.
  template <class V>
  void raw(const V& v) {
    if (next_ < k_.params()) PF_CHECK_CL(k_.setArg(next_, v));
    ++next_;
  }
  void bytes(std::size_t size, const void* value) {
    if (next_ < k_.params()) PF_CHECK_CL(k_.setArg(next_, size, value));
    ++next_;
  }
  [[noreturn]] void missing() const;

  ClKernel& k_;
  Precision prec_;
  cl_uint next_ = 0;
};

// BackendError: kernel `k` takes k.params() arguments, `given` were set
[[noreturn]] void count_mismatch(const ClKernel& k, cl_uint given);

}  // namespace set_args_detail

template <class... Parts>
cl_uint ClContext::set_args(ClKernel& k, Precision prec, const Parts&... parts) {
  set_args_detail::Setter s(k, prec);
  cl_uint first = 0;
  bool first_done = false;
  auto one = [&](const auto& part) {
    s.put(part);
    if (!first_done) first = s.count(), first_done = true;
  };
  (one(parts), ...);
  if (s.count() != k.params()) set_args_detail::count_mismatch(k, s.count());
  return first;
}

}  // namespace poreflow::ocl
