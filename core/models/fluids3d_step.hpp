#pragma once
// The parts of a fluids3d run (core/models/fluids3d.hpp composes them):
//   - FluidsFields: the state, density and velocity and their previous values on one box with a
//     ghost layer (core/kernels/box3.h), each ghost a fixed multiple of its nearest interior cell;
//   - StableFluids: paper 001's step on such fields: the velocity step (forces, diffusion of each
//     component, projection, advection of each component, projection) and the density step
//     (sources, diffusion, advection), every linear solve a red-black lin_solve through
//     colour-packed copies with the stop decided on the device, one control block per solve.
#include <array>
#include <memory>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/comm/decomposition.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/fluids3d.hpp"
#include "core/models/fluids3d_config.hpp"

namespace poreflow {

class State;

template <class T>
struct FluidsFields {
  // values: each field's array (0: the box's extent; a slab's arrays hold more layers below and
  // above than its halo, for advect's trace)
  FluidsFields(Backend& be, const Box3& box, std::size_t values = 0);
  Box3 box;
  Field<T> d, d0, u, v, w, u0, v0, w0;

  // 0: density, 1..3: u, v, w
  const Field<T>& operator[](int which) const;
  // the interior values (i fastest), in double
  std::vector<double> interior(int which) const;
  // the whole array with its ghosts
  std::vector<double> with_ghosts(int which) const;
  // density and velocity from interior values; the ghost layers are filled by the boundary kernel
  void set(const std::vector<double>& dens, const std::vector<double>& u, const std::vector<double>& v,
           const std::vector<double>& w);
  void bind(State& s);
};

// the solves of one step, each with its control block
enum FluidsSolve { kSolveU, kSolveV, kSolveW, kSolveProject1, kSolveProject2, kSolveDensity, kFluidsSolves };

// Where a process's slab lies when the grid is cut into slabs along z between processes
// (docs/mpi.md; decompose_layers).
struct FluidsCut {
  const Communicator* comm = nullptr;
  Decomposition d;
  long trace_layers = 1;  // the layers the fields' arrays hold below and above the slab
};

template <class T>
class StableFluids {
 public:
  // cut: this process's slab of a grid cut between processes; nullptr: the box is the grid
  StableFluids(Backend& be, const Fluids3DConfig& cfg, const Box3& box, const FluidsCut* cut = nullptr);
  ~StableFluids();
  // step `step` (0-based: the sources' step range) of f, enqueued without a wait
  void step(FluidsFields<T>& f, long step);
  // the projection alone on f's velocity with its own tolerance and sweep limit: f.u0 holds the
  // pressure and f.v0 the divergence afterwards; returns the sweeps the solve took (waits)
  long project(FluidsFields<T>& f, double tolerance, long max_sweeps);
  // the solves of the last step (or projection), read from the device (waits)
  std::array<FluidsSolveStatus, kFluidsSolves> solve_status() const;
  // the colour-packed arrays a solve may start from
  void bind(State& s);
  // a slab's fields' ghost layers from the neighbours (no-op in one process)
  void exchange_velocity(FluidsFields<T>& f) const;
  // a slab's exchanges so far: calls, and bytes this process sent
  long exchanges() const;
  std::size_t exchanged_bytes() const;

 private:
  void add_sources(FluidsFields<T>& f, long step);
  // x = lin_solve(x0) through the colour-packed copies, starting from x0 (zero_guess: from 0)
  void solve(Field<T>& x, const Field<T>& x0, int b, double a, double c, int block, double tol, long sweeps, bool zero_guess);
  void diffuse(Field<T>& x, const Field<T>& x0, int b, double k, int block);
  void project(Field<T>& u, Field<T>& v, Field<T>& w, Field<T>& p, Field<T>& div, int block, double tol, long sweeps);
  void advect(Field<T>& d, const Field<T>& d0, const Field<T>& u, const Field<T>& v, const Field<T>& w, int b, long layers);
  // a slab's layers [0, layers) and [nz - layers, nz) of x to its neighbours' extra layers
  void exchange(Field<T>& x, long layers) const;
  // the layers a slab's advect along w needs from its neighbours (its trace in z plus one); the
  // run stops with a message where they are more than its arrays hold (1 in one process)
  // (scratch: an array the next kernel overwrites whole)
  long trace_layers(const Field<T>& w, Field<T>& scratch, long step) const;

  Backend& be_;
  const Fluids3DConfig& cfg_;
  Box3 box_;
  Field<T> px_, px0_;  // lin_solve's colour-packed x and x0
  std::unique_ptr<Buffer> ctrl_;
  struct Slab;  // a slab's place in the grid and its exchanges (fluids3d_step.cpp)
  std::unique_ptr<Slab> slab_;
};

}  // namespace poreflow
