#include "core/comm/halo_exchange.hpp"

#include <string>

#include "core/base/error.hpp"
#include "core/kernels/halo3d.hpp"

namespace poreflow {

// one direction's device buffers and host staging: both sides, low first
struct HaloExchange::Stage {
  std::size_t face = 0;  // values a side
  std::unique_ptr<Buffer> send, recv, zero;  // zero: what clear unpacks
  std::unique_ptr<StagingBuffer> hsend, hrecv;  // pinned where the backend has it
};

HaloExchange::HaloExchange(const Communicator& comm, const Decomposition& d, Backend& be, const Box3& box, Precision prec,
                           BoxShape shape, int block)
    : comm_(comm), be_(be), box_(box), prec_(prec), shape_(shape), block_(block) {
  if (block != 1 && block != 2) throw ConfigError("halo exchange: " + std::to_string(block) + " values a cell (1 or 2)");
  if (d.size() != comm.size())
    throw ConfigError("halo exchange: a decomposition into " + std::to_string(d.size()) + " boxes for " +
                      std::to_string(comm.size()) + " processes");
  const RankBox mine = d.box(comm.rank());
  if (mine.nx != box.nx || mine.ny != box.ny || mine.nz != box.nz)
    throw ConfigError("halo exchange: the box " + box.describe() + " is not process " + std::to_string(comm.rank()) + "'s " +
                      std::to_string(mine.nx) + " x " + std::to_string(mine.ny) + " x " + std::to_string(mine.nz) + " cells");
  for (int dir = 0; dir < 3; ++dir) {
    for (int side = 0; side < 2; ++side) {
      const int p = comm.size() > 1 ? d.neighbour(comm.rank(), dir, side) : -1;
      peer_[dir][side] = p;
      if (p < 0) continue;
      const RankBox other = d.box(p);
      const long across = dir == 0 ? other.nx : dir == 1 ? other.ny : other.nz;
      const long own = dir == 0 ? box.nx : dir == 1 ? box.ny : box.nz;
      if (std::min(across, own) < box.halo)
        throw ConfigError("halo exchange: processes " + std::to_string(comm.rank()) + " and " + std::to_string(p) + " hold " +
                          std::to_string(own) + " and " + std::to_string(across) + " cells across direction " + "xyz"[dir] +
                          ", fewer than the halo " + std::to_string(box.halo) + " (fewer processes along it)");
    }
  }
  make_stages();
}

HaloExchange::HaloExchange(const HaloExchange& like, int block) : HaloExchange(like, block, like.prec_) {}

HaloExchange::HaloExchange(const HaloExchange& like, int block, Precision prec)
    : comm_(like.comm_), be_(like.be_), box_(like.box_), prec_(prec), shape_(like.shape_), block_(block), peer_(like.peer_) {
  if (block != 1 && block != 2) throw ConfigError("halo exchange: " + std::to_string(block) + " values a cell (1 or 2)");
  make_stages();
}

// the device buffers and host staging of each direction with a shared face
void HaloExchange::make_stages() {
  const std::size_t word = this->word();
  for (int dir = 0; dir < 3; ++dir) {
    if ((peer_[dir][0] < 0 && peer_[dir][1] < 0) || box_.halo == 0) continue;
    any_ = true;
    auto s = std::make_unique<Stage>();
    s->face = Halo3DPackArgs::face_values(box_, dir);
    s->send = be_.alloc(2 * s->face * word);
    s->recv = be_.alloc(2 * s->face * word);
    s->zero = be_.alloc(2 * s->face * word);
    be_.fill(*s->zero, prec_, 0.0, 2 * s->face * static_cast<std::size_t>(block_));
    s->hsend = be_.alloc_staging(2 * s->face * word);
    s->hrecv = be_.alloc_staging(2 * s->face * word);
    stage_[static_cast<std::size_t>(dir)] = std::move(s);
  }
}

HaloExchange::~HaloExchange() = default;

std::size_t HaloExchange::bytes_per_exchange() const {
  const std::size_t word = this->word();
  std::size_t b = 0;
  for (int dir = 0; dir < 3; ++dir)
    for (int side = 0; side < 2; ++side)
      if (peer_[dir][side] >= 0 && stage_[static_cast<std::size_t>(dir)]) b += stage_[static_cast<std::size_t>(dir)]->face * word;
  return b;
}

std::size_t HaloExchange::word() const {
  return (prec_ == Precision::Float ? sizeof(float) : sizeof(double)) * static_cast<std::size_t>(block_);
}

Halo3DPackArgs HaloExchange::pack_args(Buffer& field, const Box3& box, int dir, Buffer* buf, bool unpack) const {
  Halo3DPackArgs p;
  p.prec = prec_;
  p.box = box;
  p.field = &field;
  p.buf = buf;
  p.dir = dir;
  p.unpack = unpack;
  p.sides = (peer_[dir][0] >= 0 ? 1 : 0) | (peer_[dir][1] >= 0 ? 2 : 0);
  p.shape = shape_;
  p.block = block_;
  return p;
}

void HaloExchange::exchange(Buffer& field) const { exchange_box(field, box_); }

void HaloExchange::exchange(Buffer& field, int planes, std::size_t plane_values) const {
  Box3 b = box_;
  for (int q = 0; q < planes; ++q, b.off += static_cast<long>(plane_values)) exchange_box(field, b);
}

void HaloExchange::exchange_box(Buffer& field, const Box3& box) const {
  if (!any_) return;
  const std::size_t word = this->word();
  for (int dir = 0; dir < 3; ++dir) {
    Stage* s = stage_[static_cast<std::size_t>(dir)].get();
    if (!s) continue;
    be_.halo3d().pack(pack_args(field, box, dir, s->send.get(), false));
    const std::size_t bytes = s->face * word;
    // the shared sides' range of the buffers (low side first): one read and one write a direction
    const std::size_t first = peer_[dir][0] >= 0 ? 0 : bytes, last = peer_[dir][1] >= 0 ? 2 * bytes : bytes;
    be_.download(*s->send, s->hsend->data() + first, last - first, first);
    std::vector<Communicator::Transfer> t;
    for (int side = 0; side < 2; ++side) {
      if (peer_[dir][side] < 0) continue;
      const std::size_t at = static_cast<std::size_t>(side) * bytes;
      // my high side is my neighbour's low side: the tag names the receiver's side
      t.push_back({peer_[dir][side], s->hsend->data() + at, s->hrecv->data() + at, bytes, 2 * dir + (1 - side), 2 * dir + side});
    }
    comm_.exchange(t);
    be_.upload(*s->recv, s->hrecv->data() + first, last - first, first);
    be_.halo3d().pack(pack_args(field, box, dir, s->recv.get(), true));
  }
  ++exchanges_;
}

void HaloExchange::clear(Buffer& field) const {
  if (!any_) return;
  for (int dir = 0; dir < 3; ++dir) {
    Stage* s = stage_[static_cast<std::size_t>(dir)].get();
    if (s) be_.halo3d().pack(pack_args(field, box_, dir, s->zero.get(), true));
  }
}

}  // namespace poreflow
