#pragma once
// impes3d over several processes (docs/mpi.md): the grid cut into one box per process, and this
// process's share of what the model builds on the host from the whole input. Every process holds
// the whole input (a deck's read by process 0 and sent) and builds the whole grid's geometry (the
// outputs read it); from that it cuts:
//   - the geometry of its box, with a halo of 1 that holds the neighbours' transmissibilities and
//     depths across a shared face (the fluxes there are the same as in one process) and no pore
//     volume (the kernels read a cell's own only; sums over the box count its cells alone);
//   - its completions: each well's completions stay on one process, as OPM Flow keeps them by
//     default, so a well's control, BHP and rates are decided where all its cells are. The cuts
//     avoid every well's columns; a well another process holds is shut here;
//   - its part of the initial state (the pressure's halo too: the first fluxes read it).
#include <cstddef>
#include <string>
#include <vector>

#include "core/comm/decomposition.hpp"
#include "core/models/impes3d_setup.hpp"

namespace poreflow {

struct ImpesPart {
  Decomposition dec;
  int rank = 0;
  RankBox box;                 // this process's cells, in the grid's indices
  ImpesGeometry geo;           // its box's arrays (a box of its own with a halo of 1)
  ImpesWellArrays wa;          // its completions; per well first and count (0 for another's well)
  std::vector<int> owner;      // per well: the process holding its completions
  bool owns(std::size_t w) const { return owner[w] == rank; }
  // the grid's index (i + nx (j + ny k)) of each of the box's cells, in the box's own order (k, j, i)
  std::vector<std::size_t> cells;
};

// The cut for `processes` processes: balanced by active cells (core/comm/decomposition.hpp), no
// boundary through a well's columns, and with even_cuts only at even i and j, so a box's red-black
// colours are the grid's. ConfigError naming the grid, the processes and what the cuts must avoid
// when nothing fits.
Decomposition decompose_impes(const ImpesInput& in, const ImpesGeometry& geo, int processes, bool even_cuts);

ImpesPart make_impes_part(const ImpesInput& in, const ImpesGeometry& geo, const ImpesWellArrays& wa, const Decomposition& d,
                          int rank);

// the part of a whole-grid state (geo's box layout) in the part's box: p with its halo, the
// masses and S_w without (their halo holds zeros, as in one process)
ImpesState slice_state(const ImpesState& st, const ImpesGeometry& geo, const ImpesPart& part);

// "2 x 1 processes; cells per process 4125 .. 4180 active (imbalance 1.01); wells kept whole"
std::string describe_part(const ImpesPart& part);

}  // namespace poreflow
