#pragma once
// Recording on OpenCL (Backend::begin_recording; core/linalg/krylov.cpp records two iterations of
// a solve). NVIDIA's OpenCL offers no command buffers (cl_khr_command_buffer), so a recording is
// the list of the commands enqueued while it lasted, each launch with a copy of its kernel's
// arguments as they were. A replay enqueues that list: each launch sets on its kernel the
// arguments that differ from the copy (the kernel keeps its arguments on the host, ClKernel::args)
// and none of the layers above the queue run (solver, preconditioner, family, kernel lookup).
// The same kernel objects as the plain launches: a kernel object of its own for every recorded
// launch made NVIDIA's enqueues slower (docs/linalg.md, "Recorded iterations").
#include <array>
#include <cstddef>
#include <memory>
#include <utility>
#include <vector>

#include "backends/opencl/program.hpp"
#include "core/kernels/backend.hpp"

namespace poreflow::ocl {

// A command kept by a recording: a launch (its kernel's arguments copied), a fill or a copy.
struct ClCommand {
  enum class Kind { Launch, Fill, Copy } kind = Kind::Launch;
  ClKernel* source = nullptr;  // Launch: the kernel launched
  std::vector<ClKernel::Arg> args;
  cl_uint dims = 1;
  std::array<std::size_t, 3> global{}, local{};
  cl::Buffer dst, src;  // Fill: dst; Copy: src to dst
  std::size_t offset = 0, src_offset = 0, bytes = 0;
  std::array<unsigned char, 16> pattern{};
  std::size_t pattern_size = 0;

  static ClCommand launch(ClKernel& k, const cl::NDRange& global, const cl::NDRange& local);
};

class ClRecording final : public Backend::Recording {
 public:
  ClRecording(cl::CommandQueue queue, std::vector<ClCommand> commands) : queue_(std::move(queue)), cmds_(std::move(commands)) {}
  void replay() override;
  std::size_t commands() const { return cmds_.size(); }

 private:
  cl::CommandQueue queue_;
  std::vector<ClCommand> cmds_;
};

}  // namespace poreflow::ocl
