#include "backends/registry.hpp"

#include <omp.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <thread>

#include "backends/host/omp_backend.hpp"
#include "core/base/error.hpp"
#include "backends/host/host_backend.hpp"
#if POREFLOW_HAVE_CUDA
#include "backends/cuda/cuda_backend.hpp"
#endif
#if POREFLOW_HAVE_OPENCL
#include "backends/opencl/opencl_backend.hpp"
#endif

namespace poreflow {
namespace {

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
  return s;
}

[[noreturn, maybe_unused]] void not_compiled(std::string_view name, const char* package) {
  throw NotCompiled("the " + std::string(name) + " backend was not compiled into this poreflow (" + package +
                    " was not found at configure time); available backends: " + join(available_backends()));
}

std::unique_ptr<Backend> make_cuda(const BackendOptions& o) {
#if POREFLOW_HAVE_CUDA
  int count = cuda_device_count();
  if (count == 0)
    throw BackendError("the cuda backend found no CUDA device; available backends: " + join(available_backends()));
  int dev = o.cuda_device;
  if (dev < 0) {
    // one GPU per process: the MPI processes of this node take the devices in turn
    if (o.node_processes > count)
      throw ConfigError(std::to_string(o.node_processes) + " MPI processes on this node but " + std::to_string(count) +
                        " CUDA device(s): one device per process (start fewer processes per node, or name one "
                        "with --device N for all of them to share)");
    dev = o.node_rank;
  }
  if (dev >= count)
    throw ConfigError("--device " + std::to_string(dev) + " does not exist: " + std::to_string(count) +
                      " CUDA device(s), numbered from 0");
  return make_cuda_backend(dev);
#else
  not_compiled("cuda", "the CUDA toolkit (nvcc)");
#endif
}

std::unique_ptr<Backend> make_opencl(const BackendOptions& o) {
#if POREFLOW_HAVE_OPENCL
  return make_opencl_backend(o.cl_platform, o.cl_device, o.node_rank, o.node_processes);
#else
  not_compiled("opencl", "OpenCL (ocl-icd-opencl-dev, opencl-clhpp-headers)");
#endif
}

bool cuda_usable() {
#if POREFLOW_HAVE_CUDA
  return cuda_device_count() > 0;
#else
  return false;
#endif
}

bool opencl_usable(bool gpu_only) {
#if POREFLOW_HAVE_OPENCL
  auto devs = opencl_devices();
  return std::any_of(devs.begin(), devs.end(), [&](const ClDeviceInfo& d) { return !gpu_only || d.gpu; });
#else
  return false;
#endif
}

}  // namespace

const std::vector<std::string>& backend_names() {
  static const std::vector<std::string> names = {"serial", "omp", "opencl", "cuda"};
  return names;
}

bool backend_compiled(std::string_view name) {
  if (name == "serial" || name == "omp") return true;
  if (name == "cuda") return POREFLOW_HAVE_CUDA;
  if (name == "opencl") return POREFLOW_HAVE_OPENCL;
  return false;
}

std::vector<std::string> available_backends() {
  std::vector<std::string> v = {"serial", "omp"};
  if (opencl_usable(false)) v.push_back("opencl");
  if (cuda_usable()) v.push_back("cuda");
  return v;
}

std::unique_ptr<Backend> make_backend(std::string_view name, const BackendOptions& opts, std::string* choice) {
  auto chose = [choice](const std::string& line) {
    if (choice) *choice = line;
    else spdlog::info("{}", line);
  };
  if (name == "serial") return make_serial_backend();
  if (name == "omp") return make_omp_backend(opts.omp_threads);
  if (name == "cuda") return make_cuda(opts);
  if (name == "opencl") return make_opencl(opts);
  if (name == "auto") {
    if (cuda_usable()) {
      auto be = make_cuda(opts);
      chose("--backend auto chose cuda (" + be->device_name() + ")");
      return be;
    }
#if POREFLOW_HAVE_OPENCL
    for (const auto& d : opencl_devices()) {
      if (!d.gpu) continue;
      // the first GPU's platform; under mpirun (cl_device -1) each process takes its rank's device there
      const bool spread = opts.cl_device < 0 && opts.node_processes > 1;
      auto be = make_opencl_backend(opts.cl_platform.empty() ? d.platform : opts.cl_platform,
                                    spread ? -1 : opts.cl_platform.empty() ? d.index : std::max(0, opts.cl_device), opts.node_rank,
                                    opts.node_processes);
      chose("--backend auto chose opencl (" + be->device_name() + ")");
      return be;
    }
#endif
    auto be = make_omp_backend(opts.omp_threads);
    chose("--backend auto chose omp (" + be->device_name() + "): no CUDA device and no OpenCL GPU");
    return be;
  }
  throw ConfigError("unknown backend '" + std::string(name) + "' (expected serial, omp, opencl, cuda or auto; available here: " +
                    join(available_backends()) + ")");
}

std::vector<BackendInfo> describe_backends() {
  std::vector<BackendInfo> out;
  out.push_back({"serial", true, {"CPU, 1 thread (the reference)"}});
  out.push_back({"omp", true,
                 {"CPU, " + std::to_string(omp_get_max_threads()) + " OpenMP threads (" +
                  std::to_string(std::thread::hardware_concurrency()) + " hardware threads)"}});
  BackendInfo cl{"opencl", POREFLOW_HAVE_OPENCL, {}};
#if POREFLOW_HAVE_OPENCL
  cl.lines = opencl_describe();
#endif
  if (!cl.compiled) cl.lines = {"not compiled"};
  out.push_back(cl);
  BackendInfo cu{"cuda", POREFLOW_HAVE_CUDA, {}};
#if POREFLOW_HAVE_CUDA
  cu.lines = cuda_describe_devices();
#endif
  if (!cu.compiled) cu.lines = {"not compiled"};
  out.push_back(cu);
  return out;
}

}  // namespace poreflow
