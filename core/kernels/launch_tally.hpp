#pragma once
// Where the host's time goes on a backend that launches kernels one by one (OpenCL): the launches
// it enqueued and the time inside those calls, and the time it waited for the device (blocking
// reads and writes, finishes, markers). Summed over the process, as the program builds are
// (program_builds.hpp); the time loop (core/run/driver.cpp) reports a run's share as
// opencl_launches, seconds_opencl_enqueue and seconds_opencl_wait. A run whose host waits little
// runs at the host's pace (its enqueues), one that waits much at the device's.
#include <chrono>

namespace poreflow {

struct LaunchTally {
  long launches = 0;
  double enqueue_seconds = 0;
  long waits = 0;
  double wait_seconds = 0;
};

void record_enqueue(double seconds);
void record_wait(double seconds);
LaunchTally launch_tally();  // so far

// times its scope as an enqueue or a wait
class TallyTimer {
 public:
  enum Kind { Enqueue, Wait };
  explicit TallyTimer(Kind k) : kind_(k), t0_(std::chrono::steady_clock::now()) {}
  ~TallyTimer() {
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    if (kind_ == Enqueue) record_enqueue(s);
    else record_wait(s);
  }
  TallyTimer(const TallyTimer&) = delete;
  TallyTimer& operator=(const TallyTimer&) = delete;

 private:
  Kind kind_;
  std::chrono::steady_clock::time_point t0_;
};

}  // namespace poreflow
