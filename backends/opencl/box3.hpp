#pragma once
// How the OpenCL backend covers a box (core/kernels/box3.hpp): the #defines a box family is built
// with for a launch shape, and the NDRange. Shared by every 3D family (kernels_cl/box3_device.cl).
#include <string>

#include "backends/opencl/context.hpp"
#include "core/kernels/box3.hpp"

namespace poreflow::ocl {

struct BoxLaunchCl {
  std::string defines;  // PF_BOX_BX, PF_BOX_BY, PF_BOX_BZ
  int threads = 0;      // the work-group size (the program's PF_BLOCK)
  cl::NDRange global, local;
};

// The launch covering nx x ny x nz cells with shape s.
BoxLaunchCl box_launch(long nx, long ny, long nz, const BoxShape& s);

// The launch covering all of box b's cells with shape s, for PF_BOX_CELLS_BEGIN: box_launch's, and
// PF_BOX_INDEX as box_narrow_index(b, s) says.
BoxLaunchCl box_launch_cells(const pf_box3& b, const BoxShape& s);

}  // namespace poreflow::ocl
