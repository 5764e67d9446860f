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

ClRecording::ClRecording(cl::CommandQueue queue, std::vector<ClCommand> commands)
    : queue_(std::move(queue)), cmds_(std::move(commands)) {
  for (const ClCommand& c : cmds_) {
    if (c.kind != ClCommand::Kind::Launch) continue;
    own_.push_back(c.source->another());
    own_.back().set_args_from(c.args);
  }
}

bool ClRecording::update(std::vector<ClCommand>& commands) {
  if (commands.size() != cmds_.size()) return false;
  for (std::size_t i = 0; i < commands.size(); ++i)
    if (commands[i].kind != cmds_[i].kind || commands[i].source != cmds_[i].source) return false;
  std::size_t l = 0;
  for (const ClCommand& c : commands)
    if (c.kind == ClCommand::Kind::Launch) own_[l++].set_args_from(c.args);
  cmds_ = std::move(commands);
  return true;
}

void ClRecording::replay() {
  std::size_t l = 0;
  for (const ClCommand& c : cmds_) {
    switch (c.kind) {
      case ClCommand::Kind::Launch:
        PF_CHECK_CL_AS(::clEnqueueNDRangeKernel(queue_(), own_[l++](), c.dims, nullptr, c.global.data(), c.local.data(), 0,
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
