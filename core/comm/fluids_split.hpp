#pragma once
// fluids3d on a grid cut into slabs along z between processes (docs/mpi.md). A slab's layers are
// contiguous in its arrays, so what its neighbours need of them is a contiguous range, read and
// written straight from the array with no pack kernel:
//   - LayerExchange: the first and last `layers` layers of a slab go to the extra layers of the
//     neighbours below and above (the fields' ghost layers, advect's longer trace);
//   - HaloFluidsSplit: lin_solve's colour-packed arrays keep an extra plane of each colour below
//     and above (core/physics/fluids3d.h); after each colour's sweep that colour's first and last
//     planes go to the neighbours, and after a checking black sweep the check's slot becomes the
//     maximum over every process, so every process decides alike.
#include <cstdint>
#include <functional>
#include <memory>

#include "core/comm/communicator.hpp"
#include "core/comm/decomposition.hpp"
#include "core/kernels/backend.hpp"
#include "core/kernels/fluids3d.hpp"

namespace poreflow {

class LayerExchange {
 public:
  // the neighbours below and above this process (-1: none, a wall), layers of layer_bytes bytes,
  // at most max_layers of them a side
  LayerExchange(const Communicator& comm, int below, int above, Backend& be, std::size_t layer_bytes, long max_layers);
  ~LayerExchange();
  // x holds nz layers from byte `base` on, with room for `layers` more below and above: its layers
  // [0, layers) go to the process below, [nz - layers, nz) above; theirs land in [-layers, 0) and
  // [nz, nz + layers). exchange is start then finish: between them the device may go on with
  // other work (the read of start is enqueued after what came before it, the write of finish
  // before what comes after).
  void exchange(Buffer& x, std::size_t base, long nz, long layers) const;
  void start(Buffer& x, std::size_t base, long nz, long layers) const;
  // (go, if given, is asked once the reads are done: false skips the send and the write, as every
  // process must alike)
  void finish(Buffer& x, std::size_t base, long nz, long layers, const std::function<bool()>& go = nullptr) const;
  bool any() const { return peer_[0] >= 0 || peer_[1] >= 0; }
  long exchanges() const { return exchanges_; }
  std::size_t bytes_sent() const { return bytes_sent_; }  // by this process, all exchanges

 private:
  const Communicator& comm_;
  Backend& be_;
  std::size_t layer_ = 0;
  long max_layers_ = 0;
  int peer_[2] = {-1, -1};                      // below, above
  std::unique_ptr<StagingBuffer> send_, recv_;  // max_layers a side: below, above
  mutable std::unique_ptr<Backend::Marker> read_;  // after start's reads
  mutable long exchanges_ = 0;
  mutable std::size_t bytes_sent_ = 0;
};

// The hook the backends call after each colour of a slab's solve (FluidsSolveArgs::split).
class HaloFluidsSplit final : public FluidsSolveSplit {
 public:
  HaloFluidsSplit(Backend& be, const LayerExchange& planes, const Communicator& comm)
      : be_(be), planes_(planes), combine_(comm.device_combine()), stop_(be.alloc_staging(sizeof(std::uint64_t))) {}
  // the colour's outer planes start back to the host while the rest of it is swept
  void outer_swept(const FluidsSolveArgs& a, int colour, const FusedPlan& plan) const override;
  void after_sweep(const FluidsSolveArgs& a, int colour, const FusedPlan& plan) const override;
  // the packed x's neighbour planes of one colour, or of both (before a solve starts)
  void exchange(Buffer& x, const FluidsSolveArgs& a, int colour) const;

 private:
  std::size_t plane_base(const FluidsSolveArgs& a, int colour) const;  // byte of the colour's layer 0

  Backend& be_;
  const LayerExchange& planes_;
  const DeviceCombine* combine_;
  std::unique_ptr<StagingBuffer> stop_;  // the control block's stop word, read with the planes
};

}  // namespace poreflow
