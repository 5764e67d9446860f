#include "core/kernels/launch_tally.hpp"

#include <mutex>

namespace poreflow {

namespace {
std::mutex mu;  // uncontended: a launch's lock costs some 20 ns against its microseconds
LaunchTally total;
}  // namespace

void record_enqueue(double seconds) {
  std::lock_guard<std::mutex> lock(mu);
  ++total.launches;
  total.enqueue_seconds += seconds;
}

void record_wait(double seconds) {
  std::lock_guard<std::mutex> lock(mu);
  ++total.waits;
  total.wait_seconds += seconds;
}

LaunchTally launch_tally() {
  std::lock_guard<std::mutex> lock(mu);
  return total;
}

}  // namespace poreflow
