#pragma once
// The halo3d family: the ghost layers of a Box3 array filled by a kernel, face by face, with the
// modes of core/physics/halo3d.h. Shared by every 3D family.
#include <array>
#include <string_view>

#include "core/kernels/backend.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/kernel_args.hpp"
#include "core/physics/halo3d.h"

namespace poreflow {

enum class HaloMode { None = PF_HALO_NONE, Copy = PF_HALO_COPY, Mirror = PF_HALO_MIRROR, Negate = PF_HALO_NEGATE,
                      Value = PF_HALO_VALUE, Periodic = PF_HALO_PERIODIC };
const char* to_string(HaloMode m);
HaloMode parse_halo_mode(std::string_view s);

struct HaloFace {
  HaloMode mode = HaloMode::Copy;
  double value = 0;  // HaloMode::Value
};

// Fills the halo of `box` in `field`: x faces, then y, then z (core/physics/halo3d.h). face[2d]
// is the low side of direction d (x, y, z), face[2d + 1] the high side. The interior is only read.
struct Halo3DFillArgs {
  Precision prec = Precision::Double;
  Box3 box;
  Buffer* field = nullptr;
  std::array<HaloFace, 6> face{};
  BoxShape shape;  // GPU launch shape of the passes (the face index spaces)

  // halo3d_pass(field, box, dir, mode_lo, mode_hi, value_lo, value_hi): the pass of direction dir
  // (core/kernels/kernel_args.hpp)
  auto pass_args(int dir) const {
    using namespace karg;
    const HaloFace &lo = face[2 * dir], &hi = face[2 * dir + 1];
    return std::tuple(Out<Real>{field}, box.view(), dir, static_cast<int>(lo.mode), static_cast<int>(hi.mode), Real{lo.value},
                      Real{hi.value});
  }
};

// Moves the layers of direction `dir` between `field` and the contiguous buffer `buf` for an exchange with the neighbouring boxes (core/physics/halo3d.h,
// pf_halo_pack_point): pack copies the interior layers next to each face of `sides` into buf,
// unpack copies buf into the ghost layers of those sides. buf holds face_values x block a side, the
// low side first.
struct Halo3DPackArgs {
  Precision prec = Precision::Double;
  Box3 box;
  Buffer* field = nullptr;
  Buffer* buf = nullptr;
  int dir = 0;
  bool unpack = false;
  int sides = 3;   // bit 0: low side, bit 1: high side
  int block = 1;   // values a cell (1, or 2 for a 2 x 2 system's vectors)
  BoxShape shape;  // GPU launch shape (a 3D launch of the face index space)

  // the values one side of direction dir moves: halo x the pass's nu x nv
  static std::size_t face_values(const Box3& b, int dir);
  // halo3d_pack(field, box, dir, buf, unpack, sides, block)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(Out<Real>{field}, box.view(), dir, Out<Real>{buf}, static_cast<int>(unpack), sides, block);
  }
};

class Halo3DImpl {
 public:
  virtual ~Halo3DImpl() = default;
  // one pass: direction dir of the args (halo > 0, arguments checked)
  virtual void fill_pass(const Halo3DFillArgs& a, int dir) = 0;
  virtual void pack(const Halo3DPackArgs& a) = 0;  // arguments checked, halo > 0
};

class Halo3DKernels {
 public:
  Halo3DKernels(Backend& be, Halo3DImpl& impl) : be_(be), impl_(impl) {}
  void fill(const Halo3DFillArgs& a);
  void pack(const Halo3DPackArgs& a);

 private:
  Backend& be_;
  Halo3DImpl& impl_;
};

}  // namespace poreflow
