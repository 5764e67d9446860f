#pragma once
// The time a process spends making device code at run time: OpenCL builds its programs when a run
// first uses them, and PoCL compiles each kernel again for its work-group size at its first
// launch. Recorded by the backend that does it, summed over the process; the time loop
// (core/run/driver.cpp) leaves it out of the step timings and reports it apart
// (seconds_opencl_build).
#include <chrono>

namespace poreflow {

struct ProgramBuilds {
  double seconds = 0;     // building programs and first launches, together
  long programs = 0;      // programs built
  long first_launches = 0;  // kernels launched for the first time (with a work-group shape)
};

void record_program_build(double seconds);
void record_first_launch(double seconds);
ProgramBuilds program_builds();  // so far

// A part's stopwatch (a model's assembly, linear solve, ...) that leaves out the device code built
// while it ran, as the time loop does: on a first run OpenCL builds its programs inside the parts
// that first launch them.
class PartTimer {
 public:
  PartTimer() : t0_(std::chrono::steady_clock::now()), built0_(program_builds().seconds) {}
  double seconds() const {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count() - (program_builds().seconds - built0_);
  }

 private:
  std::chrono::steady_clock::time_point t0_;
  double built0_;
};

}  // namespace poreflow
