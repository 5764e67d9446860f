#pragma once
// The combine hook between a device's local reduction and the decision that reads it. A family
// whose kernels fold a check into control words (core/base/converge.h) and decide on them in a
// later launch takes an optional DeviceCombine: its checked calls (core/kernels/F.cpp, written once
// for every backend) split a batch of iterations after each checking launch and call the hook
// there, so that across processes the decision sees the global metric. The communicator
// (core/comm/communicator.hpp) provides it; a single process passes none and its launches are
// exactly those of a batch without the hook.
#include <cstddef>

#include "core/base/types.hpp"

namespace poreflow {

class Buffer;

class DeviceCombine {
 public:
  virtual ~DeviceCombine() = default;
  // words[offset, offset + count) (64-bit) hold this process's maxima as the bits of non-negative
  // numbers (which order like the numbers, NaN above all); afterwards the maxima over every process
  virtual void max_words(Buffer& words, std::size_t offset, std::size_t count) const = 0;
  // values[offset, offset + count) (of precision prec) hold this process's sums (a Krylov solve's
  // dot products, core/linalg); afterwards the sums over every process, the same on each
  virtual void sum_values(Buffer& values, Precision prec, std::size_t offset, std::size_t count) const = 0;
};

}  // namespace poreflow
