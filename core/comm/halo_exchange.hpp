#pragma once
// The halo exchange of a decomposed grid (docs/mpi.md): a process's box (a Box3 of its arrays)
// receives into its ghost layers the cells its neighbours own, direction by direction (x, then y,
// then z, each after the last has landed, so edges and corners come from the boxes that own them):
// the halo3d family packs the layers next to each shared face into a device buffer, the buffer
// is read to the host, the communicator exchanges it with the neighbour, and the received layers
// are written back and unpacked into the ghosts. Faces at the grid's edge are left to the model's
// own halo fill. A run of one process exchanges nothing.
#include <array>
#include <memory>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/comm/decomposition.hpp"
#include "core/kernels/backend.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/halo3d.hpp"

namespace poreflow {

class HaloExchange {
 public:
  // box: this process's cells (the decomposition's box of comm.rank()) with their halo inside
  // its arrays. ConfigError when the box's sizes are not the decomposition's, or a box across a
  // shared face is narrower than the halo.
  // block: values a cell in the fields it exchanges (1, or 2 for a 2 x 2 system's vectors)
  HaloExchange(const Communicator& comm, const Decomposition& d, Backend& be, const Box3& box, Precision prec,
               BoxShape shape = {}, int block = 1);
  // the same processes and box, exchanging fields of `block` values a cell (a system's pressure
  // block), of `prec` (a float preconditioner's copy of a double operator)
  HaloExchange(const HaloExchange& like, int block);
  HaloExchange(const HaloExchange& like, int block, Precision prec);
  ~HaloExchange();
  HaloExchange(const HaloExchange&) = delete;
  HaloExchange& operator=(const HaloExchange&) = delete;

  // fills the ghosts of field (values of prec in box's layout) across every shared face
  void exchange(Buffer& field) const;
  // the same for `planes` fields of plane_values values each, one after the other in one buffer
  // (a model's property planes)
  void exchange(Buffer& field, int planes, std::size_t plane_values) const;
  // sets every ghost that exchange writes to zero (a vector of a solve keeps 0 outside its rows
  // between products)
  void clear(Buffer& field) const;

  bool any() const { return any_; }  // some face is shared
  const Box3& box() const { return box_; }
  int block() const { return block_; }
  long exchanges() const { return exchanges_; }  // calls of exchange that moved something
  std::size_t bytes_per_exchange() const;        // sent by this process per exchange
  Precision precision() const { return prec_; }

 private:
  // the pack (or unpack) of direction dir between field and buf, on the sides with a neighbour
  Halo3DPackArgs pack_args(Buffer& field, const Box3& box, int dir, Buffer* buf, bool unpack) const;
  std::size_t word() const;  // bytes a cell moves
  void make_stages();
  void exchange_box(Buffer& field, const Box3& box) const;

  const Communicator& comm_;
  Backend& be_;
  Box3 box_;
  Precision prec_;
  BoxShape shape_;
  int block_ = 1;
  std::array<std::array<int, 2>, 3> peer_{};  // [dir][side]: the neighbour's rank, -1: none
  bool any_ = false;
  mutable long exchanges_ = 0;
  struct Stage;
  std::array<std::unique_ptr<Stage>, 3> stage_;  // per direction with a shared face
};

}  // namespace poreflow
