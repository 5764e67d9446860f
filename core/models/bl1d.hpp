#pragma once
// bl1d: 1D two-phase Buckley-Leverett water flooding (paper 000). Pressure by Jacobi (eq. 9)
// to the convergence test, then an explicit upwind saturation step with a CFL-limited dt.
#include <memory>

#include "core/base/limits.hpp"
#include "core/comm/communicator.hpp"
#include "core/kernels/field.hpp"
#include "core/models/bl1d_analytic.hpp"
#include "core/models/memory.hpp"
#include "core/models/model.hpp"
#include "core/kernels/tridiag.hpp"
#include "core/solvers/jacobi1d.hpp"

namespace poreflow {

// grid.points: at most kMaxArrayValues (core/base/limits.hpp)
constexpr long kBl1dMaxPoints = static_cast<long>(kMaxArrayValues);

struct BL1DConfig {
  long points = 201;
  double length = 1.0;
  BLAnalyticParams phys;  // k, porosity, viscosities, s_init, s_inj, p_inj, p_prod, length
  double p_init = 0.3;
  double end_time = 60.0, cfl = 0.5;
  long max_steps = 10'000'000;
  double dt_min = 0;  // the smallest step the CFL limit may set (time.dt_min); 0: end_time / max_steps
  bool tridiag = false;  // pressure.solver: "jacobi" (paper 000) or "tridiag" (one exact solve)
  TridiagAlgo algo = TridiagAlgo::Auto;
  JacobiOptions jacobi;
};

// memory a run needs (core/models/memory.hpp), before anything is allocated
MemoryNeed bl1d_need(const BL1DConfig& cfg, Precision prec, bool host);

template <class T>
class BL1D final : public Model {
 public:
  BL1D(Backend& be, const BL1DConfig& cfg, const Communicator& comm = self_communicator());

  std::string name() const override { return "bl1d"; }
  std::string summary() const override;
  std::string backend_hint() const override;
  GridInfo grid() const override;
  const TimeController& clock() const override { return clock_; }
  double end_time() const override { return cfg_.end_time; }
  void step(double t_stop) override;
  std::string progress() const override;
  const State& state() const override { return state_; }

  std::vector<NamedField> fields() const override;
  std::vector<std::string> series_columns() const override;
  std::vector<double> series_row() const override;
  std::map<std::string, double> final_stats() const override;
  std::vector<Balance> balance() const override;

  const BLAnalytic& analytic() const { return analytic_; }
  double injected() const { return q_; }  // injected volume per unit area, from the simulated rates

 private:
  double x(std::size_t i) const { return h_ * static_cast<double>(i); }
  double reduce(ReduceOp op, const Field<T>& f) const;
  [[noreturn]] void fail_non_finite(const char* what, const Field<T>& f) const;
  double front_position(const std::vector<double>& s) const;
  double advance(double dt_offered);  // one step of at most dt_offered; returns the step taken
  double last_umax_ = 0;              // the last step's max |u| (its CFL limit)
  void bind_state();

  Backend& be_;
  const Communicator& comm_;
  BL1DConfig cfg_;
  BLAnalytic analytic_;
  std::size_t n_;
  double h_;
  void solve_pressure_tridiag();

  Field<T> p_, s_, s_new_, mface_, u_;
  Field<T> ta_, tb_, tc_, td_;  // the tridiagonal system when pressure.solver = "tridiag"
  Jacobi1D<T> jacobi_;
  ReduceConfig reduce_cfg_;
  TimeController clock_;  // each step as long as the CFL limit allows, up to the next stop
  double q_ = 0;
  double water_in_ = 0, water_out_ = 0;  // water through the first and the last face, per unit area
  long total_iterations_ = 0, unconverged_solves_ = 0;
  JacobiResult last_solve_;
  State state_;
};

}  // namespace poreflow
