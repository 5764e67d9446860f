// The parts every model is composed of: the named state (one description for save and load, a
// mismatched checkpoint refused by name), the time-step controller (growth, stops, retries, the
// smallest step), and the single-process communicator.
#include <doctest/doctest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/comm/communicator.hpp"
#include "core/kernels/field.hpp"
#include "core/models/newton_relaxation.hpp"
#include "core/models/state.hpp"
#include "core/models/time_control.hpp"
#include "tests/harness.hpp"

using namespace poreflow;

namespace {

// a part with a field, scalars and a history, bound once
struct Part {
  explicit Part(Backend& be) : f(be, 7) {}
  Field<double> f;
  double t = 0;
  long n = 0;
  bool flag = false;
  std::size_t position = 0;
  std::vector<double> history;
  void bind(State& s) {
    s.field("f", f);
    s.value("t", t);
    s.value("n", n);
    s.value("flag", flag);
    s.value("position", position);
    s.values("history", history);
    s.after_load([this] { return position > 3 ? std::string("position past 3") : std::string(); });
  }
};

// an attempt that always succeeds, recording each step it is offered
TimeController::Attempt accept_all(std::vector<double>& dts) {
  return [&dts](double dt) {
    dts.push_back(dt);
    TimeController::Outcome r;
    r.ok = true;
    return r;
  };
}

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("state: records bound once are saved and loaded by name, bit for bit") {
  Backend& be = test::reference();
  Part a(be), b(be);
  State sa, sb;
  a.bind(sa);
  b.bind(sb);
  a.f.upload(std::vector<double>{1, 2, 3, 4, 5, 6, 0.1});
  a.t = 0.1 + 0.2;
  a.n = -5;
  a.flag = true;
  a.position = 2;
  a.history = {1.5, std::nan(""), -0.0};
  ModelState m;
  sa.save(m);
  CHECK(sa.names() == std::vector<std::string>{"f", "t", "n", "flag", "position", "history"});
  sb.load(m);
  CHECK(b.f.download() == a.f.download());
  CHECK(b.t == a.t);
  CHECK(b.n == -5);
  CHECK(b.flag);
  CHECK(b.position == 2);
  REQUIRE(b.history.size() == 3);
  CHECK(std::isnan(b.history[1]));
  CHECK(std::signbit(b.history[2]));
}

TEST_CASE("state: a checkpoint whose records differ is refused naming each difference, before anything changes (a position checked after loading)") {
  Backend& be = test::reference();
  Part a(be), b(be);
  State sa, sb;
  a.bind(sa);
  b.bind(sb);
  ModelState m;
  sa.save(m);
  b.t = 42;
  SUBCASE("a record missing, one unknown") {
    ModelState x;
    for (const auto& [k, v] : m.arrays())
      if (k != "n") x.insert(k, v);
    x.put("counters", std::vector<long>{1, 2, 3});
    CHECK_THROWS_WITH_AS(sb.load(x), doctest::Contains("'n' is missing; 'counters' is not a record of this model"), ConfigError);
    CHECK(b.t == 42);  // refused before anything changed
  }
  SUBCASE("another type and another length") {
    ModelState x = m;
    x.set_int("t", 3);
    x.put("f", std::vector<double>(9, 0.0));
    CHECK_THROWS_WITH_AS(sb.load(x), doctest::Contains("'f' has 9 values, this run has 7; 't' holds int64 values, this run keeps double"),
                         ConfigError);
    CHECK(b.t == 42);
  }
  SUBCASE("a position that does not fit the case") {
    a.position = 5;
    ModelState x;
    sa.save(x);
    CHECK_THROWS_WITH_AS(sb.load(x), doctest::Contains("does not fit this case: position past 3"), ConfigError);
  }
}

TEST_CASE("state: a record bound twice is a programming error") {
  State s;
  double x = 0;
  s.value("x", x);
  CHECK_THROWS_AS(s.value("x", x), Error);
}

TEST_CASE("time control: adaptive steps grow, end exactly on the stop, and split the last two evenly") {
  TimeStepOptions o;
  o.dt_init = 1;
  o.dt_min = 1e-3;
  o.dt_max = 5;
  o.growth = 2;
  o.max_cuts = 3;
  o.even_split = true;
  o.land_on_stop = true;
  TimeController c(o);
  std::vector<double> dts;
  const auto ok = accept_all(dts);
  while (c.time() < 10) c.advance(10, ok);
  // 1, 2 (t = 3); then 4 would leave a sliver of 3 before the stop (7 < 2 x 4): two steps of 3.5
  CHECK(dts == std::vector<double>{1, 2, 3.5, 3.5});
  CHECK(c.time() == 10);  // landed exactly
  CHECK(c.steps() == 4);
}

TEST_CASE("time control: a failed attempt is retried at half the size, restored, and the run stops below dt_min") {
  TimeStepOptions o;
  o.dt_init = 1;
  o.dt_min = 0.2;
  o.max_cuts = 5;
  o.unit = "days";
  TimeController c(o);
  int restores = 0, attempts = 0;
  auto fail_twice = [&](double dt) {
    TimeController::Outcome r;
    r.ok = ++attempts > 2;
    r.why = "S_w left [0, 1]";
    r.dt_limit = 0.3;
    return r;
  };
  c.advance(10, fail_twice, [&] { ++restores; });
  CHECK(c.last_dt() == 0.25);
  CHECK(c.cuts() == 2);
  CHECK(restores == 2);
  CHECK(c.next_dt() == doctest::Approx(0.25));  // grows from what worked, within dt_limit (0.3) and growth 1
  auto never = [&](double) {
    TimeController::Outcome r;
    r.why = "the pressure solve did not converge";
    return r;
  };
  CHECK_THROWS_WITH_AS(c.advance(10, never, nullptr, [] { return std::string("; at cell (1, 2, 3)"); }),
                       doctest::Contains("step 2 (t = 0.25 days, dt = 0.25): the pressure solve did not converge; at cell (1, 2, "
                                         "3); no step of at least time.dt_min = 0.2"),
                       NumericalError);
}

TEST_CASE("time control: the step after a cut grows by growth_after_cut, the later ones by growth") {
  TimeStepOptions o;
  o.dt_init = 1;
  o.dt_min = 1e-3;
  o.dt_max = 1000;
  o.growth = 3;
  o.growth_after_cut = 2;
  o.max_cuts = 3;
  o.land_on_stop = true;
  std::vector<double> dts;
  bool failed = false;
  auto fail_once = [&](double dt) {
    TimeController::Outcome r;
    r.ok = failed || dt < 1;  // the first attempt (dt = 1) fails, once
    failed = failed || !r.ok;
    if (r.ok) dts.push_back(dt);
    return r;
  };
  TimeController c(o);
  while (c.time() < 40) c.advance(40, fail_once);
  // 0.5 after the cut, then x2 once and x3 after: 1, 3, 9 (t = 13.5), the last 26.5 to the stop
  CHECK(dts == std::vector<double>{0.5, 1, 3, 9, 26.5});
  CHECK(c.cuts() == 1);
  // without growth_after_cut, x3 right after the cut
  o.growth_after_cut = 0;
  TimeController plain(o);
  dts.clear();
  failed = false;
  while (plain.time() < 40) plain.advance(40, fail_once);
  CHECK(dts == std::vector<double>{0.5, 1.5, 4.5, 13.5, 20});
}

TEST_CASE("time control: OPM Flow's rest-of-the-report rule and cut factor; its Newton-iteration factor") {
  TimeStepOptions o;
  o.dt_init = 10;
  o.dt_min = 1e-3;
  o.growth = 1;  // the steps stay at 10 unless the stop shapes them
  o.max_cuts = 3;
  o.even_split = true;
  o.land_on_stop = true;
  std::vector<double> dts;
  const auto ok = accept_all(dts);
  auto run = [&](double whole_within, double split_below, double stop) {
    o.whole_within = whole_within;
    o.split_below = split_below;
    TimeController c(o);
    dts.clear();
    while (c.time() < stop) c.advance(stop, ok);
    CHECK(c.time() == stop);
    return dts;
  };
  // a rest of 10.5 after a step of 10: taken whole within 5 % (OPM), two even steps otherwise
  CHECK(run(1.05, 1.5, 20.5) == std::vector<double>{10, 10.5});
  CHECK(run(1, 2, 20.5) == std::vector<double>{10, 5.25, 5.25});
  // a rest of 16 (1.6 steps): OPM keeps the step and ends on the 6 left; the default splits it
  CHECK(run(1.05, 1.5, 26) == std::vector<double>{10, 10, 6});
  CHECK(run(1, 2, 26) == std::vector<double>{10, 8, 8});
  // a rest of 12 (1.2 steps): both split it
  CHECK(run(1.05, 1.5, 22) == std::vector<double>{10, 6, 6});
  // a whole rest above dt_max is split (OPM's rule): dt_max 10.25, a rest of 10.5
  o.dt_max = 10.25;
  CHECK(run(1.05, 1.5, 20.5) == std::vector<double>{10, 5.25, 5.25});
  o.dt_max = std::numeric_limits<double>::infinity();

  // a failed attempt retried at cut x its size
  o.cut = 0.33;
  o.whole_within = 1;
  o.split_below = 2;
  int attempts = 0;
  TimeController c(o);
  c.advance(100, [&](double) {
    TimeController::Outcome r;
    r.ok = ++attempts > 1;
    return r;
  });
  CHECK(c.last_dt() == doctest::Approx(3.3));
  CHECK(c.cuts() == 1);

  // the next step from the Newton iterations against a target of 8 (OPM Flow's constants)
  CHECK(newton_step_factor(8, 8) == doctest::Approx(1));
  CHECK(newton_step_factor(2, 8) == doctest::Approx(3.4));
  CHECK(newton_step_factor(6, 8) == doctest::Approx(1.8));
  CHECK(newton_step_factor(12, 8) == doctest::Approx(2.0 / 3));
  CHECK(newton_step_factor(16, 8) == doctest::Approx(0.5));
}

TEST_CASE("time control: OPM Flow's PID factor from the last three relative changes") {
  PidStepControl pid(0.1);
  CHECK(pid.errors() == std::vector<double>{0.1, 0.1, 0.1});
  // below the tolerance: (e1/e2)^0.075 (tol/e2)^0.175 (e0^2/(e1 e2))^0.01 with e0 = e1 = tol, e2 = tol/2
  CHECK(pid.next_factor(0.05) == doctest::Approx(std::pow(2.0, 0.26)).epsilon(1e-14));
  // above it: tol / e2
  CHECK(pid.next_factor(0.4) == doctest::Approx(0.25).epsilon(1e-14));
  // e0 = 0.05, e1 = 0.4, e2 = 0.02
  CHECK(pid.next_factor(0.02) ==
        doctest::Approx(std::pow(20.0, 0.075) * std::pow(5.0, 0.175) * std::pow(0.0025 / (0.4 * 0.02), 0.01)).epsilon(1e-14));
  CHECK(pid.errors() == std::vector<double>{0.05, 0.4, 0.02});
  // a step that changed nothing: no limit, then none while it is e1, then the factor without its last term
  CHECK(std::isinf(pid.next_factor(0)));
  CHECK(std::isinf(pid.next_factor(0.03)));
  CHECK(pid.next_factor(0.03) == doctest::Approx(std::pow(0.1 / 0.03, 0.175)).epsilon(1e-14));
  // a restart's records
  PidStepControl again(0.1);
  again.set_errors(pid.errors());
  const double f_again = again.next_factor(0.07), f_pid = pid.next_factor(0.07);
  CHECK(f_again == f_pid);
  CHECK_THROWS_AS(again.set_errors({0.1, 0.1}), Error);
}

TEST_CASE("Newton: OPM Flow's oscillation test and the update factor it lowers") {
  // each phase back near two iterations ago (within 20 %) and away from the last (more than 20 %)
  std::vector<PhaseNorms> h = {{1.0, 2.0}, {0.5, 1.0}, {0.9, 1.9}};
  CHECK_FALSE(newton_oscillates(h, 0));
  CHECK_FALSE(newton_oscillates(h, 1));
  CHECK(newton_oscillates(h, 2));
  CHECK_FALSE(newton_oscillates(h, 3));  // past the history
  // one phase alone is not enough
  CHECK_FALSE(newton_oscillates({{1.0, 2.0}, {0.5, 1.0}, {0.9, 1.0}}, 2));
  // the other way round in a phase: near the last, or far from both
  CHECK_FALSE(newton_oscillates({{1.0, 2.0}, {0.95, 1.0}, {0.9, 1.9}}, 2));
  CHECK_FALSE(newton_oscillates({{1.0, 2.0}, {0.5, 1.0}, {0.2, 1.9}}, 2));
  // relative to the last norm: 25 % back two is too far, 12.5 % near enough (both exact in binary)
  CHECK_FALSE(newton_oscillates({{1.25, 2.5}, {0.5, 1.0}, {1.0, 2.0}}, 2));
  CHECK(newton_oscillates({{1.125, 2.25}, {0.5, 1.0}, {1.0, 2.0}}, 2));
  // a zero or NaN norm makes no phase oscillate
  CHECK_FALSE(newton_oscillates({{1.0, 2.0}, {0.5, 1.0}, {0.0, 1.9}}, 2));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_FALSE(newton_oscillates({{1.0, 2.0}, {0.5, 1.0}, {nan, 1.9}}, 2));
  // the factor: a tenth less at each oscillation, down to its least, back to 1 at a reset
  NewtonRelaxation r(0.65);
  CHECK(r.factor() == 1.0);
  CHECK_FALSE(r.observe(h, 1));
  CHECK(r.factor() == 1.0);
  const double want[] = {0.9, 0.8, 0.7, 0.65, 0.65};
  for (double f : want) {
    CHECK(r.observe(h, 2));
    CHECK(r.factor() == doctest::Approx(f).epsilon(1e-14));
  }
  r.reset();
  CHECK(r.factor() == 1.0);
}

TEST_CASE("time control: a step may take less than it is offered; a step count fixes the time") {
  TimeController c;  // offered the whole way to the stop
  c.advance(1, [](double dt) {
    TimeController::Outcome r;
    r.ok = true;
    r.dt = 0.3 * dt;
    return r;
  });
  CHECK(c.time() == doctest::Approx(0.3));
  TimeStepOptions f;
  f.dt_init = 0.1;
  f.fixed_count = true;
  TimeController k(f);
  for (int s = 0; s < 3; ++s)
    k.advance(1e9, [](double dt) {
      CHECK(dt == 0.1);
      TimeController::Outcome r;
      r.ok = true;
      return r;
    });
  CHECK(k.time() == 3 * 0.1);
}

TEST_CASE("time control: a step the physics limits below dt_min stops the run; a step shortened to a stop does not") {
  TimeStepOptions o;
  o.dt_min = 0.01;
  o.dt_min_source = "time.dt_min";
  TimeController c(o);
  auto takes = [](double share, const char* why) {
    return [share, why](double dt) {
      TimeController::Outcome r;
      r.ok = true;
      r.dt = share * dt;
      r.why = why;
      return r;
    };
  };
  c.advance(1, takes(0.5, "the CFL limit"));  // 0.5: above dt_min
  CHECK(c.time() == 0.5);
  c.advance(0.501, takes(1, ""));  // the stop leaves 0.001 < dt_min: taken whole
  CHECK(c.time() == doctest::Approx(0.501));
  CHECK_THROWS_WITH_AS(c.advance(1, takes(1e-300, "the CFL limit (max |u| = 1e306)")),
                       doctest::Contains("step 3 (t = 0.501): the CFL limit (max |u| = 1e306) allows dt = 4.99e-301, below the "
                                         "smallest step 0.01 (time.dt_min); the run stops"),
                       NumericalError);
  CHECK(c.steps() == 2);
}

TEST_CASE("time control: max_steps steps before the end stop the run") {
  TimeStepOptions o;
  o.dt_init = 1;
  o.max_steps = 3;
  o.end = 10;
  o.unit = "days";
  TimeController c(o);
  auto ok = [](double) {
    TimeController::Outcome r;
    r.ok = true;
    return r;
  };
  c.advance(10, ok);
  c.advance(10, ok);
  CHECK_THROWS_WITH_AS(c.advance(10, ok), doctest::Contains("time.max_steps = 3 reached at t = 3 days before time.end = 10"),
                       NumericalError);
  o.end = 3;
  TimeController d(o);  // the third step ends the run: no error
  for (int s = 0; s < 3; ++s) d.advance(3, ok);
  CHECK(d.time() == 3);
}

TEST_CASE("communicator: one process combines to its own values and has no device hook") {
  const Communicator& c = self_communicator();
  CHECK(c.size() == 1);
  CHECK(c.rank() == 0);
  CHECK(c.sum(2.5) == 2.5);
  CHECK(c.min(-1.0) == -1.0);
  CHECK(c.max(7L) == 7);
  CHECK(c.any(true));
  double v[2] = {1, std::nan("")};
  c.max(v);
  CHECK(v[0] == 1);
  CHECK(std::isnan(v[1]));
  CHECK(c.device_combine() == nullptr);
}
}
