#pragma once
// Recording on OpenCL (Backend::begin_recording; core/linalg/krylov.cpp records two iterations of
// a solve). NVIDIA's OpenCL offers no command buffers (cl_khr_command_buffer), so a recording is
// the list of the commands enqueued while it lasted, each launch with a kernel object of its own
// that holds the arguments as they were. A replay enqueues that list as it is: no argument is set
// and none of the layers above the queue run (solver, preconditioner, family, kernel lookup),
// which on NVIDIA's driver cost about as much again as the enqueue itself
// (tools/device/experiments/launch_cost_cl.cpp, docs/benchmarks.md).
#include <array>
#include <cstddef>
#include <memory>
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
  // The commands' kernels made anew (ClKernel::another) with the recorded arguments.
  ClRecording(cl::CommandQueue queue, std::vector<ClCommand> commands);
  // The same kernels in the same order: this recording takes the new commands, setting only the
  // arguments that changed. false (and nothing changed) otherwise.
  bool update(std::vector<ClCommand>& commands);
  void replay() override;
  std::size_t commands() const { return cmds_.size(); }

 private:
  cl::CommandQueue queue_;
  std::vector<ClCommand> cmds_;
  std::vector<ClKernel> own_;  // a kernel per launch, in order
};

}  // namespace poreflow::ocl
