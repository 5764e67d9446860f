#include "core/comm/communicator.hpp"

namespace poreflow {
namespace {

class SelfCommunicator final : public Communicator {
 public:
  int rank() const override { return 0; }
  int size() const override { return 1; }
  double sum(double local) const override { return local; }
  double max(double local) const override { return local; }
  double min(double local) const override { return local; }
  long sum(long local) const override { return local; }
  long max(long local) const override { return local; }
  void sum(std::span<double>) const override {}
  void max(std::span<double>) const override {}
  bool any(bool local) const override { return local; }
  const DeviceCombine* device_combine() const override { return nullptr; }
};

}  // namespace

const Communicator& self_communicator() {
  static const SelfCommunicator self;
  return self;
}

}  // namespace poreflow
