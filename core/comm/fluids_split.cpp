#include "core/comm/fluids_split.hpp"

#include <cstdint>
#include <cstring>
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
  start(x, base, nz, layers);
  finish(x, base, nz, layers);
}

void LayerExchange::start(Buffer& x, std::size_t base, long nz, long layers) const {
  if (!any()) return;
  if (layers < 1 || layers > max_layers_ || layers > nz)
    throw BackendError("layer exchange: " + std::to_string(layers) + " layers of a slab of " + std::to_string(nz) + " (at most " +
                       std::to_string(max_layers_) + ")");
  if (base < static_cast<std::size_t>(layers) * layer_)
    throw BackendError("layer exchange: no room for " + std::to_string(layers) + " layers below the slab");
  const std::size_t bytes = static_cast<std::size_t>(layers) * layer_, cap = static_cast<std::size_t>(max_layers_) * layer_;
  const std::size_t send_at[2] = {base, base + static_cast<std::size_t>(nz - layers) * layer_};
  for (int side = 0; side < 2; ++side)
    if (peer_[side] >= 0) be_.download_async(x, *send_, side * cap, bytes, send_at[side]);
  read_ = be_.mark();
}

void LayerExchange::finish(Buffer& x, std::size_t base, long nz, long layers, const std::function<bool()>& go) const {
  if (!any()) return;
  if (!read_) throw BackendError("layer exchange: finish without start");
  read_->wait();
  read_.reset();
  if (go && !go()) return;
  const std::size_t bytes = static_cast<std::size_t>(layers) * layer_, cap = static_cast<std::size_t>(max_layers_) * layer_;
  const std::size_t recv_at[2] = {base - bytes, base + static_cast<std::size_t>(nz) * layer_};
  std::vector<Communicator::Transfer> t;
  for (int side = 0; side < 2; ++side) {
    if (peer_[side] < 0) continue;
    // my upper side is my neighbour's lower one: the tag names the receiver's side
    t.push_back({peer_[side], send_->data() + side * cap, recv_->data() + side * cap, bytes, 1 - side, side});
    bytes_sent_ += bytes;
  }
  comm_.exchange(t);
  // written before whatever is enqueued next; the next start's wait comes after it, so the
  // staging memory is not reused while the write may still read it
  for (int side = 0; side < 2; ++side)
    if (peer_[side] >= 0) be_.upload_async(x, recv_at[side], *recv_, side * cap, bytes);
  ++exchanges_;
}

std::size_t HaloFluidsSplit::plane_base(const FluidsSolveArgs& a, int colour) const {
  const pf_box3 v = a.box.view();
  return (static_cast<std::size_t>(colour) * static_cast<std::size_t>(phys::fl_rb_part(v)) +
          static_cast<std::size_t>(phys::fl_rb_plane(v))) * size_of(a.prec);
}

void HaloFluidsSplit::exchange(Buffer& x, const FluidsSolveArgs& a, int colour) const {
  for (int c = 0; c < 2; ++c)
    if (colour < 0 || c == colour) planes_.exchange(x, plane_base(a, c), a.box.nz, 1);
}

void HaloFluidsSplit::outer_swept(const FluidsSolveArgs& a, int colour, const FusedPlan& plan) const {
  // the stop word (the red sweep's first part decided), then the colour's first and last planes:
  // read back while the rest of the colour is swept
  const std::size_t block = static_cast<std::size_t>(a.ctrl_block) * PF_CV_WORDS;
  be_.download_async(*a.ctrl, *stop_, 0, sizeof(std::uint64_t), (block + PF_CV_STOP) * sizeof(std::uint64_t));
  planes_.start(*a.x, plane_base(a, colour), a.box.nz, 1);
}

void HaloFluidsSplit::after_sweep(const FluidsSolveArgs& a, int colour, const FusedPlan& plan) const {
  const std::size_t block = static_cast<std::size_t>(a.ctrl_block) * PF_CV_WORDS;
  // finish waits for the reads (not for the rest of the sweep); iterations enqueued past the
  // device's stop return at once, so then there is nothing to send. The stop was decided from the
  // combined slot, so every process skips alike.
  planes_.finish(*a.x, plane_base(a, colour), a.box.nz, 1, [&] {
    std::uint64_t stop = 0;
    std::memcpy(&stop, stop_->data(), sizeof stop);
    return stop == 0;
  });
  if (colour == 1 && plan.check && combine_)
    combine_->max_words(*a.ctrl, block + PF_CV_SLOT0 + static_cast<std::size_t>(plan.check_slot), 1);
}

}  // namespace poreflow
