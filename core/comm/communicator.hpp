#pragma once
// The one place that knows how many processes share a run. Every global reduction and every
// convergence or time-step decision goes through a Communicator: a process reduces what it holds
// (on its device, or on the host), the communicator combines the processes' results, and only
// then is anything decided. Today's runs hold the whole grid in one process (self_communicator(),
// size 1: every combine returns its input and the device hook does nothing); an MPI
// implementation replaces it without touching a kernel (docs/architecture.md, "Communicator").
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>

#include "core/kernels/combine.hpp"

namespace poreflow {

class Communicator {
 public:
  virtual ~Communicator() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool single() const { return size() == 1; }

  // host values: this process's part in, the whole run's result out (the same on every process)
  virtual double sum(double local) const = 0;
  virtual double max(double local) const = 0;
  virtual double min(double local) const = 0;
  virtual long sum(long local) const = 0;
  virtual long max(long local) const = 0;
  // element-wise, in place
  virtual void sum(std::span<double> values) const = 0;
  virtual void max(std::span<double> values) const = 0;
  // true on every process when it is true on any (a failed step, a stop)
  virtual bool any(bool local) const = 0;
  // element-wise maxima of 64-bit words (the control words of core/base/converge.h), in place
  virtual void max(std::span<std::uint64_t> words) const = 0;

  // Point-to-point: each transfer sends `bytes` from `send` to process `peer` and receives as
  // many from it into `recv`, tagged so that one pair may exchange several messages (the sender's
  // send_tag is the receiver's recv_tag). Everything is posted before anything is waited for.
  struct Transfer {
    int peer = -1;
    const void* send = nullptr;
    void* recv = nullptr;
    std::size_t bytes = 0;
    int send_tag = 0, recv_tag = 0;
  };
  virtual void exchange(std::span<const Transfer> transfers) const = 0;
  // root's bytes to every process
  virtual void broadcast(void* data, std::size_t bytes, int root) const = 0;
  // Every process's `bytes` to root, in rank order into recv (root's counts[r]: what process r
  // sends; recv holds their sum). The others' recv and counts are not read. Messages of any size.
  virtual void gather(const void* send, std::size_t bytes, void* recv, std::span<const std::size_t> counts, int root) const = 0;

  // The device hook (core/kernels/combine.hpp) a family calls between a launch that folded a check
  // into its control words and the launch that decides on them; nullptr when there is nothing to
  // combine (one process), so a single-process run enqueues exactly what it did before.
  virtual const DeviceCombine* device_combine() const = 0;
};

// root's bytes of any count into every process's `data` (a std::string or std::vector<char>),
// resized to root's size; sent in pieces of at most 1 GiB (MPI's counts are int)
template <class Bytes>
void broadcast_bytes(const Communicator& comm, Bytes& data, int root) {
  std::uint64_t n = data.size();
  comm.broadcast(&n, sizeof n, root);
  data.resize(n);
  constexpr std::size_t piece = std::size_t(1) << 30;
  for (std::size_t at = 0; at < n; at += piece) comm.broadcast(data.data() + at, n - at < piece ? n - at : piece, root);
}

// The single-process communicator (a transfer to itself copies), and an object of its own of it
// (where a caller owns its communicator: mpi::Session::world in a run of one process).
const Communicator& self_communicator();
std::unique_ptr<Communicator> make_self_communicator();

}  // namespace poreflow
