#pragma once
// The device hook of a communicator of several processes (core/kernels/combine.hpp) through the
// host: the words or values are read from the device, combined by the communicator's host
// reductions and written back. One read and one write of a few words per combine; the launches
// around it keep the rest of the solve on the device.
#include "core/comm/communicator.hpp"
#include "core/kernels/backend.hpp"
#include "core/kernels/combine.hpp"

namespace poreflow {

class StagedCombine final : public DeviceCombine {
 public:
  StagedCombine(const Communicator& comm, Backend& be) : comm_(comm), be_(be) {}
  void max_words(Buffer& words, std::size_t offset, std::size_t count) const override;
  void sum_values(Buffer& values, Precision prec, std::size_t offset, std::size_t count) const override;

 private:
  const Communicator& comm_;
  Backend& be_;
};

}  // namespace poreflow
