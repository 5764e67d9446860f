#pragma once
// The red-black SOR sweeps of a box cut between processes (core/kernels/sor3d.hpp, Sor3DSplit):
// after each colour the ghosts of p come from their owners, and after a checking iteration the
// check's slot becomes the maximum over every process, so every process decides alike.
#include <cstdint>

#include "core/base/converge.h"
#include "core/comm/communicator.hpp"
#include "core/comm/halo_exchange.hpp"
#include "core/kernels/sor3d.hpp"

namespace poreflow {

class HaloSorSplit final : public Sor3DSplit {
 public:
  HaloSorSplit(Backend& be, const HaloExchange& ex, const Communicator& comm)
      : be_(be), ex_(ex), combine_(comm.device_combine()) {}
  void after_sweep(const Sor3DArgs& a, int colour, const FusedPlan& plan) const override {
    // a batch runs past the device's stop (its launches return at once): nothing to exchange then.
    // The stop was decided from the combined slot, so every process skips alike.
    std::uint64_t stop = 0;
    be_.download(*a.ctrl, &stop, sizeof stop, PF_CV_STOP * sizeof stop);
    if (stop) return;
    ex_.exchange(*a.p);
    if (colour == 1 && plan.check && combine_) combine_->max_words(*a.ctrl, PF_CV_SLOT0 + static_cast<std::size_t>(plan.check_slot), 1);
  }

 private:
  Backend& be_;
  const HaloExchange& ex_;
  const DeviceCombine* combine_;
};

}  // namespace poreflow
