#pragma once
// What the reservoir model (core/models/impes3d.hpp) asks of the scheme that steps its arrays:
// IMPES (core/models/impes3d_step.hpp) or fully implicit (core/models/fim_step.hpp). One attempt of
// a step of dt from the state in the arrays, its checks, and its acceptance or undoing; the step's
// statistics and the wells' rates in one form (ImpesStepResult); its records for a restart; its
// words for the log, the progress line and the run's statistics.
#include <map>
#include <string>
#include <vector>

#include "core/models/impes3d_input.hpp"
#include "core/models/model.hpp"
#include "core/physics/impes3d.h"

namespace poreflow {

class State;

// What an accepted attempt reports: the step's statistics (IMP_S_*) and per well its words (IMP_O_*).
struct ImpesStepResult {
  double stat[IMP_NSTAT] = {};
  std::vector<double> well;  // IMP_NWO per well
  // the step's relative change, OPM Flow's (PidStepControl); -1 where the scheme does not make it
  double relative_change = -1;
};

struct SchemeAttempt {
  bool ok = false;
  std::string why;      // when not ok
  bool sw_out = false;  // S_w left [0, 1] (the model names the cell)
  int newton = 0;       // Newton iterations the attempt took (0: not an iterative scheme)
};

// The Krylov solves of a step's attempts as a scheme keeps them (Model::linear_solves): each
// solve() starts an attempt, each linear solve adds its record; the model clears them as a step starts.
class SolveLog {
 public:
  void start_attempt() { ++attempt_; }
  void add(int newton, bool converged, const std::vector<double>& history) {
    records_.push_back({attempt_ < 0 ? 0 : attempt_, newton, converged, history});
  }
  void clear() {
    records_.clear();
    attempt_ = -1;
  }
  const std::vector<LinearSolveRecord>& records() const { return records_; }

 private:
  std::vector<LinearSolveRecord> records_;
  int attempt_ = -1;
};

template <class T>
class ReservoirScheme {
 public:
  using Attempt = SchemeAttempt;
  virtual ~ReservoirScheme() = default;
  // One attempt of a step of dt (prev_dt: the last accepted step, 0 for none): the new state aside
  // or in the arrays; not ok when it failed (the model retries smaller).
  virtual Attempt solve(double dt, double prev_dt) = 0;
  // whether the solved step holds (no NaN, S_w within [0, 1], no negative mass)
  virtual Attempt check() const = 0;
  // An attempt the model accepts is commit()ed; one it refuses is undone by restore().
  virtual void commit() = 0;
  virtual void restore() = 0;
  virtual const ImpesStepResult& result() const = 0;
  // well w's setting changed (the schedule, or a well stopped for a step): its parameters are on
  // the device; `open` false when it is shut or stopped
  virtual void well_changed(std::size_t w, const WellSetting& s, bool open) = 0;
  // well w's setting as the model holds it, without a change on the device (a restart's: the
  // device's parameters and the scheme's well state came with the checkpoint)
  virtual void well_setting(std::size_t /*w*/, const WellSetting& /*s*/, bool /*open*/) {}
  virtual void bind(State& s) = 0;
  virtual std::string describe() const = 0;   // the run's log: the scheme and its solver
  virtual std::string progress() const = 0;   // the last step's iterations
  virtual void add_stats(std::map<std::string, double>& s, long steps) const = 0;
  virtual long linear_total() const = 0;      // linear (or SOR) iterations so far
  // the Krylov solves since clear_solves() (Model::linear_solves); nullptr for a scheme without them
  virtual const std::vector<LinearSolveRecord>* solves() const { return nullptr; }
  virtual void clear_solves() {}
  // the mass of phase 0 (water) or 1 (oil), sm3, that the accepted steps' equations left unbalanced
  // within their tolerance (a Newton's converged residuals; 0 for a scheme that conserves exactly)
  virtual double balance_residual(int /*phase*/) const { return 0; }
};

}  // namespace poreflow
