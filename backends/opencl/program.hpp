#pragma once
// Builds the OpenCL programs of one device and keeps them, and their kernels, for the backend's
// lifetime. One program per kernel family: a prelude of #defines (PF_BLOCK, pf_real, PF_KERNEL,
// the device's features), the family's own #defines (a launch shape), then kernels_cl/<family>.cl
// after everything it #includes (shared headers of core/kernels and core/physics, other .cl
// files), each once. A compile error in one family breaks only that family, and PoCL builds only
// what a run uses. A family is built once per (precision, work-group size, #defines): the
// paper variants and the launch-shaped families need their work-group size at compile time.
#include <array>
#include <cstdint>
#include <map>
#include <string_view>
#include <unordered_map>
#include <vector>
#include <string>
#include <tuple>
#include <utility>

#include "backends/opencl/cl_check.hpp"
#include "core/base/types.hpp"

namespace poreflow::ocl {

// What the kernels may use on this device.
struct DeviceTraits {
  std::string name;
  bool nvidia = false;         // inline PTX (PF_NV_PTX)
  bool subgroups = false;      // cl_khr_subgroups or the OpenCL C 3.0 feature __opencl_c_subgroups
  bool subgroups_khr = false;  // ... through the extension (needs its pragma)
  bool fp64 = false;
  bool int64_atomics = false;  // cl_khr_int64_base_atomics and cl_khr_int64_extended_atomics
  bool opencl_c_30 = false;    // the compiler takes -cl-std=CL3.0
  bool fp32_exact_div = false; // -cl-fp32-correctly-rounded-divide-sqrt is allowed
  std::size_t max_group = 0;   // CL_DEVICE_MAX_WORK_GROUP_SIZE
};
DeviceTraits device_traits(const cl::Device& dev);

// A kernel of a built program, with what the argument check needs: its name and the number of
// parameters the compiler reports (CL_KERNEL_NUM_ARGS, read once when the kernel is created).
// ClContext::set_args compares what it sets with that count. Every argument set through it is
// also kept on the host (args()): a recording (backends/opencl/recording.hpp) copies them into
// kernels of its own, and a kernel made from the same program and name (another()) takes them.
class ClKernel : public cl::Kernel {
 public:
  // an argument's bytes as clSetKernelArg took them; null: a __local size or a null __global pointer
  struct Arg {
    static constexpr std::size_t kMax = 64;  // pf_box3, the largest, is 56
    std::uint32_t size = 0;
    bool null = false, set = false;
    unsigned char bytes[kMax] = {};
    bool operator==(const Arg& o) const;
  };

  ClKernel(cl::Kernel k, std::string name, cl_uint params, cl::Program program);
  const std::string& name() const { return name_; }
  cl_uint params() const { return params_; }
  const std::vector<Arg>& args() const { return args_; }

  // These hide cl::Kernel's: every argument goes through set_arg and is kept.
  template <class V>
  cl_int setArg(cl_uint index, const V& value) {
    using H = cl::detail::KernelArgumentHandler<V>;
    return set_arg(index, H::size(value), H::ptr(value));
  }
  cl_int setArg(cl_uint index, std::size_t size, const void* value) { return set_arg(index, size, value); }
  cl_int set_arg(cl_uint index, std::size_t size, const void* value);
  // sets the arguments that differ from `want` (a snapshot of args() of a kernel of the same name)
  void set_args_from(const std::vector<Arg>& want);
  // a new kernel object of the same program and name, without arguments
  ClKernel another() const;

  // true the first time this kernel is launched with work-groups of this shape
  bool first_launch(const cl::NDRange& local);

 private:
  std::string name_;
  cl_uint params_ = 0;
  cl::Program program_;
  std::vector<Arg> args_;
  std::vector<std::array<std::size_t, 4>> shapes_;  // dimensions, then the work-group's sizes
};

class Programs {
 public:
  Programs(cl::Context ctx, cl::Device dev);

  const DeviceTraits& traits() const { return traits_; }
  // The full source of a family's program, as handed to the compiler.
  std::string source(const std::string& family, Precision prec, int block, const std::string& defines = "") const;
  // The program, built on first use; a failed build throws BackendError with the whole log.
  const cl::Program& program(const std::string& family, Precision prec, int block, const std::string& defines = "");
  // A kernel of that program. Kernels keep their arguments, so callers that alternate argument
  // sets (jacobi's two parities) ask for separate instances.
  ClKernel& kernel(std::string_view family, Precision prec, int block, std::string_view name,
                   std::string_view defines = "", int instance = 0);
  // CL_KERNEL_WORK_GROUP_SIZE: the largest work-group this kernel can run with.
  std::size_t max_group(const cl::Kernel& k) const;

 private:
  using Key = std::tuple<std::string, Precision, int, std::string>;  // family, precision, block, defines
  cl::Context ctx_;
  cl::Device dev_;
  DeviceTraits traits_;
  std::map<Key, cl::Program> programs_;
  // every launch looks its kernel up: hashed by views of the caller's strings, no copies made
  struct KernelKey {
    std::string family, defines, name;
    Precision prec;
    int block, instance;
  };
  struct KernelView {
    std::string_view family, defines, name;
    Precision prec;
    int block, instance;
  };
  struct KernelHash {
    using is_transparent = void;
    std::size_t operator()(const KernelView& k) const;
    std::size_t operator()(const KernelKey& k) const { return (*this)(view(k)); }
  };
  struct KernelEq {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return view(a).name == view(b).name && view(a).family == view(b).family && view(a).prec == view(b).prec &&
             view(a).block == view(b).block && view(a).instance == view(b).instance && view(a).defines == view(b).defines;
    }
  };
  static KernelView view(const KernelView& k) { return k; }
  static KernelView view(const KernelKey& k) { return {k.family, k.defines, k.name, k.prec, k.block, k.instance}; }
  std::unordered_map<KernelKey, ClKernel, KernelHash, KernelEq> kernels_;  // node-based: references stay valid

  std::string prelude(Precision prec, int block) const;
  cl::Program build(Precision prec, const std::string& src, const std::string& what);
};

}  // namespace poreflow::ocl
