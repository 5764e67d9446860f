#pragma once
// Builds the OpenCL programs of one device and keeps them, and their kernels, for the backend's
// lifetime. One program per kernel family: a prelude of #defines (PF_BLOCK, pf_real, PF_KERNEL,
// the device's features), the family's own #defines (a launch shape), then kernels_cl/<family>.cl
// after everything it #includes (shared headers of core/kernels and core/physics, other .cl
// files), each once. A compile error in one family breaks only that family, and PoCL builds only
// what a run uses. A family is built once per (precision, work-group size, #defines): the
// paper variants and the launch-shaped families need their work-group size at compile time.
#include <map>
#include <string>
#include <string_view>
#include <tuple>
#include <unordered_map>
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
// ClContext::set_args compares what it sets with that count.
class ClKernel : public cl::Kernel {
 public:
  ClKernel(cl::Kernel k, std::string name, cl_uint params) : cl::Kernel(std::move(k)), name_(std::move(name)), params_(params) {}
  const std::string& name() const { return name_; }
  cl_uint params() const { return params_; }

 private:
  std::string name_;
  cl_uint params_ = 0;
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
  // Looked up at every launch, so by views: no string is built unless the kernel is new.
  ClKernel& kernel(std::string_view family, Precision prec, int block, std::string_view name, std::string_view defines = {},
                   int instance = 0);
  // CL_KERNEL_WORK_GROUP_SIZE: the largest work-group this kernel can run with.
  std::size_t max_group(const cl::Kernel& k) const;

 private:
  using Key = std::tuple<std::string, Precision, int, std::string>;  // family, precision, block, defines
  cl::Context ctx_;
  cl::Device dev_;
  DeviceTraits traits_;
  std::map<Key, cl::Program> programs_;
  // a kernel's key, owning its strings (View: the same, borrowed, for the lookup)
  template <class S>
  struct KernelKeyOf {
    S family;
    Precision prec;
    int block;
    S name;
    S defines;
    int instance;
  };
  using KernelKey = KernelKeyOf<std::string>;
  using KernelView = KernelKeyOf<std::string_view>;
  struct KernelHash {
    using is_transparent = void;
    template <class S>
    std::size_t operator()(const KernelKeyOf<S>& k) const {
      std::size_t h = std::hash<std::string_view>{}(k.name);
      auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
      mix(std::hash<std::string_view>{}(k.family));
      mix(std::hash<std::string_view>{}(k.defines));
      mix(static_cast<std::size_t>(k.prec) * 31 + static_cast<std::size_t>(k.block) * 131 + static_cast<std::size_t>(k.instance));
      return h;
    }
  };
  struct KernelEq {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const KernelKeyOf<A>& a, const KernelKeyOf<B>& b) const {
      return a.prec == b.prec && a.block == b.block && a.instance == b.instance && std::string_view(a.name) == std::string_view(b.name) &&
             std::string_view(a.family) == std::string_view(b.family) && std::string_view(a.defines) == std::string_view(b.defines);
    }
  };
  std::unordered_map<KernelKey, ClKernel, KernelHash, KernelEq> kernels_;  // node-based: references stay valid

  std::string prelude(Precision prec, int block) const;
  cl::Program build(Precision prec, const std::string& src, const std::string& what);
};

}  // namespace poreflow::ocl
