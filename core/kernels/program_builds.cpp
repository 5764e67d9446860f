#include "core/kernels/program_builds.hpp"

#include <mutex>

namespace poreflow {

namespace {
std::mutex mu;
ProgramBuilds total;
}  // namespace

void record_program_build(double seconds) {
  std::lock_guard<std::mutex> lock(mu);
  total.seconds += seconds;
  ++total.programs;
}

void record_first_launch(double seconds) {
  std::lock_guard<std::mutex> lock(mu);
  total.seconds += seconds;
  ++total.first_launches;
}

ProgramBuilds program_builds() {
  std::lock_guard<std::mutex> lock(mu);
  return total;
}

}  // namespace poreflow
