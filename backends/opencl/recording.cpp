#include "backends/opencl/recording.hpp"

#include <utility>

#include "core/base/error.hpp"

namespace poreflow::ocl {

ClCommand ClCommand::launch(ClKernel& k, const cl::NDRange& global, const cl::NDRange& local) {
  if (global.dimensions() != local.dimensions() || global.dimensions() < 1 || global.dimensions() > 3)
    throw BackendError("kernel " + k.name() + ": a recorded launch needs global and work-group sizes of 1 to 3 dimensions");
  ClCommand c;
  c.kind = Kind::Launch;
  c.source = &k;
  c.args = k.args();
  c.dims = static_cast<cl_uint>(global.dimensions());
  for (cl_uint d = 0; d < c.dims; ++d) c.global[d] = global.get()[d], c.local[d] = local.get()[d];
  return c;
}

void ClRecording::replay() {
  for (const ClCommand& c : cmds_) {
    switch (c.kind) {
      case ClCommand::Kind::Launch:
        c.source->set_args_from(c.args);
        PF_CHECK_CL_AS(::clEnqueueNDRangeKernel(queue_(), (*c.source)(), c.dims, nullptr, c.global.data(), c.local.data(), 0,
                                                nullptr, nullptr),
                       "clEnqueueNDRangeKernel(" + c.source->name() + ", replayed)");
        break;
      case ClCommand::Kind::Fill:
        PF_CHECK_CL_AS(::clEnqueueFillBuffer(queue_(), c.dst(), c.pattern.data(), c.pattern_size, c.offset, c.bytes, 0,
                                             nullptr, nullptr),
                       "clEnqueueFillBuffer (replayed)");
        break;
      case ClCommand::Kind::Copy:
        PF_CHECK_CL_AS(::clEnqueueCopyBuffer(queue_(), c.src(), c.dst(), c.src_offset, c.offset, c.bytes, 0, nullptr, nullptr),
                       "clEnqueueCopyBuffer (replayed)");
        break;
    }
  }
}

}  // namespace poreflow::ocl
