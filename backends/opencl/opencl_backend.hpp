#pragma once
// Host side of the OpenCL backend. Only compiled when OpenCL is (POREFLOW_HAVE_OPENCL).
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/backend.hpp"

namespace poreflow {

struct ClDeviceInfo {
  std::string platform;
  int index = 0;  // within its platform
  std::string name, version;
  bool gpu = false, fp64 = false;
};
std::vector<ClDeviceInfo> opencl_devices();  // every platform's devices; empty without a driver
std::vector<std::string> opencl_describe();  // lines for `poreflow info`

// platform: case-insensitive substring of the platform name ("" = first platform with a device);
// device < 0: the platform's device node_rank, one per MPI process of the node (docs/mpi.md)
std::unique_ptr<Backend> make_opencl_backend(const std::string& platform, int device, int node_rank = 0, int node_processes = 1);

}  // namespace poreflow
