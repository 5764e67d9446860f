#pragma once
// Batched tridiagonal solves of the OpenCL backend: the plan of kernels_cu/tridiag.cuh (which
// kernel, rows per work-item, systems per group, PCR levels in global memory) under this device's
// limits, and the launches of kernels_cl/tridiag.cl, each launch shape its own small program.
#include <cstddef>
#include <map>
#include <tuple>

#include "backends/opencl/program.hpp"
#include "core/backend.hpp"

namespace poreflow::ocl {

// Auto: the CUDA backend's rule (kernels_cu/tridiag.cu, docs/tridiag.md).
TridiagAlgo tridiag_auto(TridiagLayout layout, std::size_t n, std::size_t batch);

class Tridiag {
 public:
  // local_mem: CL_DEVICE_LOCAL_MEM_SIZE; max_group: CL_DEVICE_MAX_WORK_GROUP_SIZE; units:
  // CL_DEVICE_MAX_COMPUTE_UNITS; gpu: the device is a GPU (work-groups rounded to warps rather
  // than powers of two)
  Tridiag(cl::Context ctx, cl::CommandQueue queue, Programs& progs, std::size_t local_mem, std::size_t max_group,
          std::size_t units, bool gpu);

  // Enqueues the solve of `args` (a concrete algorithm, n and batch > 0) on the buffers given.
  void solve(const TridiagArgs& args, const cl::Buffer& a, const cl::Buffer& b, const cl::Buffer& c,
             const cl::Buffer& d, const cl::Buffer& x);

 private:
  // a launch the driver refused for lack of resources (registers for the group size, or local
  // memory the implementation keeps some of for itself)
  struct OutOfResources {};
  struct Limits {
    std::size_t group, local;
  };
  void solve_with(const TridiagArgs& args, const Limits& lim, const cl::Buffer& a, const cl::Buffer& b,
                  const cl::Buffer& c, const cl::Buffer& d, const cl::Buffer& x);
  cl::Buffer& scratch(int i, std::size_t bytes);
  void enqueue(cl::Kernel& k, cl::NDRange global, cl::NDRange local);

  cl::Context ctx_;
  cl::CommandQueue queue_;
  Programs& progs_;
  std::size_t smem_cap_, max_group_, units_;
  bool gpu_;
  cl::Buffer scratch_[9];  // c' of Thomas; two sets of four arrays for the global PCR levels
  std::size_t scratch_bytes_[9] = {};
  // the limits a shape (precision, algorithm, layout, n, batch) launched with after a refusal:
  // the real ones may be below the device's reported maxima
  std::map<std::tuple<int, int, int, std::size_t, std::size_t>, Limits> limits_;
};

}  // namespace poreflow::ocl
