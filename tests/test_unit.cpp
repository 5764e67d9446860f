// Tests that need no backend: the analytic solution, case files, option parsing.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>

#include "core/base/error.hpp"
#include "core/base/format.hpp"
#include "core/models/memory.hpp"
#include "core/base/limits.hpp"
#include "core/io/case_file.hpp"
#include "core/models/bl1d_analytic.hpp"
#include "core/physics/adi2d.h"
#include "core/kernels/jacobi1d.hpp"
#include "core/kernels/reduce.hpp"
#include "core/base/types.hpp"

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

TEST_CASE("adi2d physics: Stone and Parker laws against their printed formulas") {
  // the formulas of paper 002 written out directly, against the shared header's versions (which
  // share powers between the laws for speed)
  const double n = 3.25, m = (n - 1) / n;
  for (double se : {0.05, 0.2, 0.5, 0.77, 0.95}) {
    double krw = 0, kow = 0;
    phys::adi_kr_water_ow(se, n, &krw, &kow);
    CAPTURE(se);
    CHECK(krw == doctest::Approx(std::sqrt(se) * std::pow(1 - std::pow(1 - std::pow(se, n / (n - 1)), m), 2)).epsilon(1e-12));
    CHECK(kow == doctest::Approx(std::sqrt(1 - se) * std::pow(1 - std::pow(se, n / (n - 1)), 2 * m)).epsilon(1e-12));
    CHECK(krw == doctest::Approx(phys::adi_kr_wetting(se, n)).epsilon(1e-12));
    // with no gas (S_L = 1) the three-phase oil law reduces to k_ow
    CHECK(phys::adi_kr_oil(se, 1 - se, kow, n) == doctest::Approx(kow).epsilon(1e-12));
    // Parker: p_c and its slope against a central difference
    const double iz = 0.01, smin = 0.01;
    double pc = 0, slope = 0, pp = 0, pm = 0, dummy = 0;
    phys::adi_parker(se, n, iz, smin, &pc, &slope);
    CHECK(pc == doctest::Approx(iz * std::pow(std::pow(se, -1 / m) - 1, 1 / n)).epsilon(1e-12));
    phys::adi_parker(se + 1e-7, n, iz, smin, &pp, &dummy);
    phys::adi_parker(se - 1e-7, n, iz, smin, &pm, &dummy);
    CHECK(slope == doctest::Approx(std::fabs(pp - pm) / 2e-7).epsilon(1e-5));
  }
  // held constant below s_min: no slope there
  double pc = 0, slope = 1;
  phys::adi_parker(0.005, n, 0.01, 0.01, &pc, &slope);
  CHECK(slope == 0.0);
  CHECK(pc > 0);
  // at full saturation p_c is 0 and so is the slope; no capillarity at all when 1/zeta = 0
  phys::adi_parker(1.0, n, 0.01, 0.01, &pc, &slope);
  CHECK(pc == 0.0);
  CHECK(slope == 0.0);
  phys::adi_parker(0.3, n, 0.0, 0.01, &pc, &slope);
  CHECK(pc == 0.0);
  CHECK(slope == 0.0);
  // the end points of the water and oil-water laws
  double krw = -1, kow = -1;
  phys::adi_kr_water_ow(0.0, n, &krw, &kow);
  CHECK(krw == 0.0);
  CHECK(kow == 1.0);
  phys::adi_kr_water_ow(1.0, n, &krw, &kow);
  CHECK(krw == 1.0);
  CHECK(kow == 0.0);
  CHECK(phys::adi_kr_oil(0.3, 0.0, 0.5, n) == 0.0);
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
  CHECK_THROWS_AS(cf.set("wells[2].rate=1"), ConfigError);
}

TEST_CASE("case files: a subnormal number is refused wherever a number is read, naming the key") {
  // issue 24: rock.porosity = 1e-320 was accepted and ran with dt = 3e-320
  auto cf = io::CaseFile::parse("[rock]\nporosity = 1e-320\nporo = [0.2, -4e-310]\n[fluid]\nswof = [[0.2, 5e-324]]\n", "s.toml");
  CHECK_THROWS_WITH_AS(cf.in_range("rock.porosity", 0.2, 0, 1, true, false),
                       doctest::Contains("rock.porosity = 9.99989e-321 is below the smallest normal number"), ConfigError);
  CHECK_THROWS_WITH_AS(cf.get_double("rock.porosity", 0.2), doctest::Contains("rock.porosity"), ConfigError);
  CHECK_THROWS_WITH_AS(cf.get_numbers("rock.poro"), doctest::Contains("rock.poro = -4e-310"), ConfigError);
  CHECK_THROWS_WITH_AS(cf.get_rows("fluid.swof"), doctest::Contains("fluid.swof = 4.94066e-324"), ConfigError);
  cf.set("rock.porosity=2.3e-308");  // the smallest normal numbers and 0 are numbers like any other
  CHECK(cf.positive("rock.porosity", 1) == 2.3e-308);
  cf.set("rock.porosity=0");
  CHECK(cf.non_negative("rock.porosity", 1) == 0);
}

TEST_CASE("case files: an integer range names the key, the range and what the limit protects") {
  auto cf = io::CaseFile::parse("[grid]\nn = 2000000000\n", "n.toml");
  CHECK_THROWS_WITH_AS(cf.int_in_range("grid.n", 84, 1, 65534, "the arrays' limit"),
                       doctest::Contains("grid.n = 2000000000 must be an integer in [1, 65534] (the arrays' limit)"), ConfigError);
  cf.set("grid.n=65534");
  CHECK(cf.int_in_range("grid.n", 84, 1, 65534) == 65534);
}

TEST_CASE("sizes: a product within a limit never overflows") {
  CHECK(product_within({2, 3, 4}) == 24);
  CHECK(product_within({std::uint64_t(1) << 24, std::uint64_t(1) << 24}) == kMaxArrayValues);
  CHECK(product_within({(std::uint64_t(1) << 24) + 1, std::uint64_t(1) << 24}) == 0);
  CHECK(product_within({4000000000ull, 4000000000ull, 4000000000ull}, ~std::uint64_t(0)) == 0);  // 6.4e28 wraps in 64 bits
  CHECK(product_within({0, ~std::uint64_t(0), ~std::uint64_t(0)}) == 0);
}

TEST_CASE("format: durations and counts print without absurd digits") {
  CHECK(duration_text(0.42) == "0.4 s");
  CHECK(duration_text(42) == "42 s");
  CHECK(duration_text(192) == "3 min 12 s");
  CHECK(duration_text(2 * 3600 + 5 * 60 + 7) == "2 h 5 min");
  CHECK(duration_text(3 * 86400 + 4 * 3600 + 100) == "3 d 4 h");
  CHECK(duration_text(12.5 * 365.25 * 86400) == "12 years");
  CHECK(duration_text(1e300) == "more than a million years");
  CHECK(duration_text(HUGE_VAL) == "more than a million years");
  CHECK(duration_text(-1) == "unknown");
  CHECK(duration_text(std::nan("")) == "unknown");
  CHECK(count_text(10000000) == "10000000");
  CHECK(count_text(1.2e300) == "1.2e+300");
  CHECK(count_text(HUGE_VAL) == "more than 1e+308");
  CHECK(num_text(0.001) == "0.001");
  CHECK(bytes_text(std::size_t(3) << 40) == "3 TiB");  // 3.28e+04 GiB before
  CHECK(bytes_text(std::size_t(5) << 49) == "2.5 PiB");
}

TEST_CASE("--set into an array of tables: an index past the array or too long for a number is refused") {
  // the second: the case fuzzer's first crash (std::stoul threw out_of_range past the CLI's handlers)
  auto cf = io::CaseFile::parse("model = \"impes3d\"\n[[wells]]\nname = \"P1\"\nrate = 1.0\n", "w.toml");
  CHECK_NOTHROW(cf.set("wells[0].rate=2.5"));
  for (const char* bad : {"wells[1].rate=1", "wells[-1].rate=1", "wells[x].rate=1", "wells[].rate=1",
                          "wells[122222222222222222222222222222222].rate=1"})
    CHECK_THROWS_WITH_AS(cf.set(bad), doctest::Contains("there is no table"), ConfigError);
}

TEST_CASE("case files: loading and syntax errors name the file and line") {
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
