#include "core/comm/communicator.hpp"

#include <cstring>
#include <string>

#include "core/base/error.hpp"

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
  void max(std::span<std::uint64_t>) const override {}
  void exchange(std::span<const Transfer> transfers) const override {
    for (const Transfer& t : transfers) {
      if (t.peer != 0) throw ConfigError("a transfer to process " + std::to_string(t.peer) + " in a run of one process");
      if (t.bytes) std::memmove(t.recv, t.send, t.bytes);
    }
  }
  void broadcast(void*, std::size_t, int root) const override {
    if (root != 0) throw ConfigError("a broadcast from process " + std::to_string(root) + " in a run of one process");
  }
  void gather(const void* send, std::size_t bytes, void* recv, std::span<const std::size_t>, int root) const override {
    if (root != 0) throw ConfigError("a gather to process " + std::to_string(root) + " in a run of one process");
    if (bytes) std::memmove(recv, send, bytes);
  }
  const DeviceCombine* device_combine() const override { return nullptr; }
};

}  // namespace

const Communicator& self_communicator() {
  static const SelfCommunicator self;
  return self;
}

std::unique_ptr<Communicator> make_self_communicator() { return std::make_unique<SelfCommunicator>(); }

}  // namespace poreflow
