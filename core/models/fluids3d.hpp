#pragma once
// fluids3d: Stam-style stable fluids on an N x N x N box with closed walls (paper 001's solver).
// Each step: the velocity step (forces, diffusion of each component, projection, advection of
// each component, projection) and the density step (sources, diffusion, advection), every linear
// solve a red-black lin_solve with the stop decided on the device. See docs/fluids3d.md.
#include <array>
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/field.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/fluids3d.hpp"
#include "core/models/memory.hpp"
#include "core/models/model.hpp"

namespace poreflow {

// A source: over the cells within `radius` of `cell` (a cube of 2 radius + 1 cells a side), in
// the steps [first_step, last_step), adds dt * rate to the density, or dt * force to the velocity.
struct FluidsSource {
  bool density = true;  // else a force
  std::array<long, 3> cell{0, 0, 0};  // 0-based interior indices
  long radius = 0;
  double rate = 0;                    // density per unit time
  std::array<double, 3> force{0, 0, 0};  // velocity per unit time
  long first_step = 0, last_step = 0;
};

struct Fluids3DConfig {
  long n = 84;
  double dt = 0.1;
  long steps = 100;
  double viscosity = 1e-4, diffusion = 1e-4;
  double tolerance = 1e-7;
  long max_sweeps = 20;
  bool classic_projection = false;  // the classic program's gradient scale 0.5 instead of 0.5 N
  BoxShape sweep_shape;             // lin_solve's colour sweeps
  BoxShape box_shape;               // advect, divergence, gradient, sources
  std::vector<FluidsSource> sources;
};

Fluids3DConfig read_fluids3d_config(io::CaseFile& cf);
MemoryNeed fluids3d_need(const Fluids3DConfig& cfg, Precision prec, bool host);

// the solves of one step, each with its control block
enum FluidsSolve { kSolveU, kSolveV, kSolveW, kSolveProject1, kSolveProject2, kSolveDensity, kFluidsSolves };

template <class T>
class Fluids3D final : public Model {
 public:
  Fluids3D(Backend& be, const Fluids3DConfig& cfg);

  std::string name() const override { return "fluids3d"; }
  std::string summary() const override;
  GridInfo grid() const override;
  double time() const override { return double(steps_) * cfg_.dt; }
  double end_time() const override { return double(cfg_.steps) * cfg_.dt; }
  long steps() const override { return steps_; }
  void step(double t_stop) override;
  void save_state(ModelState& s) const override;
  void load_state(const ModelState& s) override;
  std::string progress() const override;

  std::vector<NamedField> fields() const override;
  std::vector<std::string> series_columns() const override;
  std::vector<double> series_row() const override;
  void write_plot(const std::filesystem::path& png) const override;
  std::string write_snapshot(const std::filesystem::path& dir, const std::string& stem) const override;
  std::map<std::string, double> final_stats() const override;

  // ---- for tests and the bench --------------------------------------------------------------
  // the interior values of density, u, v, w (i fastest), in double
  std::vector<double> interior(int which) const;
  // sets the state from interior values (density, u, v, w) and fills the ghost layers
  void set_state(const std::vector<double>& dens, const std::vector<double>& u, const std::vector<double>& v,
                 const std::vector<double>& w);
  // the project step alone on the current velocity with its own solver settings; returns the
  // sweeps it took
  long project_only(double tolerance, long max_sweeps);
  // the pressure of the last project_only (interior with ghosts: the whole array)
  std::vector<double> pressure_array() const;
  // the velocity arrays with their ghosts
  std::vector<double> array(int which) const;
  const Box3& box() const { return box_; }
  // the solves of the last step, read from the device (waits)
  std::array<FluidsSolveStatus, kFluidsSolves> solve_status() const;
  void sync() const { be_.sync(); }

 private:
  const Field<T>& field(int which) const;
  void add_sources();
  // x = lin_solve(x0) through the colour-packed copies, starting from x0 (zero_guess: from 0)
  void solve(Field<T>& x, const Field<T>& x0, int b, double a, double c, int block, double tol, long sweeps, bool zero_guess);
  void diffuse(Field<T>& x, const Field<T>& x0, int b, double k, int block);
  void project(Field<T>& u, Field<T>& v, Field<T>& w, Field<T>& p, Field<T>& div, int block, double tol, long sweeps);
  void advect(Field<T>& d, const Field<T>& d0, const Field<T>& u, const Field<T>& v, const Field<T>& w, int b);
  void check_finite() const;

  Backend& be_;
  Fluids3DConfig cfg_;
  Box3 box_;
  std::size_t extent_;
  Field<T> d_, d0_, u_, v_, w_, u0_, v0_, w0_;
  Field<T> px_, px0_;  // lin_solve's colour-packed x and x0
  std::unique_ptr<Buffer> ctrl_;
  long steps_ = 0;
  long sweeps_total_ = 0, solves_read_ = 0;  // over the steps whose control blocks were read
};

}  // namespace poreflow
