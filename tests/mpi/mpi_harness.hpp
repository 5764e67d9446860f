#pragma once
// What the MPI tests share: the session of the process, and a global 7-point problem that every
// process builds alike from the common seed and cuts into its own box.
#include <memory>
#include <vector>

#include "core/comm/decomposition.hpp"
#include "core/comm/mpi.hpp"
#include "core/kernels/box3.hpp"

namespace poreflow::test {

mpi::Session*& mpi_session();
// the run's communicator for backend be (one per backend, kept for the process)
const Communicator& world(Backend& be);

// A diffusion problem on a gx x gy x gz grid in double: face transmissibilities log-uniform over
// `decades` decades, holes (inactive cells), Dirichlet 0 outside the grid and at holes, a known
// solution x* and b = A x*.
struct GlobalProblem {
  long gx = 0, gy = 0, gz = 0;
  std::vector<char> active;          // per cell, i fastest
  std::vector<double> tx, ty, tz;    // per cell: the face to its +x, +y, +z neighbour
  std::vector<double> xstar, b;      // per cell
  long at(long i, long j, long k) const { return i + gx * (j + gy * k); }
  long cells() const { return gx * gy * gz; }
};
GlobalProblem make_global_problem(long gx, long gy, long gz, unsigned holes, double decades);

// The rows of box r (with halo `halo` in an array of its own) of the problem's matrix: plane q
// of cell L, as core/linalg/stencil7.hpp lays them out; couplings across a face to a cell of
// another process are kept, those to holes and outside the grid are 0.
struct LocalRows {
  Box3 box;
  std::vector<double> coef;  // 7 x extent
  std::vector<int> active;   // extent
  std::vector<double> b;     // extent (0 outside the rows)
  std::vector<long> global;  // per box index: the grid cell, -1 for ghosts
};
LocalRows local_rows(const GlobalProblem& p, const RankBox& r, long halo);

}  // namespace poreflow::test
