#pragma once
// Builds the OpenCL programs of one device and keeps them, and their kernels, for the backend's
// lifetime. A program is the embedded sources in a fixed order: a prelude of #defines (PF_BLOCK,
// pf_real, the device's features), the shared headers (core/kernels, core/physics), then
// kernels_cl/block_reduce.cl and the family files. One program per (precision, block size): the
// paper variants need the work-group size at compile time. Families specialised per launch shape
// (tridiag.cl) are left out of it and built alone, one small program per (precision, block,
// #defines): shape_kernel().
#include <map>
#include <string>
#include <tuple>

#include "backends/opencl/cl_check.hpp"
#include "core/types.hpp"

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

class Programs {
 public:
  Programs(cl::Context ctx, cl::Device dev);

  const DeviceTraits& traits() const { return traits_; }
  // The full source of the (precision, block) program, as handed to the compiler.
  std::string source(Precision prec, int block) const;
  // The program, built on first use; a failed build throws BackendError with the whole log.
  const cl::Program& program(Precision prec, int block);
  // A kernel of that program. Kernels keep their arguments, so callers that alternate argument
  // sets (jacobi's two parities) ask for separate instances.
  cl::Kernel& kernel(Precision prec, int block, const std::string& name, int instance = 0);
  // A kernel of `file` built alone (prelude, block_reduce.cl, file) with `defines` prepended.
  cl::Kernel& shape_kernel(Precision prec, int block, const std::string& file, const std::string& defines,
                           const std::string& name);
  // CL_KERNEL_WORK_GROUP_SIZE: the largest work-group this kernel can run with.
  std::size_t max_group(const cl::Kernel& k) const;

 private:
  cl::Context ctx_;
  cl::Device dev_;
  DeviceTraits traits_;
  std::map<std::tuple<Precision, int>, cl::Program> programs_;
  std::map<std::tuple<Precision, int, std::string, int>, cl::Kernel> kernels_;
  std::map<std::tuple<Precision, int, std::string, std::string>, cl::Kernel> shape_kernels_;

  std::string prelude(Precision prec, int block) const;
  cl::Program build(Precision prec, const std::string& src, const std::string& what);
};

}  // namespace poreflow::ocl
