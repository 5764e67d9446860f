#include "core/models/time_control.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/base/error.hpp"
#include "core/models/state.hpp"

namespace poreflow {

double newton_step_factor(int n, int target) {
  const double t = std::max(target, 1);
  return n <= target ? 1 + 3.2 * (t - n) / t : 1 / (1 + (n - t) / t);
}

double PidStepControl::next_factor(double change) {
  e_[0] = e_[1];
  e_[1] = e_[2];
  e_[2] = change;
  if (e_[2] > tol_) return tol_ / e_[2];
  if (e_[1] == 0 || e_[2] == 0) return std::numeric_limits<double>::infinity();
  // a zero e0 (a step that changed nothing, two steps back) would make the last factor 0 and the
  // next step 0; it is left out instead
  const double d = e_[0] > 0 ? std::pow(e_[0] * e_[0] / (e_[1] * e_[2]), 0.01) : 1.0;
  return std::pow(e_[1] / e_[2], 0.075) * std::pow(tol_ / e_[2], 0.175) * d;
}

void PidStepControl::set_errors(const std::vector<double>& e) {
  if (e.size() != 3) throw Error("the PID step control keeps 3 changes, " + std::to_string(e.size()) + " were given");
  for (int i = 0; i < 3; ++i) e_[i] = e[static_cast<std::size_t>(i)];
}

TimeController::TimeController(TimeStepOptions o) : o_(std::move(o)), dt_next_(o_.dt_init) {}

void TimeController::advance(double limit, const Attempt& attempt, const Restore& restore, const GiveUp& give_up) {
  const double t0 = time();
  const double left = limit - t0;
  double dt = o_.fixed_count ? o_.dt_init : std::min(dt_next_, left);
  const bool truncated = dt < dt_next_;
  if (o_.even_split && !truncated && left < o_.split_below * dt) {  // no sliver of a step before the stop
    // the rest taken whole (a little over the step, within dt_max) or in two even steps
    dt = left <= o_.whole_within * dt * (1 + 1e-9) && left <= o_.dt_max ? left : 0.5 * left;
  }
  const double planned = dt_next_;
  bool failed = false;
  Outcome out;
  for (int cut = 0;; ++cut) {
    out = attempt(dt);
    if (out.ok) break;
    ++cuts_;
    std::ostringstream o;
    o << "step " << steps_ + 1 << " (t = " << t0 << (o_.unit.empty() ? "" : " ") << o_.unit << ", dt = " << dt
      << "): " << out.why;
    if (cut >= o_.max_cuts || dt * o_.cut < o_.dt_min) {
      if (give_up) o << give_up();
      o << "; no step of at least time.dt_min = " << o_.dt_min << " within time.max_cuts = " << o_.max_cuts
        << " cuts succeeded";
      throw NumericalError(o.str());
    }
    dt *= o_.cut;
    failed = true;
    spdlog::warn("{}; retrying with dt = {:g}", o.str(), dt);
    if (restore) restore();
  }
  const double taken = out.dt >= 0 ? out.dt : dt;
  if (taken < dt && taken < o_.dt_min) {  // the physics limited it (a stop alone is no reason)
    std::ostringstream o;
    o << "step " << steps_ + 1 << " (t = " << t0 << (o_.unit.empty() ? "" : " ") << o_.unit << "): "
      << (out.why.empty() ? std::string("the step's own limit") : out.why) << " allows dt = " << taken
      << ", below the smallest step " << o_.dt_min << " (" << o_.dt_min_source << ")";
    if (give_up) o << give_up();
    o << "; the run stops";
    throw NumericalError(o.str());
  }
  if (!o_.fixed_count) t_ = (o_.land_on_stop && taken == left) ? limit : t0 + taken;
  last_dt_ = taken;
  ++steps_;
  dt_limit_ = out.dt_limit;
  if (o_.max_steps > 0 && steps_ >= o_.max_steps && time() < o_.end * (1 - 1e-12)) {
    std::ostringstream o;
    o << "time.max_steps = " << o_.max_steps << " reached at t = " << time() << (o_.unit.empty() ? "" : " ") << o_.unit
      << " before time.end = " << o_.end << " (the last step was dt = " << taken << ")";
    throw NumericalError(o.str());
  }
  if (o_.fixed_count) return;
  // the next step grows from this one (from the planned size when a stop shortened it, from the
  // size that worked after a retry) within what this step's changes allow
  const double base = failed ? dt : (truncated ? planned : dt);
  // the step after one that had to be cut grows by growth_after_cut at most (OPM Flow's rule)
  const double growth = failed && o_.growth_after_cut > 0 ? std::min(o_.growth, o_.growth_after_cut) : o_.growth;
  dt_next_ = std::clamp(std::min(growth * base, dt_limit_), o_.dt_min, o_.dt_max);
}

void TimeController::bind(State& s, const std::string& prefix) {
  s.value(prefix + "time", t_);
  s.value(prefix + "steps", steps_);
  s.value(prefix + "next_dt", dt_next_);
  s.value(prefix + "last_dt", last_dt_);
  s.value(prefix + "dt_limit", dt_limit_);
  s.value(prefix + "cuts", cuts_);
}

}  // namespace poreflow
