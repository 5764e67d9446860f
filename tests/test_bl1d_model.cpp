// Model tests: bl1d against the analytic Buckley-Leverett (Welge) solution on every backend under
// test, and agreement of each backend with the serial reference (what `compare` checks).
#include <cmath>
#include <string>

#include "core/io/case_file.hpp"
#include "core/models/bl1d.hpp"
#include "core/run/registry.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

// The paper's case (Table 1) at a test-sized grid and time.
io::CaseFile bl_case(long points, double t_end) {
  auto cf = io::CaseFile::parse("model = \"bl1d\"\n", "test");
  cf.set("grid.points=" + std::to_string(points));
  cf.set("time.end=" + std::to_string(t_end));
  return cf;
}

RunReport run_bl(Backend& be, Precision prec, long points, double t_end, const char* solver = "jacobi") {
  auto cf = bl_case(points, t_end);
  cf.set(std::string("pressure.solver=\"") + solver + "\"");
  auto model = make_model(cf, be, prec);
  cf.check_all_used();
  OutputOptions off;
  off.enabled = false;
  return run_model(*model, off, false);
}

}  // namespace

TEST_SUITE("model") {

TEST_CASE("bl1d converges to the Welge solution as the grid is refined") {
  for_each_backend([](Backend& be) {
    double prev = 1e9;
    for (long points : {26L, 51L, 101L}) {
      auto rep = run_bl(be, Precision::Double, points, 40.0);
      double l1 = rep.stats.at("l1_error_vs_analytic");
      double h = 1.0 / (points - 1);
      CAPTURE(points);
      CAPTURE(l1);
      CHECK(rep.stats.at("pressure_unconverged_solves") == 0);
      CHECK(l1 < 0.75 * prev);  // falls with refinement
      // the shock sits where the analytic front is, within a few cells of numerical diffusion
      CHECK(std::fabs(rep.stats.at("front_position") - rep.stats.at("front_analytic")) < 0.02 + 3 * h);
      prev = l1;
    }
    CHECK(prev < 0.03);  // small on the finest grid
  });
}

TEST_CASE("bl1d with the tridiagonal pressure solver: the same answer as Jacobi, and fine grids") {
  for_each_backend([](Backend& be) {
    auto jac = run_bl(be, Precision::Double, 51, 20.0, "jacobi");
    auto tri = run_bl(be, Precision::Double, 51, 20.0, "tridiag");
    CHECK(tri.steps == jac.steps);
    // Jacobi stops at a residual of 1e-6 of the flux scale: the two agree to about that
    CHECK(max_rel_diff(tri.final_fields[1].values, jac.final_fields[1].values) < 1e-4);
    double prev = 1e9;
    for (long points : {201L, 401L, 801L}) {
      auto rep = run_bl(be, Precision::Double, points, 40.0, "tridiag");
      double l1 = rep.stats.at("l1_error_vs_analytic");
      CAPTURE(points);
      CHECK(l1 < 0.8 * prev);
      prev = l1;
    }
    CHECK(prev < 0.005);
  });
}

TEST_CASE_TEMPLATE("bl1d on each backend agrees with the serial double reference", T, float, double) {
  for_each_backend([](Backend& be) {
    auto ref = run_bl(reference(), Precision::Double, 51, 20.0);
    auto got = run_bl(be, precision_of<T>(), 51, 20.0);
    REQUIRE(got.final_fields.size() == ref.final_fields.size());
    CHECK(got.steps == ref.steps);
    for (std::size_t f = 0; f < ref.final_fields.size(); ++f) {
      CAPTURE(ref.final_fields[f].name);
      // double: the same arithmetic up to rounding; float: Jacobi may stop one iteration apart
      CHECK(max_rel_diff(got.final_fields[f].values, ref.final_fields[f].values) <= (sizeof(T) == 4 ? 1e-3 : 1e-8));
    }
  });
}

}  // TEST_SUITE

TEST_SUITE("model") {
TEST_CASE("bl1d: a case too small for a device backend gets a hint naming what is faster") {
  for_each_backend([](Backend& be) {
    for (long points : {401L, 5001L}) {
      for (const char* solver : {"jacobi", "tridiag"}) {
        auto cf = bl_case(points, 1.0);
        cf.set(std::string("pressure.solver=\"") + solver + "\"");
        auto model = make_model(cf, be, Precision::Double);
        const std::string hint = model->backend_hint();
        const bool expected = !be.is_host() && points < 4096 && std::string(solver) == "jacobi";
        CAPTURE(points);
        CAPTURE(solver);
        CHECK(hint.empty() == !expected);
        if (expected) {
          CHECK(hint.find("--pressure-solver tridiag") != std::string::npos);
          CHECK(hint.find("--backend serial") != std::string::npos);
        }
      }
    }
  });
}
}
