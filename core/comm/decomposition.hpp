#pragma once
// A grid of gx x gy x gz cells split into one box per process (docs/mpi.md). The split is a
// tensor product of cuts along x and y: columns stay whole (the wells' completions and the
// vertical line solves need them), and every box has at most one neighbour per face, so a halo
// exchange is one message per face. The cuts balance the active cells: for each factorisation
// px x py of the process count, the x cuts split the active cells of the x planes evenly, the y
// cuts those of the y planes; the factorisation with the fewest active cells on its busiest
// process wins (within 2 %), then the one with the smallest cut surface.
#include <array>
#include <string>
#include <vector>

namespace poreflow {

struct RankBox {
  long i0 = 0, j0 = 0, k0 = 0;  // the first cell, in the grid's indices
  long nx = 0, ny = 0, nz = 0;
  long cells() const { return nx * ny * nz; }
  bool contains(long i, long j, long k) const {
    return i >= i0 && i < i0 + nx && j >= j0 && j < j0 + ny && k >= k0 && k < k0 + nz;
  }
};

struct Decomposition {
  std::array<long, 3> grid{0, 0, 0};
  std::array<int, 3> parts{1, 1, 1};      // processes along x, y, z (z: 1)
  std::array<std::vector<long>, 3> cuts;  // cuts[d]: parts[d] + 1 boundaries, 0 .. grid[d]
  std::vector<long> active;               // active cells of each process

  int size() const { return parts[0] * parts[1] * parts[2]; }
  // process rank holds the box at (px, py, pz) = (rank % parts x, ...), x fastest
  std::array<int, 3> coords(int rank) const;
  int rank_at(std::array<int, 3> c) const;
  RankBox box(int rank) const;
  // the process across face (dir, side) of rank's box (side 0: low, 1: high); -1 at the grid's edge
  int neighbour(int rank, int dir, int side) const;
  int owner(long i, long j, long k) const;  // the process holding cell (i, j, k)
  // "2 x 2 x 1 processes; cells per process 4125 .. 4180 active (imbalance 1.01)"
  std::string describe() const;
};

// How a grid may be split (decompose's second form).
struct DecomposeOptions {
  std::vector<char> active;  // gx * gy * gz flags, i fastest; empty: every cell
  long min_width = 1;        // cells across each box at least (the halo)
  // cut_ok[d][c], c in 0 .. grid[d]: whether a boundary may lie between planes c - 1 and c along
  // x (d = 0) or y (d = 1); empty: anywhere. A model keeps a well's completions on one process
  // this way, or the red-black colours global (cuts at even indices).
  std::array<std::vector<char>, 2> cut_ok;
  std::string constraint;  // what cut_ok keeps, for the message when nothing fits
};

// Splits the grid into `processes` boxes; active (gx * gy * gz flags, i fastest; empty: every
// cell) weighs the cuts. ConfigError when the grid has fewer columns along a split direction than
// the processes along it need (each box holds at least `min_width` cells across, the halo), or
// when no factorisation fits.
Decomposition decompose(long gx, long gy, long gz, int processes, const std::vector<char>& active = {}, long min_width = 1);
Decomposition decompose(long gx, long gy, long gz, int processes, const DecomposeOptions& o);

// Splits a grid of whole layers into `processes` slabs along z, of equal layers within one or two,
// each at least min_width layers, the boundaries at even k where `even` (a red-black ordering stays
// the grid's). A slab's planes are contiguous in a layer-by-layer array, so a model that exchanges
// whole planes (fluids3d's packed arrays) sends them without a pack. ConfigError naming the grid,
// the processes and the widths when they do not fit.
Decomposition decompose_layers(long gx, long gy, long gz, int processes, long min_width, bool even);

}  // namespace poreflow
