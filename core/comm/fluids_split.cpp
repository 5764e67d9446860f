#include "core/comm/fluids_split.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "core/base/converge.h"
#include "core/base/error.hpp"
#include "core/physics/fluids3d.h"

namespace poreflow {

LayerExchange::LayerExchange(const Communicator& comm, int below, int above, Backend& be, std::size_t layer_bytes, long max_layers)
    : comm_(comm), be_(be), layer_(layer_bytes), max_layers_(max_layers) {
  if (max_layers < 1) throw ConfigError("layer exchange: " + std::to_string(max_layers) + " layers");
  if (comm.size() > 1) {
    peer_[0] = below;
    peer_[1] = above;
  }
  if (any()) {
    send_ = be.alloc_staging(2 * static_cast<std::size_t>(max_layers) * layer_);
    recv_ = be.alloc_staging(2 * static_cast<std::size_t>(max_layers) * layer_);
  }
}

LayerExchange::~LayerExchange() = default;

void LayerExchange::exchange(Buffer& x, std::size_t base, long nz, long layers) const {
  if (!any()) return;
  if (layers < 1 || layers > max_layers_ || layers > nz)
    throw BackendError("layer exchange: " + std::to_string(layers) + " layers of a slab of " + std::to_string(nz) + " (at most " +
                       std::to_string(max_layers_) + ")");
  if (base < static_cast<std::size_t>(layers) * layer_)
    throw BackendError("layer exchange: no room for " + std::to_string(layers) + " layers below the slab");
  const std::size_t bytes = static_cast<std::size_t>(layers) * layer_, cap = static_cast<std::size_t>(max_layers_) * layer_;
  const std::size_t send_at[2] = {base, base + static_cast<std::size_t>(nz - layers) * layer_};
  const std::size_t recv_at[2] = {base - bytes, base + static_cast<std::size_t>(nz) * layer_};
  std::vector<Communicator::Transfer> t;
  for (int side = 0; side < 2; ++side) {
    if (peer_[side] < 0) continue;
    unsigned char* s = send_->data() + side * cap;
    be_.download(x, s, bytes, send_at[side]);
    // my upper side is my neighbour's lower one: the tag names the receiver's side
    t.push_back({peer_[side], s, recv_->data() + side * cap, bytes, 1 - side, side});
    bytes_sent_ += bytes;
  }
  comm_.exchange(t);
  for (int side = 0; side < 2; ++side)
    if (peer_[side] >= 0) be_.upload(x, recv_->data() + side * cap, bytes, recv_at[side]);
  ++exchanges_;
}

void HaloFluidsSplit::exchange(Buffer& x, const FluidsSolveArgs& a, int colour) const {
  const pf_box3 v = a.box.view();
  const std::size_t word = size_of(a.prec), plane = static_cast<std::size_t>(phys::fl_rb_plane(v));
  for (int c = 0; c < 2; ++c)
    if (colour < 0 || c == colour)
      planes_.exchange(x, (static_cast<std::size_t>(c) * static_cast<std::size_t>(phys::fl_rb_part(v)) + plane) * word, v.nz, 1);
}

void HaloFluidsSplit::after_sweep(const FluidsSolveArgs& a, int colour, const FusedPlan& plan) const {
  const std::size_t block = static_cast<std::size_t>(a.ctrl_block) * PF_CV_WORDS;
  // iterations enqueued past the device's stop return at once: nothing to exchange. The stop was
  // decided from the combined slot, so every process skips alike.
  std::uint64_t stop = 0;
  be_.download(*a.ctrl, &stop, sizeof stop, (block + PF_CV_STOP) * sizeof stop);
  if (stop) return;
  exchange(*a.x, a, colour);
  if (colour == 1 && plan.check && combine_)
    combine_->max_words(*a.ctrl, block + PF_CV_SLOT0 + static_cast<std::size_t>(plan.check_slot), 1);
}

}  // namespace poreflow
