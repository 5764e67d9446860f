#pragma once
// SIGINT and SIGTERM during a run: the handler only records the signal; the driver looks after
// every step, writes a checkpoint, flushes its outputs and returns (core/run/driver.cpp).
namespace poreflow {

// While one lives, SIGINT and SIGTERM are recorded instead of ending the process. A second signal
// of the same kind ends it at once (the default action): a checkpoint is renamed into place only
// when complete, so that never leaves a damaged one.
class InterruptGuard {
 public:
  InterruptGuard();
  ~InterruptGuard();
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;
};

// the signal recorded since the guard was made, 0 when none
int interrupt_signal();
// for tests: as if `sig` had arrived
void request_interrupt(int sig);

}  // namespace poreflow
