// adi2d over whole runs: each component's mass balance closes (injected - produced = change in
// place), saturations stay in [0, 1] and sum to 1, and every backend agrees with serial double.
#include <cmath>
#include <string>

#include "core/io/cases/cases.hpp"
#include "core/io/case_file.hpp"
#include "core/models/adi2d.hpp"
#include "core/run/registry.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

io::CaseFile adi_case(long points, double t_end, const std::string& extra = "") {
  auto cf = io::CaseFile::parse("model = \"adi2d\"\n" + extra, "test");
  cf.set("grid.points=" + std::to_string(points));
  cf.set("time.end=" + std::to_string(t_end));
  return cf;
}

template <class T>
std::unique_ptr<Adi2D<T>> make_adi(Backend& be, io::CaseFile& cf) {
  (void)cf.get_string("model", "");
  auto cfg = read_adi2d_config(cf, be);
  cf.check_all_used();
  return std::make_unique<Adi2D<T>>(be, cfg);
}

template <class T>
RunReport run_quietly(Adi2D<T>& m) {
  OutputOptions off;
  off.enabled = false;
  return run_model(m, off, false);
}

}  // namespace

TEST_SUITE("model") {

TEST_CASE("adi2d: mass balance closes and saturations stay physical over a whole run") {
  for_each_backend([](Backend& be) {
    // strong injection, capillarity, diffusion and a pressure-dependent K3: every term is active
    for (const char* pattern : {"corners", "five_spot"}) {
      CAPTURE(pattern);
      auto cf = adi_case(33, 0.03);
      cf.set(std::string("wells.pattern=\"") + pattern + "\"");
      cf.set("wells.injection_rate=0.2");
      cf.set("fluid.diffusion=0.001");
      cf.set("fluid.k3_beta=2.0");
      auto m = make_adi<double>(be, cf);
      auto rep = run_quietly(*m);
      CHECK(rep.steps == 30);
      for (int c = 1; c <= 4; ++c) CHECK(rep.stats.at("mass_balance_rel_error_" + std::to_string(c)) < 1e-10);
      // water actually went in and something came out
      auto net = m->well_net();
      CHECK(net[0] > 0);
      CHECK(net[3] < 0);
      const auto& f = rep.final_fields;  // pressure, sw, so, sg, c_o3, c_g3
      for (std::size_t k = 0; k < f[1].values.size(); ++k) {
        double sw = f[1].values[k], so = f[2].values[k], sg = f[3].values[k];
        REQUIRE(sw >= 0);
        REQUIRE(so >= 0);
        REQUIRE(sg >= 0);
        REQUIRE(sw <= 1);
        REQUIRE(so <= 1);
        REQUIRE(sg <= 1);
        REQUIRE(std::fabs(sw + so + sg - 1) < 1e-12);
        REQUIRE(f[4].values[k] >= 0);
        REQUIRE(f[4].values[k] <= 1);
      }
      CHECK(rep.stats.at("volume_error_last") < 1e-2);
    }
  });
}

TEST_CASE("adi2d: strong capillarity stays stable and keeps the volume balance") {
  // zeta = 3 makes the explicit capillary part stiff at 65 points: without the capillary term of
  // the substep limit a checkerboard grows near the injector and empties a node by step 12
  for_each_backend([](Backend& be) {
    auto cf = adi_case(65, 0.03);
    cf.set("capillary.zeta=3");
    auto m = make_adi<double>(be, cf);
    auto rep = run_quietly(*m);
    CHECK(rep.steps == 30);
    CHECK(rep.stats.at("volume_error_last") < 1e-3);
    CHECK(rep.stats.at("min_saturation") >= 0);
    for (int c = 1; c <= 4; ++c) CHECK(rep.stats.at("mass_balance_rel_error_" + std::to_string(c)) < 1e-10);
  });
}

TEST_CASE_TEMPLATE("adi2d on each backend agrees with the serial double reference", T, float, double) {
  for_each_backend([](Backend& be) {
    auto cfr = adi_case(33, 0.01), cf = adi_case(33, 0.01);
    auto ref = make_adi<double>(reference(), cfr);
    auto got = make_adi<T>(be, cf);
    OutputOptions off;
    off.enabled = false;
    auto rr = run_model(*ref, off, false), rg = run_model(*got, off, false);
    for (std::size_t f = 0; f < rr.final_fields.size(); ++f) {
      CAPTURE(rr.final_fields[f].name);
      CHECK(max_rel_diff(rg.final_fields[f].values, rr.final_fields[f].values) <= (sizeof(T) == 4 ? 2e-3 : 1e-8));
    }
  });
}

}  // TEST_SUITE
