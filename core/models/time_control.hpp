#pragma once
// The time-step controller every model steps with: where the next step may end (a stop, an event),
// the size it is tried at, the retries at half the size when an attempt fails, the smallest step,
// and the size the next step starts from. A model gives it an attempt (try a step of dt from the
// state at time(); return what happened) and a way back to the start of the step; the controller
// owns the time, the step and retry counters and the step sizes, and binds them as records of the
// model's State.
//
// Three ways of choosing dt cover the models:
//   - adaptive (impes3d): the next step grows from the last by `growth` within what the last
//     step allows (Outcome::dt_limit: its changes, or its Newton iterations), between dt_min and
//     dt_max; before a stop, a step that would leave a sliver is split into two even ones
//     (`even_split`, with the thresholds `whole_within` and `split_below`);
//   - limited by the step itself (bl1d's CFL): the attempt is offered the whole way to the stop and
//     takes what it can (Outcome::dt below the offer);
//   - fixed (adi2d: dt, shortened to meet a stop; fluids3d: a step count, time = steps x dt).
//
// Every model has a smallest step: an attempt is never made below dt_min, and a step the physics
// limits below it (Outcome::dt under the offer, with Outcome::why naming the limit) stops the run
// with the reason, instead of creeping on at steps that cannot reach the end (bl1d at
// boundary.p_inj = 1e308 stepped dt = 5e-309). A step shortened only to meet a stop is not held
// to it. max_steps bounds the steps before `end`.
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace poreflow {

class State;

// OPM Flow's Newton-iteration rule for the next step (the Newton part of its default control,
// "pid+newtoniteration"; PidStepControl is the other part): a step that took n
// Newton iterations (linear solves) against a target of `target` is followed by one of
// 1 + 3.2 (target - n) / target times its size when n <= target, and by 1 / (1 + (n - target) /
// target) times it when n is above. The caller caps the growth.
double newton_step_factor(int n, int target);

// The PID part of OPM Flow's "pid+newtoniteration" (its PIDTimeStepControl, with the constants of
// Turek's paper it cites): from an accepted step's relative change e, the sum over the cells of
// dp^2 + dS^2 over the sum of p^2 + S^2 (p in Pa, every phase's S), against a tolerance tol. With
// the last three changes e0, e1, e2 (all tol before the first step), the next step may be
//   tol / e2 times this one when e2 > tol,
//   (e1/e2)^0.075 (tol/e2)^0.175 (e0^2/(e1 e2))^0.01 times it otherwise,
//   any size when e1 or e2 is 0 (and without the last factor when e0 is: OPM Flow's would be 0).
// The caller takes the smaller of this and the Newton factor, then caps the growth.
class PidStepControl {
 public:
  explicit PidStepControl(double tol = 0.1) : tol_(tol), e_{tol, tol, tol} {}
  // records an accepted step's change; the factor the next step may take (infinity: no limit)
  double next_factor(double change);
  double tolerance() const { return tol_; }
  // e0, e1, e2 (a restart's records)
  std::vector<double> errors() const { return {e_[0], e_[1], e_[2]}; }
  void set_errors(const std::vector<double>& e);

 private:
  double tol_;
  double e_[3];
};

struct TimeStepOptions {
  double dt_init = std::numeric_limits<double>::infinity();  // the first step's size (inf: as far as allowed)
  double dt_min = 0;   // no attempt below this, no step the physics limits below it: the run stops with the reason
  std::string dt_min_source = "time.dt_min";  // where dt_min comes from, for messages ("time.end / time.max_steps")
  double dt_max = std::numeric_limits<double>::infinity();
  double growth = 1;   // the next step: at most growth x this one
  // > 0: the step after one that had to be cut grows by at most this (OPM Flow's
  // solver-growth-factor: a cut step is not followed by a full leap back)
  double growth_after_cut = 0;
  int max_cuts = 0;    // cuts of a failed attempt before the run stops
  double cut = 0.5;    // a failed attempt is retried at cut x its size (OPM Flow's solver-restart-factor is 0.33)
  bool even_split = false;      // split a step that would leave a sliver before a stop into two even ones:
  double whole_within = 1;      // the rest to the stop taken whole when it is at most whole_within x the step,
  double split_below = 2;       // halved when it is below split_below x the step (OPM Flow: 1.05 and 1.5)
  bool land_on_stop = false;    // a step that reaches the stop ends exactly on it (else time += dt)
  bool fixed_count = false;     // time is steps x dt_init (a step-count model)
  std::string unit;             // the time unit in messages ("days"), empty for none
  long max_steps = 0;           // > 0: the run stops when this many steps end before `end`
  double end = std::numeric_limits<double>::infinity();  // the model's end time, for max_steps
};

class TimeController {
 public:
  // What an attempt of a step of dt gave.
  struct Outcome {
    bool ok = false;
    std::string why;  // when not ok: why the attempt failed (it is retried at half the size); when ok with dt
                      // below the offer: what limited it ("the CFL limit (max |u| = 2)")
    double dt = -1;   // the step taken when ok, <= the dt offered; < 0: the whole dt
    double dt_limit = std::numeric_limits<double>::infinity();  // the largest next step the physics allows
  };
  using Attempt = std::function<Outcome(double dt)>;
  using Restore = std::function<void()>;            // back to the state at the start of the step
  using GiveUp = std::function<std::string()>;      // more about the last failure (the worst cell), for the message

  explicit TimeController(TimeStepOptions o = {});

  // One accepted step that ends no later than `limit`. Throws NumericalError naming the step, the
  // time, dt and the reason when no attempt succeeds within max_cuts halvings and above dt_min,
  // when the physics limits the step below dt_min, or when max_steps steps end before `end`.
  void advance(double limit, const Attempt& attempt, const Restore& restore = nullptr, const GiveUp& give_up = nullptr);

  // the step sizes start again from dt_init (a control change: the flow changes abruptly)
  void restart_from(double dt) { dt_next_ = std::min(dt_next_, dt); }

  double time() const { return o_.fixed_count ? double(steps_) * o_.dt_init : t_; }
  long steps() const { return steps_; }
  double last_dt() const { return last_dt_; }
  double next_dt() const { return dt_next_; }
  double dt_limit() const { return dt_limit_; }
  long cuts() const { return cuts_; }
  const TimeStepOptions& options() const { return o_; }
  void set_next_dt(double dt) { dt_next_ = dt; }

  // time, steps, next_dt, last_dt, dt_limit, cuts as records `prefix` + name
  void bind(State& s, const std::string& prefix = "");

 private:
  TimeStepOptions o_;
  double t_ = 0, dt_next_ = 0, last_dt_ = 0, dt_limit_ = std::numeric_limits<double>::infinity();
  long steps_ = 0, cuts_ = 0;
};

}  // namespace poreflow
