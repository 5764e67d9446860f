// The convergence control (core/base/converge.h): the decision rules on the host, then the
// control family's kernels on every backend against them, word for word.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/kernels/control.hpp"
#include "core/base/converge.h"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

using Words = std::vector<unsigned long long>;

// the host's decision on a sequence of metrics, one check per iteration from `first_it`
struct HostControl {
  Words w = Words(PF_CV_WORDS, 0);
  ConvergeRule rule;
  long checks = 0;
  // check at iteration it with metric m
  void check(long it, double m) {
    const int slot = static_cast<int>(checks % PF_CV_NSLOTS);
    w[PF_CV_SLOT0 + slot] = phys::pf_to_word(m);
    phys::pf_cv_decide<double>(w.data(), it, slot, rule.abs_tol, rule.rel_tol, rule.flags, rule.cycle, rule.max_iterations);
    ++checks;
  }
  ConvergeStatus status() const { return decode_status(w.data(), Precision::Double); }
};

const double kInf = std::numeric_limits<double>::infinity();

}  // namespace

TEST_CASE("control: a threshold rule converges at the first check below the target") {
  HostControl c;
  c.rule.abs_tol = 1e-3;
  c.rule.max_iterations = 100;
  for (long it = 0; it < 10 && !c.status().stopped(); ++it) c.check(it, std::pow(10.0, -double(it)));
  auto s = c.status();
  CHECK(s.reason == StopReason::Converged);
  CHECK(s.iterations == 4);  // 1e-4 < 1e-3; 1e-3 is not (strict)
  CHECK(s.first == 1.0);
  CHECK(s.last == doctest::Approx(1e-4));

  HostControl inclusive;
  inclusive.rule.abs_tol = 1e-3;
  inclusive.rule.flags = PF_CV_TEST | PF_CV_INCLUSIVE;
  inclusive.rule.max_iterations = 100;
  for (long it = 0; it < 10 && !inclusive.status().stopped(); ++it) inclusive.check(it, it == 3 ? 1e-3 : 1.0);
  CHECK(inclusive.status().iterations == 3);
}

TEST_CASE("control: the relative target is taken from the first check") {
  HostControl c;
  c.rule.rel_tol = 1e-2;
  c.rule.abs_tol = 0;
  c.rule.max_iterations = 100;
  const double m[] = {50.0, 20.0, 1.0, 0.6, 0.49, 0.1};
  for (long it = 0; it < 6 && !c.status().stopped(); ++it) c.check(it, m[it]);
  CHECK(c.status().reason == StopReason::Converged);
  CHECK(c.status().iterations == 4);  // 0.49 < 0.5 = 1e-2 * 50
}

TEST_CASE("control: the best iterate is kept, and the limit stops after it is recorded") {
  HostControl c;
  c.rule.abs_tol = 1e-9;
  c.rule.flags = PF_CV_TEST | PF_CV_TRACK_BEST;
  c.rule.max_iterations = 5;
  const double m[] = {3.0, 1.0, 2.0, 0.5, 4.0, 0.25};
  // each check writes its iterate (here: its iteration) into the candidate buffer, then decides
  long buffers[2] = {-1, -1};
  for (long it = 0; it <= 5 && !c.status().stopped(); ++it) {
    buffers[phys::pf_cv_candidate(c.w.data())] = it;
    c.check(it, m[it]);
    CAPTURE(it);
    CHECK(buffers[c.status().best_buffer] == c.status().best_iteration);
  }
  auto s = c.status();
  CHECK(s.reason == StopReason::Limit);
  CHECK(s.iterations == 5);
  CHECK(s.best == 0.25);
  CHECK(s.best_iteration == 5);
  CHECK(buffers[s.best_buffer] == 5);
  // deciding again after the stop changes nothing
  Words before = c.w;
  phys::pf_cv_decide<double>(c.w.data(), 6, 0, 1e-9, 0.0, c.rule.flags, 0, 5);
  CHECK(c.w == before);
}

TEST_CASE("control: stagnation over cycles stops a solve that gains nothing") {
  // cycles of 4 iterations: the first cycles gain, then the best of a cycle stays at 1.0
  HostControl c;
  c.rule.abs_tol = 1e-12;
  c.rule.flags = PF_CV_TEST | PF_CV_INCLUSIVE | PF_CV_TRACK_BEST;
  c.rule.cycle = 4;
  c.rule.max_iterations = 1000;
  long it = 0;
  for (; it < 200 && !c.status().stopped(); ++it) c.check(it, it < 12 ? 100.0 / double(1 + it) : 1.0 + 0.5 * (it % 4));
  auto s = c.status();
  CHECK(s.reason == StopReason::Stagnated);
  CHECK(s.iterations > 12);
  CHECK(s.iterations <= 24);
  CHECK(s.best == 1.0);

  // a steadily converging sequence never stagnates
  HostControl d = HostControl{};
  d.rule = c.rule;
  for (it = 0; it < 400 && !d.status().stopped(); ++it) d.check(it, std::pow(0.97, double(it)));
  CHECK(d.status().reason != StopReason::Stagnated);
}

TEST_CASE("control: a non-finite metric stops, and a threshold test never passes NaN") {
  for (double bad : {std::nan(""), kInf}) {
    HostControl c;
    c.rule.abs_tol = 1e30;
    c.rule.max_iterations = 100;
    c.check(0, bad);
    CHECK(c.status().reason == StopReason::NonFinite);
    CHECK(c.status().iterations == 0);
  }
  // the fused form (jacobi1d, red-black sweeps): every block decides the same, the leader records
  Words w(PF_CV_WORDS, 0);
  w[PF_CV_SLOT0 + 1] = phys::pf_to_word(std::nan(""));
  CHECK(phys::pf_cv_fused_stop<double>(w.data(), 7, 1, 1e30, PF_CV_TEST, 0) == 1);
  CHECK(w[PF_CV_STOP] == 0);  // not the leader: nothing written
  CHECK(phys::pf_cv_fused_stop<double>(w.data(), 7, 1, 1e30, PF_CV_TEST, 1) == 1);
  CHECK(w[PF_CV_STOP] == PF_CV_NONFINITE);
  CHECK(w[PF_CV_ITER] == 7);
  Words v(PF_CV_WORDS, 0);
  v[PF_CV_SLOT0] = phys::pf_to_word(0.5);
  CHECK(phys::pf_cv_fused_stop<double>(v.data(), 3, -1, 1.0, PF_CV_TEST, 1) == 0);  // no check to decide
  CHECK(phys::pf_cv_fused_stop<double>(v.data(), 3, 0, 0.5, PF_CV_TEST, 1) == 0);   // strict
  CHECK(phys::pf_cv_fused_stop<double>(v.data(), 3, 0, 0.6, PF_CV_TEST, 1) == 1);
  CHECK(v[PF_CV_STOP] == PF_CV_CONVERGED);
}

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("control: the decide kernel takes the host's decisions word for word", T, float, double) {
  for_each_backend([](Backend& be) {
    // random metrics with a downward trend and noise: best updates, cycles, then the limit
    for (int rule_kind = 0; rule_kind < 3; ++rule_kind) {
      ConvergeRule rule;
      rule.abs_tol = rule_kind == 0 ? 1e-3 : 1e-30;
      rule.rel_tol = rule_kind == 1 ? 1e-2 : 0;
      rule.flags = PF_CV_TEST | PF_CV_INCLUSIVE | PF_CV_TRACK_BEST;
      rule.cycle = rule_kind == 2 ? 5 : 0;
      rule.max_iterations = 60;
      auto noise = random_vector<double>(64, 0.5, 2.0);
      auto ctrl = be.alloc(kControlBytes);
      auto control = be.control();
      control.reset(*ctrl);
      Words host(PF_CV_WORDS, 0);
      for (long it = 0; it <= rule.max_iterations; ++it) {
        const T m = T(std::pow(0.9, double(it)) * noise[it]);
        const int slot = static_cast<int>(it % PF_CV_NSLOTS);
        const unsigned long long bits = phys::pf_to_word(m);
        be.upload(*ctrl, &bits, sizeof bits, (PF_CV_SLOT0 + slot) * sizeof(unsigned long long));
        host[PF_CV_SLOT0 + slot] = bits;
        control.decide({precision_of<T>(), ctrl.get(), it, slot, rule});
        phys::pf_cv_decide<T>(host.data(), it, slot, T(rule.abs_tol), T(rule.rel_tol), rule.flags, rule.cycle,
                              rule.max_iterations);
        Words dev(PF_CV_WORDS);
        be.download(*ctrl, dev.data(), kControlBytes);
        CAPTURE(rule_kind);
        CAPTURE(it);
        REQUIRE(dev == host);
        if (host[PF_CV_STOP]) break;
      }
      CHECK(host[PF_CV_STOP] != 0);
    }
  });
}

}  // TEST_SUITE
