#pragma once
// String -> Backend. Never falls back silently: a backend that was not built throws NotCompiled,
// one without a usable device throws BackendError naming the backends that are available.
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernels/backend.hpp"

namespace poreflow {

struct BackendOptions {
  // --device N; -1: one device per MPI process of the node, by its local rank (0 for a process alone)
  int cuda_device = -1;
  int node_rank = 0, node_processes = 1;  // this process among the MPI processes of its node (core/comm/mpi.hpp)
  std::string cl_platform;  // --cl-platform NAME (substring, case-insensitive); empty: first with a device
  int cl_device = -1;       // --cl-device N (index within the chosen platform); -1: as cuda_device's -1
  int omp_threads = 0;      // 0: OpenMP default
};

// "serial", "omp", "opencl", "cuda", in the order `info` lists them
const std::vector<std::string>& backend_names();
bool backend_compiled(std::string_view name);

// Creates the named backend; "auto" picks cuda, then an OpenCL GPU, then omp, and logs the choice,
// or, given `choice`, writes that line there for the caller to log (after it has checked its case).
std::unique_ptr<Backend> make_backend(std::string_view name, const BackendOptions& opts = {}, std::string* choice = nullptr);

// Backends that are compiled and see a device right now.
std::vector<std::string> available_backends();

// For `poreflow info`: one entry per backend with a line per device (or why there is none).
struct BackendInfo {
  std::string name;
  bool compiled = false;
  std::vector<std::string> lines;
};
std::vector<BackendInfo> describe_backends();

}  // namespace poreflow
