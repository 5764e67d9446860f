#pragma once
// An observer that asks for SIGTERM's stop after the model's k-th step, as a signal arriving then
// would: the driver then writes a checkpoint and returns (tests of checkpoints and restarts).
#include <csignal>

#include "core/models/observer.hpp"
#include "core/run/interrupt.hpp"

namespace poreflow::test {

class StopAfter final : public Observer {
 public:
  explicit StopAfter(long k) : k_(k) {}
  void step(const Model& m) override {
    if (m.steps() == k_) request_interrupt(SIGTERM);
  }

 private:
  long k_;
};

}  // namespace poreflow::test
