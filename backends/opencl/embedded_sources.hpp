#pragma once
// OpenCL C sources embedded at build time by cmake/EmbedOpenCL.cmake, which generates the
// definition of all() (opencl_embedded.cpp). Names are "kernels/common.h", "physics/bl1d.h",
// "kernels_cl/reduce.cl", ...; the order is the one backends/CMakeLists.txt lists.
#include <string>
#include <vector>

namespace poreflow::cl_src {

struct EmbeddedSource {
  std::string name, text;  // #include lines already dropped
};

const std::vector<EmbeddedSource>& all();

}  // namespace poreflow::cl_src
