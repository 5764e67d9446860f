// Tests that need no backend: the analytic solution, case files, option parsing.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/error.hpp"
#include "core/io/case_file.hpp"
#include "core/models/bl1d_analytic.hpp"
#include "core/types.hpp"

using namespace poreflow;

TEST_SUITE("unit") {

TEST_CASE("Welge: the front saturation of quadratic relative permeabilities") {
  // with S_init = 0 the tangent from the origin gives S_f^2 = mu_w / (mu_w + mu_o)
  BLAnalyticParams p;
  p.s_init = 0;
  BLAnalytic a(p);
  CHECK(a.front_saturation() == doctest::Approx(std::sqrt(p.mu_w / (p.mu_w + p.mu_o))).epsilon(1e-9));
  // the paper's S_init: the chord from (S_i, f(S_i)) is tangent at S_f
  BLAnalytic b(BLAnalyticParams{});
  double si = 0.001, sf = b.front_saturation();
  CHECK(std::fabs(b.dfw(sf) * (sf - si) - (b.fw(sf) - b.fw(si))) < 1e-10);
  // f_w' against a finite difference
  for (double s : {0.1, 0.37, 0.8})
    CHECK(b.dfw(s) == doctest::Approx((b.fw(s + 1e-6) - b.fw(s - 1e-6)) / 2e-6).epsilon(1e-6));
}

TEST_CASE("Welge: the profile holds exactly the injected water") {
  BLAnalyticParams p;
  p.s_init = 0;
  BLAnalytic a(p);
  const double q = 0.6 * a.breakthrough_q();
  const int n = 200000;
  double water = 0;  // m * integral of (S - S_i) dx
  for (int i = 0; i < n; ++i) water += a.saturation((i + 0.5) / n, q) / n;
  CHECK(p.porosity * water == doctest::Approx(q).epsilon(1e-4));
}

TEST_CASE("Welge: Q(t) solves dQ/dt = dP / R(Q) with R linear in Q before breakthrough") {
  BLAnalytic a(BLAnalyticParams{});
  const double dp = 0.4;
  double r0 = a.resistance(0), q1 = 0.5 * a.breakthrough_q();
  double alpha = (a.resistance(q1) - r0) / q1;
  CHECK(a.resistance(0.25 * q1) == doctest::Approx(r0 + alpha * 0.25 * q1).epsilon(1e-6));
  for (double t : {5.0, 20.0, 40.0}) {
    double exact = (-r0 + std::sqrt(r0 * r0 + 2 * alpha * dp * t)) / alpha;
    if (exact < a.breakthrough_q()) CHECK(a.injected(t) == doctest::Approx(exact).epsilon(1e-8));
  }
}

TEST_CASE("case files: unknown keys, types, ranges and overrides") {
  auto cf = io::CaseFile::parse("model = \"bl1d\"\n[rock]\nporosity = 0.25\npermeabilty = 1\n", "t.toml");
  CHECK(cf.in_range("rock.porosity", 0.2, 0, 1, true, false) == 0.25);
  CHECK(cf.get_string("model", "") == "bl1d");
  try {
    cf.check_all_used();
    FAIL("unknown key accepted");
  } catch (const ConfigError& e) {
    CHECK(std::string(e.what()).find("rock.permeabilty") != std::string::npos);
  }
  cf.set("rock.porosity=1.5");
  CHECK_THROWS_AS(cf.in_range("rock.porosity", 0.2, 0, 1, true, false), ConfigError);
  cf.set("grid.points=0");
  CHECK_THROWS_AS(cf.int_at_least("grid.points", 3, 3), ConfigError);
  cf.set("fluid.mu_oil=\"thick\"");
  CHECK_THROWS_WITH_AS(cf.positive("fluid.mu_oil", 1), doctest::Contains("fluid.mu_oil"), ConfigError);
  cf.set("output.dir=results/run1");  // a bare word that is not TOML becomes a string
  CHECK(cf.get_string("output.dir", "") == "results/run1");
  CHECK_THROWS_AS(cf.set("novalue"), ConfigError);
  CHECK_THROWS_WITH_AS(io::CaseFile::load("/nonexistent/case.toml"), doctest::Contains("/nonexistent/case.toml"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(io::CaseFile::parse("model = \n", "bad.toml"), doctest::Contains("line 1"), ConfigError);
}

TEST_CASE("names of precisions, reductions and combine modes") {
  CHECK(parse_precision("float") == Precision::Float);
  CHECK_THROWS_WITH_AS(parse_precision("half"), doctest::Contains("float, double"), ConfigError);
  for (auto v : paper_variants()) CHECK(parse_reduce_variant(to_string(v)) == v);
  bool is_auto = false;
  parse_reduce_variant("auto", &is_auto);
  CHECK(is_auto);
  CHECK_THROWS_AS(parse_reduce_variant("warp_magic"), ConfigError);
  CHECK(parse_combine("host") == Combine::Host);
  CHECK(parse_jacobi_metric("dp") == JacobiMetric::Dp);
}

}  // TEST_SUITE
