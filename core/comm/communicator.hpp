#pragma once
// The one place that knows how many processes share a run. Every global reduction and every
// convergence or time-step decision goes through a Communicator: a process reduces what it holds
// (on its device, or on the host), the communicator combines the processes' results, and only
// then is anything decided. Today's runs hold the whole grid in one process (self_communicator(),
// size 1: every combine returns its input and the device hook does nothing); an MPI
// implementation replaces it without touching a kernel (docs/architecture.md, "Communicator").
#include <cstddef>
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

  // The device hook (core/kernels/combine.hpp) a family calls between a launch that folded a check
  // into its control words and the launch that decides on them; nullptr when there is nothing to
  // combine (one process), so a single-process run enqueues exactly what it did before.
  virtual const DeviceCombine* device_combine() const = 0;
};

// The single-process communicator.
const Communicator& self_communicator();

}  // namespace poreflow
