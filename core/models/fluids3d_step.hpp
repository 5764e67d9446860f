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

#include "core/kernels/box3.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/fluids3d.hpp"
#include "core/models/fluids3d_config.hpp"

namespace poreflow {

class State;

template <class T>
struct FluidsFields {
  FluidsFields(Backend& be, const Box3& box);
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

template <class T>
class StableFluids {
 public:
  StableFluids(Backend& be, const Fluids3DConfig& cfg, const Box3& box);
  // step `step` (0-based: the sources' step range) of f, enqueued without a wait
  void step(FluidsFields<T>& f, long step);
  // the projection alone on f's velocity with its own tolerance and sweep limit: f.u0 holds the
  // pressure and f.v0 the divergence afterwards; returns the sweeps the solve took (waits)
  long project(FluidsFields<T>& f, double tolerance, long max_sweeps);
  // the solves of the last step (or projection), read from the device (waits)
  std::array<FluidsSolveStatus, kFluidsSolves> solve_status() const;
  // the colour-packed arrays a solve may start from
  void bind(State& s);

 private:
  void add_sources(FluidsFields<T>& f, long step);
  // x = lin_solve(x0) through the colour-packed copies, starting from x0 (zero_guess: from 0)
  void solve(Field<T>& x, const Field<T>& x0, int b, double a, double c, int block, double tol, long sweeps, bool zero_guess);
  void diffuse(Field<T>& x, const Field<T>& x0, int b, double k, int block);
  void project(Field<T>& u, Field<T>& v, Field<T>& w, Field<T>& p, Field<T>& div, int block, double tol, long sweeps);
  void advect(Field<T>& d, const Field<T>& d0, const Field<T>& u, const Field<T>& v, const Field<T>& w, int b);

  Backend& be_;
  const Fluids3DConfig& cfg_;
  Box3 box_;
  Field<T> px_, px0_;  // lin_solve's colour-packed x and x0
  std::unique_ptr<Buffer> ctrl_;
};

}  // namespace poreflow
