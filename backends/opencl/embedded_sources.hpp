#pragma once
// OpenCL C sources embedded at build time by cmake/EmbedOpenCL.cmake, which generates the
// definition of all() (opencl_embedded.cpp): every kernels_cl/*.cl file and the shared headers of
// core/kernels and core/physics, named by their paths in the repository, each with what it
// #includes (the #include lines themselves are dropped from the text).
#include <string>
#include <vector>

namespace poreflow::cl_src {

struct EmbeddedSource {
  std::string name, text;
  std::vector<std::string> deps;  // the names it #includes, in order
};

const std::vector<EmbeddedSource>& all();

}  // namespace poreflow::cl_src
