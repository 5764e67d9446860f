#include "backends/opencl/context.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>

#include "core/base/error.hpp"
#include "core/kernels/launch_tally.hpp"
#include "core/kernels/program_builds.hpp"

namespace poreflow::ocl {

ClBuffer::ClBuffer(const cl::Context& ctx, std::size_t bytes) : Buffer(bytes) {
  cl_int err = CL_SUCCESS;
  mem = cl::Buffer(ctx, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 1), nullptr, &err);  // size 0 is invalid
  PF_CHECK_CL_AS(err, "clCreateBuffer");
}

ClContext::ClContext(const cl::Platform& platform, const cl::Device& device) : device_(device) {
  cl_int err = CL_SUCCESS;
  ctx_ = cl::Context(device_, nullptr, nullptr, nullptr, &err);
  PF_CHECK_CL_AS(err, "clCreateContext");
  queue_ = cl::CommandQueue(ctx_, device_, 0, &err);  // in order: launches need no events
  PF_CHECK_CL_AS(err, "clCreateCommandQueue");
  progs_ = std::make_unique<Programs>(ctx_, device_);
  std::string pname;
  PF_CHECK_CL(platform.getInfo(CL_PLATFORM_NAME, &pname));
  device_name_ = traits().name + " (" + pname + ")";
  cl_device_type type = 0;
  PF_CHECK_CL(device_.getInfo(CL_DEVICE_TYPE, &type));
  gpu_ = (type & CL_DEVICE_TYPE_GPU) != 0;
  cl_uint units = 1;
  PF_CHECK_CL(device_.getInfo(CL_DEVICE_MAX_COMPUTE_UNITS, &units));
  units_ = units;
  cl_ulong local = 0;
  PF_CHECK_CL(device_.getInfo(CL_DEVICE_LOCAL_MEM_SIZE, &local));
  local_mem_ = local;
  // 256 work-items (or the device's largest power of two below) and at most 4 groups per compute
  // unit: the launch shape of the CUDA twin, so that the two compare on the same GPU
  fast_block_ = 256;
  while (fast_block_ > 32 && static_cast<std::size_t>(fast_block_) > traits().max_group) fast_block_ /= 2;
  fast_groups_ = std::clamp<std::size_t>(4 * units_, 1, 1024);
  spdlog::debug("opencl: {} (Fast: {} groups of {})", device_name_, fast_groups_, fast_block_);
}

ClKernel& ClContext::kernel(std::string_view family, Precision prec, int block, std::string_view name,
                            std::string_view defines, int instance) {
  if (static_cast<std::size_t>(block) > traits().max_group)
    throw ConfigError("block size " + std::to_string(block) + " is larger than the largest work-group of " + device_name_ +
                      " (" + std::to_string(traits().max_group) + ")");
  return progs_->kernel(family, prec, block, name, defines, instance);
}

void ClContext::launch(cl::Kernel& k, const cl::NDRange& global, const cl::NDRange& local) {
  // A kernel's first launch with a work-group shape is timed on its own (the queue drained before
  // it, finished after it) and counted as building: PoCL compiles the kernel for its work-group
  // size there, as part of the launch.
  Shape shape{reinterpret_cast<std::size_t>(k()), 0, 0, 0};
  for (cl_uint d = 0; d < local.dimensions() && d < 3; ++d) shape[d + 1] = local.get()[d];
  const bool first = launched_.insert(shape).second;
  std::chrono::steady_clock::time_point t0;
  if (first) {
    PF_CHECK_CL(queue_.finish());  // not a wait of the run's: the first launch counts as building
    t0 = std::chrono::steady_clock::now();
  }
  cl_int err;
  if (first) {
    err = queue_.enqueueNDRangeKernel(k, cl::NullRange, global, local);
  } else {
    TallyTimer timed(TallyTimer::Enqueue);
    err = queue_.enqueueNDRangeKernel(k, cl::NullRange, global, local);
  }
  if (err == CL_INVALID_WORK_GROUP_SIZE || err == CL_OUT_OF_RESOURCES) {
    std::string name;
    PF_CHECK_CL(k.getInfo(CL_KERNEL_FUNCTION_NAME, &name));
    std::size_t size = 1;
    for (cl_uint d = 0; d < local.dimensions(); ++d) size *= local.get()[d];
    throw ConfigError("kernel " + name + " cannot run work-groups of " + std::to_string(size) + " on " + device_name_ + " (" +
                      cl_error_name(err) + ", the driver suggests at most " + std::to_string(progs_->max_group(k)) +
                      "); use a smaller block size");
  }
  PF_CHECK_CL_AS(err, "clEnqueueNDRangeKernel");
  if (first) {
    PF_CHECK_CL(queue_.finish());
    record_first_launch(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
}

void ClContext::launch_points(cl::Kernel& k, std::size_t n) {
  const std::size_t b = static_cast<std::size_t>(fast_block_);
  launch(k, (n + b - 1) / b * b, b);
}

void ClContext::require_int64_atomics(Precision p) const {
  if (p == Precision::Double && !traits().int64_atomics)
    throw BackendError("the OpenCL device " + device_name_ +
                       " lacks cl_khr_int64_base_atomics/cl_khr_int64_extended_atomics, which double reductions "
                       "combined with atomics need; use --combine host or float");
}

void ClContext::ensure(std::unique_ptr<ClBuffer>& b, std::size_t bytes) {
  if (!b || b->bytes() < bytes) b = std::make_unique<ClBuffer>(ctx_, std::max<std::size_t>(bytes, 1 << 16));
}

namespace set_args_detail {

void Setter::missing() const {
  throw BackendError("kernel " + k_.name() + ": argument " + std::to_string(next_) + " is a buffer the kernel needs, and none was given");
}

void count_mismatch(const ClKernel& k, cl_uint given) {
  throw BackendError("kernel " + k.name() + " takes " + std::to_string(k.params()) + " arguments, " + std::to_string(given) +
                     " were given (its description, kernel_args(), and its extras disagree with the kernel's parameters)");
}

}  // namespace set_args_detail

}  // namespace poreflow::ocl
