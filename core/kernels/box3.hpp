#pragma once
// Box3: the C++ side of the box view of core/base/box3.h, and the launch shape with which the
// GPU backends cover a box. Every 3D family (halo3d, laplace3d, and the red-black sweeps of
// impes3d and fluids3d) takes its arrays as a Box3 and a Buffer, so a box can be a tile of a
// larger array or a rank's part of a decomposed grid without touching the kernels.
#include <cstddef>
#include <string>
#include <string_view>

#include "core/kernels/backend.hpp"
#include "core/base/box3.h"

namespace poreflow {

struct Box3 {
  long nx = 0, ny = 0, nz = 0;
  long halo = 0;
  long sy = 0, sz = 0, off = 0;

  // A box alone in its array: the halo on every side and nothing else.
  static Box3 standalone(long nx, long ny, long nz, long halo);
  // A box of nx x ny x nz cells whose cell (0, 0, 0) is at (i0, j0, k0) of an array of
  // ax x ay x az values (i fastest); its halo must lie inside the array.
  static Box3 inside(long nx, long ny, long nz, long halo, long ax, long ay, long az, long i0, long j0, long k0);

  long cells() const { return nx * ny * nz; }
  long at(long i, long j, long k) const { return off + i + j * sy + k * sz; }
  // the values an array must hold for the box and its halo (one past the last ghost cell)
  std::size_t extent() const;
  pf_box3 view() const { return pf_box3{nx, ny, nz, halo, sy, sz, off}; }
  bool same_cells(const Box3& o) const { return nx == o.nx && ny == o.ny && nz == o.nz; }
  std::string describe() const;
};

// Throws BackendError naming `what` unless the box is well formed (positive sizes, pitches that
// keep the rows and planes apart with their halos, the lowest ghost at index >= 0) and its array
// of values of prec fits in b.
void check_box(const Box3& box, const Buffer* b, Precision prec, const char* what);

// How the GPU backends cover a box: 2D blocks of bx x by threads over (i, j), each marching along
// a chunk of kBoxMarchLayers layers (March: the paper-003 shape, in chunks so that the launch has
// enough threads to keep loads in flight: one march through all 168 layers of a 168^3 box ran 126
// blocks on 132 SMs), or 3D blocks of bx x by x bz threads, one cell each (Blocks3D).
// Host backends run an OpenMP loop over (k, j) planes whatever the shape.
enum class BoxLaunch { March, Blocks3D };
constexpr long kBoxMarchLayers = 4;
struct BoxShape {
  BoxLaunch kind = BoxLaunch::March;
  int bx = 32, by = 8, bz = 1;
  // 64-bit indices in the loop over a whole box even where 32 bits fit (tests of the wide path)
  bool wide_index = false;
  int threads() const { return bx * by * (kind == BoxLaunch::March ? 1 : bz); }
};
// The blocks (work-groups) a launch of shape s has along z for nz layers (at most 65535). The
// device loop (box_for_each, PF_BOX_BEGIN) gives each block a contiguous chunk of the layers.
long box_blocks_z(long nz, const BoxShape& s);
// Whether the device loop over all of box b's cells (box_for_each_at, PF_BOX_CELLS_BEGIN) indexes
// its arrays with 32-bit ints with shape s: every index it forms (up to one past the last ghost
// plus a block's step of layers) is below 2^31, and s does not ask for 64 bits.
bool box_narrow_index(const pf_box3& b, const BoxShape& s);
// "march:32x8" or "3d:8x8x8"; ConfigError naming the text otherwise
BoxShape parse_box_shape(std::string_view s);
std::string to_string(const BoxShape& s);
// ConfigError unless the shape has 1..1024 threads with positive sides
void check_box_shape(const BoxShape& s, const char* what);

}  // namespace poreflow
