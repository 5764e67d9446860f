// The colour maps of the models (issue 24 §3): axes with units, ticks on the colour bar, the
// wells on impes3d's layer, and one colour range per quantity over a run. Checked on the maps'
// data model (the MapPlot each snapshot draws, map_layout's ticks), with small serial runs.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/io/outputs/maps.hpp"
#include "core/models/impes3d.hpp"
#include "core/run/registry.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
namespace fs = std::filesystem;

namespace {

std::string case_text(const std::string& file) {
  std::ifstream in(fs::path(POREFLOW_SOURCE_DIR) / "cases" / file);
  REQUIRE(in);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::unique_ptr<Model> small_model(const std::string& text, const std::vector<std::string>& sets) {
  auto cf = io::CaseFile::parse(text, "test");
  for (const auto& s : sets) cf.set(s);
  (void)read_output_options(cf);
  (void)cf.get_string("precision", "double");  // fluids3d's case asks for float; these checks run double
  auto m = make_model(cf, test::reference(), Precision::Double);
  cf.check_all_used();
  return m;
}

std::unique_ptr<Model> small_adi2d() {
  return small_model(case_text("adi2d.toml"), {"grid.points=17", "time.end=0.01"});
}
std::unique_ptr<Model> small_impes3d() {
  return small_model(case_text("impes_case1.toml"),
                     {"grid.nx=9", "grid.ny=7", "grid.nz=2", "time.end=60", "time.reports=6", "output.layer=2"});
}
std::unique_ptr<Model> small_fluids3d() { return small_model(case_text("fluids3d.toml"), {"grid.n=10", "time.steps=6"}); }

// every map's axes are labelled with a unit and ticked, and its colour bar has ticks between its ends
void check_axes(const io::MapFigure& f) {
  INFO("map ", f.suffix, ": ", f.plot.title);
  const auto l = io::map_layout(f.plot);
  CHECK(f.plot.xlabel.find('(') != std::string::npos);  // "x (cells)", "I (cells)", "x (nondimensional)"
  CHECK(f.plot.ylabel.find('(') != std::string::npos);
  CHECK(l.x.at.size() >= 2);
  CHECK(l.y.at.size() >= 2);
  CHECK(l.x.labels.size() == l.x.at.size());
  for (double t : l.x.at) CHECK((t >= f.plot.x0 && t <= f.plot.x1));
  for (double t : l.y.at) CHECK((t >= f.plot.y0 && t <= f.plot.y1));
  CHECK(l.bar.at.size() >= 3);
  for (double t : l.bar.at) CHECK((t >= f.plot.vmin && t <= f.plot.vmax));
  CHECK_FALSE(f.plot.bar_label.empty());
}

}  // namespace

TEST_SUITE("io") {

TEST_CASE("maps: every model's maps have axes with units and a colour bar with ticks") {
  for (const auto& nmm :
       {std::tuple{"adi2d", &small_adi2d, &io::adi2d_maps}, std::tuple{"impes3d", &small_impes3d, &io::impes3d_maps},
        std::tuple{"fluids3d", &small_fluids3d, &io::fluids3d_maps}}) {
    const auto& [name, make, maps] = nmm;
    const char* const label = name;  // named: INFO's lambda cannot capture a binding (clang)
    INFO(std::string(label));
    auto m = make();
    m->step(m->end_time());  // a field that is not flat
    const auto figs = maps().make(*m);
    REQUIRE_FALSE(figs.empty());
    for (const auto& f : figs) check_axes(f);
  }
}

TEST_CASE("maps: the cell axes of impes3d run over the cells, 1-based, and the wells are marked at their cells") {
  auto m = small_impes3d();
  const auto figs = io::impes3d_maps().make(*m);
  REQUIRE(figs.size() == 1);
  const auto& p = figs[0].plot;
  CHECK(p.x0 == 0.5);
  CHECK(p.x1 == 9.5);
  CHECK(p.y0 == 0.5);
  CHECK(p.y1 == 7.5);
  for (double t : io::map_layout(p).x.at) CHECK(t == std::round(t));  // whole cells
  // INJ at (1, 1), PROD at (-1, -1) = (9, 7), both completed through both layers
  REQUIRE(p.markers.size() == 2);
  CHECK(p.markers[0].label == "INJ");
  CHECK(p.markers[0].x == 1);
  CHECK(p.markers[0].y == 1);
  CHECK(p.markers[1].label == "PROD");
  CHECK(p.markers[1].x == 9);
  CHECK(p.markers[1].y == 7);
  CHECK(p.markers[1].filled);
}

}  // TEST_SUITE

namespace {

struct Drawn {
  fs::path png;
  io::MapPlot plot;
};

// an adi2d run with three snapshots whose maps are recorded, not written
std::vector<Drawn> record_adi2d(const std::vector<std::string>& sets, Observers* more = nullptr) {
  auto cf = io::CaseFile::parse(case_text("adi2d.toml"), "test");
  for (const auto& s : std::vector<std::string>{"grid.points=17", "time.end=0.03", "output.snapshots=3"}) cf.set(s);
  for (const auto& s : sets) cf.set(s);
  auto out = read_output_options(cf);
  out.dir = fs::temp_directory_path() / "poreflow_test_maps";
  auto m = make_model(cf, test::reference(), Precision::Double);
  cf.check_all_used();
  std::vector<Drawn> drawn;
  Observers obs;
  obs.push_back(io::map_plots(out.dir, io::adi2d_maps(), [&](const fs::path& png, const io::MapPlot& p) { drawn.push_back({png, p}); },
                              out.ranges));
  if (more)
    for (auto& o : *more) obs.push_back(std::move(o));
  (void)run_model(*m, obs, out, false);
  return drawn;
}

// the last drawing of each file
std::map<std::string, io::MapPlot> final_maps(const std::vector<Drawn>& drawn) {
  std::map<std::string, io::MapPlot> last;
  for (const auto& d : drawn) last[d.png.filename().string()] = d.plot;
  return last;
}

// the final maps of quantity `suffix` ("_p")
std::vector<io::MapPlot> of(const std::map<std::string, io::MapPlot>& maps, const std::string& suffix) {
  std::vector<io::MapPlot> v;
  for (const auto& [name, p] : maps)
    if (name.size() > suffix.size() + 4 && name.compare(name.size() - suffix.size() - 4, suffix.size(), suffix) == 0) v.push_back(p);
  return v;
}

}  // namespace

TEST_SUITE("io") {

TEST_CASE("maps: one colour range per quantity over a run, each saturation its own") {
  const auto maps = final_maps(record_adi2d({}));
  REQUIRE(maps.size() == 16);  // 4 maps x snapshots 0 to 3
  for (const std::string q : {"_p", "_sw", "_so", "_sg"}) {
    INFO(q);
    const auto v = of(maps, q);
    REQUIRE(v.size() == 4);
    double lo = INFINITY, hi = -INFINITY;
    for (const auto& p : v) {
      CHECK(p.vmin == v[0].vmin);  // the same range in every snapshot
      CHECK(p.vmax == v[0].vmax);
      for (double x : p.values) lo = std::min(lo, x), hi = std::max(hi, x);
    }
    CHECK(v[0].vmin <= lo);  // ... that holds the whole run
    CHECK(v[0].vmax >= hi);
    CHECK(v[0].vmax - v[0].vmin <= 1.1 * (hi - lo) + 1e-12);  // ... and no more: S_g near 0.05 is not lost in 0 to 1
  }
}

TEST_CASE("maps: output.range.<map> fixes a map's range; an unknown map or a bad range is refused by name") {
  const auto maps = final_maps(record_adi2d({"output.range.sg=[0, 0.2]"}));
  for (const auto& p : of(maps, "_sg")) {
    CHECK(p.vmin == 0);
    CHECK(p.vmax == 0.2);
  }
  for (const auto& sk : {std::pair{"output.range.sgas=[0, 1]", "output.range.sgas"}, std::pair{"output.range.sw=[1, 0]", "output.range.sw"},
                         std::pair{"output.range.sw=[0, 1, 2]", "output.range.sw"}, std::pair{"output.range.p=0.5", "output.range.p"}}) {
    const char* const set = sk.first;  // named: INFO's lambda cannot capture a binding (clang)
    const char* const key = sk.second;
    INFO(set);
    try {
      (void)record_adi2d({set});
      FAIL("accepted");
    } catch (const ConfigError& e) {
      CHECK(std::string(e.what()).find(key) != std::string::npos);
    }
  }
}

TEST_CASE("maps: a restarted run's maps keep the range of the run before it") {
  auto adi2d = [] {
    auto cf = io::CaseFile::parse(case_text("adi2d.toml"), "test");
    for (const auto& s : std::vector<std::string>{"grid.points=17", "time.end=0.03"}) cf.set(s);
    return make_model(cf, test::reference(), Precision::Double);
  };
  auto m = adi2d();
  std::vector<io::MapPlot> drawn;
  auto record = [&](const fs::path&, const io::MapPlot& p) { drawn.push_back(p); };
  auto first = io::map_plots("unused", io::adi2d_maps(), record);
  first->begin(*m, false);
  m->step(m->end_time());
  first->snapshot(*m, 1);
  ModelState saved;
  first->save(saved);
  REQUIRE(drawn.size() == 4);
  const auto before = drawn[3];  // the pressure
  REQUIRE(before.vmin < before.vmax);
  // the next snapshot of the restarted run: a uniform pressure, drawn in the range of the run before
  drawn.clear();
  auto fresh = adi2d();
  auto second = io::map_plots("unused", io::adi2d_maps(), record);
  second->resume(saved);
  second->begin(*fresh, true);
  second->snapshot(*fresh, 2);
  REQUIRE(drawn.size() == 4);
  CHECK(drawn[3].vmin <= before.vmin);
  CHECK(drawn[3].vmax >= before.vmax);
}

}  // TEST_SUITE
