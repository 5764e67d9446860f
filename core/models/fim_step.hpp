#pragma once
// The fully implicit scheme of the reservoir model (issue 23; docs/fim.md): one attempt of a step
// of dt is a Newton iteration on the cells' (p, S_w) and the wells' BHPs, all on the device:
//
//   assemble (fim family: residuals, Jacobian, completions) -> the wells' equations and their
//   Schur terms -> the convergence measures (CNV, MB, the wells') -> control switches -> the
//   linear solve (BiCGSTAB or FGMRES with CPR on A' = A - diag(B D^-1 C), the operator the whole
//   Schur complement) -> the update with its limits
//
// The host reads per iteration the three measures and the wells' few values (their controls
// switch there, as OPM Flow's do). An accepted step leaves p and S_w in the model's arrays and the
// masses aside until commit(); restore() puts the start of the step back.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/kernels/fim.hpp"
#include "core/kernels/reduce.hpp"
#include "core/linalg/cpr.hpp"
#include "core/linalg/krylov.hpp"
#include "core/linalg/stencil7.hpp"
#include "core/models/newton_relaxation.hpp"
#include "core/models/reservoir_arrays.hpp"
#include "core/models/reservoir_scheme.hpp"

namespace poreflow {

// The Newton system's operator: the 7-point Jacobian A' of the cells, then the coupling of each
// rate-controlled well's completions through its BHP (the rest of the Schur complement).
template <class T>
class FimSchurOperator final : public linalg::LinearOperator<T> {
 public:
  FimSchurOperator(linalg::Stencil7Operator<T>& a, const FimWells& w, const double& dt) : a_(a), w_(w), dt_(dt) {}
  Backend& backend() const override { return a_.backend(); }
  std::size_t size() const override { return a_.size(); }
  int block() const override { return 2; }
  void apply(const Field<T>& x, Field<T>& y, linalg::Guard g) const override;
  void residual(const Field<T>& b, const Field<T>& x, Field<T>& r, linalg::Guard g) const override;
  std::string describe() const override { return a_.describe() + " with the wells' Schur complement"; }
  std::string describe_row(std::size_t row) const override { return a_.describe_row(row); }
  // whether a well couples its completions now (one under rate control): else apply is A' alone
  void set_coupled(bool c) { coupled_ = c; }

 private:
  linalg::Stencil7Operator<T>& a_;
  const FimWells& w_;
  const double& dt_;
  bool coupled_ = true;
};

template <class T>
class FimStep final : public ReservoirScheme<T> {
 public:
  using Attempt = SchemeAttempt;
  FimStep(Backend& be, const Communicator& comm, ReservoirArrays<T>& a, const ImpesNumerics& nm, const ImpesInput& in,
          const ImpesGeometry& geo, const ImpesWellArrays& wa);
  ~FimStep() override;

  Attempt solve(double dt, double prev_dt) override;
  Attempt check() const override;
  void commit() override;
  void restore() override;
  const ImpesStepResult& result() const override { return result_; }
  void well_changed(std::size_t w, const WellSetting& s, bool open) override;
  void well_setting(std::size_t w, const WellSetting& s, bool open) override;
  void bind(State& s) override;
  std::string describe() const override;
  std::string progress() const override;
  void add_stats(std::map<std::string, double>& s, long steps) const override;
  long linear_total() const override { return linear_total_; }
  const std::vector<LinearSolveRecord>* solves() const override { return &log_.records(); }
  void clear_solves() override { log_.clear(); }
  double balance_residual(int phase) const override { return phase == 0 ? residual_w_ : residual_o_; }

  long newton_total() const { return newton_total_; }
  // the CNV measure after each Newton iteration of the last attempt (its first: at the start)
  const std::vector<double>& cnv_history() const { return cnv_history_; }
  int last_newton() const { return last_newton_; }
  // each phase's CNV after each Newton iteration of the last attempt, and the stabilization's
  // counts since the run started: the oscillations it detected, the updates it scaled down
  const std::vector<PhaseNorms>& phase_history() const { return phase_history_; }
  long oscillations() const { return oscillations_; }
  long damped_updates() const { return damped_; }
  // the factor each update of the last attempt was scaled by (empty without the stabilization),
  // the last update's Newton step as solved, and the step it applied (the two alike when undamped)
  const std::vector<double>& update_factors() const { return update_factors_; }
  const Field<T>& newton_step() const { return dx_; }
  // the last Newton iteration's Jacobian of the cells (what CPR is set up from) and the system the
  // linear solver sees (with the wells' Schur complement), for tests and benches
  const linalg::Stencil7Operator<T>& jacobian() const { return jop_; }
  const linalg::LinearOperator<T>& system() const { return op_; }
  const Field<T>& applied_step() const {
    return !update_factors_.empty() && update_factors_.back() < 1 ? dx_damped_ : dx_;
  }

 private:
  struct Measures {
    double cnv = 0, mb_w = 0, mb_o = 0, well = 0;  // the worst of each (MB: relative to the pore volume)
    PhaseNorms cnv_phase{};                        // the worst CNV of water and of oil
    double over = 0;  // the fraction of the pore volume in cells whose CNV is above newton.cnv
    double sum_w = 0, sum_o = 0;                   // the residuals' sums, sm3
    bool finite = true;
  };
  void assemble(double dt);
  Measures measure();
  // OPM Flow's relative change of the accepted state against the step's start (PidStepControl)
  double relative_change();
  void update_preconditioner(bool refresh);
  linalg::KrylovResult linear_solve(int newton);
  bool switch_controls();
  std::string worst_cell() const;
  std::string worst_well() const;
  double well_residual(std::size_t w) const;
  FimWells well_arrays();

  Backend& be_;
  const Communicator& comm_;
  ReservoirArrays<T>& a_;
  const FimNumerics nm_;
  const ImpesInput& in_;
  std::size_t E_;
  bool pid_ = false;  // time.control = "pid+newton": the step's relative change is wanted
  double pv_total_ = 0, bw_ref_ = 1, bo_ref_ = 1;  // the Σ V_p0 and B's of the MB measure
  Field<T> x_, x_n_, dx_, dx_damped_, res_, cnv_, cnv_oil_, mbw_, mbo_, viol_, mw2_, mo2_, dp_, ds_, ws_, ws_n_, cq_;
  Field<T> amg_setup_p_, amg_refresh_p_;  // the pressure matrices of the AMG's setup and last refresh
  // the step's relative change (relative_change()): 1 on active cells, the masked p and S_w, the sums
  Field<T> on_, p_on_, sw_on_, sums_;
  double active_cells_ = 0;
  std::unique_ptr<Buffer> cwell_;
  std::vector<T> ws_host_;
  std::vector<WellSetting> settings_;  // the wells' settings as the model last gave them
  std::vector<char> open_;
  std::vector<int> switches_;
  linalg::Stencil7Matrix<T> jac_;
  linalg::Stencil7Operator<T> jop_;
  double dt_ = 0;
  FimWells wells_;
  FimSchurOperator<T> op_;
  linalg::Cpr<T> cpr_;
  std::unique_ptr<linalg::KrylovSolver<T>> krylov_;
  ImpesStepResult result_;
  SolveLog log_;
  long newton_total_ = 0, linear_total_ = 0, linear_last_ = 0, switches_total_ = 0;
  long replayed_ = 0;  // linear iterations replayed from a recording (CUDA Graphs), since this process started
  long enqueued_ = 0;  // linear iterations enqueued, those past a solve's stop included
  long since_refresh_ = 1 << 30, linear_fresh_ = 0, refreshes_ = 0;  // the pressure AMG's reuse
  long cuts_newton_ = 0, cuts_linear_ = 0, cuts_nonfinite_ = 0;      // the attempts that failed, by cause
  long linear_retries_ = 0;  // failed linear solves with a reused AMG solved again with a fresh one
  int last_newton_ = 0;
  double seconds_assemble_ = 0, seconds_linear_ = 0, seconds_precond_ = 0, seconds_wells_ = 0;
  double residual_w_ = 0, residual_o_ = 0;  // the converged steps' Σ R_a, sm3 (what the balance may lack)
  Measures last_;
  std::vector<double> cnv_history_;
  std::vector<PhaseNorms> phase_history_;  // the attempt's CNV per phase, for the stabilization
  std::vector<double> update_factors_;     // the factor of each of the attempt's updates
  NewtonRelaxation relax_;
  long oscillations_ = 0, damped_ = 0;  // oscillations detected, updates scaled down
};

}  // namespace poreflow
