#pragma once
// Internal to core/comm: a Communicator object with self_communicator()'s behaviour, for
// Session::world in a run of one process.
#include "core/comm/communicator.hpp"

namespace poreflow::mpi {

class SelfWorld final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  double sum(double v) const override { return v; }
  double max(double v) const override { return v; }
  double min(double v) const override { return v; }
  long sum(long v) const override { return v; }
  long max(long v) const override { return v; }
  void sum(std::span<double>) const override {}
  void max(std::span<double>) const override {}
  bool any(bool v) const override { return v; }
  void max(std::span<std::uint64_t>) const override {}
  void exchange(std::span<const Transfer> t) const override { self_communicator().exchange(t); }
  void broadcast(void* d, std::size_t n, int root) const override { self_communicator().broadcast(d, n, root); }
  const DeviceCombine* device_combine() const override { return nullptr; }
};

}  // namespace poreflow::mpi
