// What the plots show (issue 24 §3): checked on their data model (the series, the ranges, the
// ticks) and on pixels of small rendered images.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/io/outputs/well_plots.hpp"
#include "core/io/png_plot.hpp"
#include "tests/png_image.hpp"

using namespace poreflow;
using poreflow::test::Image;
using poreflow::test::load_png;
namespace fs = std::filesystem;

namespace {

fs::path plot_dir() {
  auto d = fs::temp_directory_path() / "poreflow_test_plots";
  fs::create_directories(d);
  return d;
}

}  // namespace

TEST_SUITE("io") {

TEST_CASE("plot: a curve at the bottom or top of a fixed range stays visible inside the frame") {
  const auto file = plot_dir() / "edges.png";
  io::Panel p{"water cut", "time", "", {}, 0, 1};
  p.series.push_back({"", {0, 10}, {0, 0}, {200, 0, 200}});  // no legend entry: every pixel is the curve's
  p.series.push_back({"", {0, 10}, {1, 1}, {0, 160, 160}});
  io::write_plot_png(file, {p}, 600, 300);
  const Image img = load_png(file);
  // two pixels thick over the plot's width (about 500 px) each
  CHECK(img.count({200, 0, 200}) > 600);
  CHECK(img.count({0, 160, 160}) > 600);
}

TEST_CASE("plot: a span is a light band of its colour over the panel, labelled") {
  const auto file = plot_dir() / "span.png";
  io::Panel p{"bhp", "time", "bar", {}};
  p.series.push_back({"", {0, 10}, {1, 2}, {0, 0, 0}});
  p.spans.push_back({2, 6, "P1 shut", {200, 40, 40}});
  io::write_plot_png(file, {p}, 600, 300);
  const Image img = load_png(file);
  CHECK(img.count({244, 212, 212}) > 150 * 150);  // 255 - (255 - c) / 5 over about 4/10 of the plot
  CHECK(img.count({200, 40, 40}) > 50);            // its label
}

}  // TEST_SUITE

namespace {

ImpesWellResult result(double oil, double water, double inj, double bhp, int control) {
  ImpesWellResult r;
  r.oil_rate = oil;
  r.water_rate = water;
  r.water_injection = inj;
  r.bhp = bhp;
  r.control = control;
  return r;
}

// A producer P1 at a liquid rate until t = 20, then at a BHP; an injector I1 shut from 20 to 30.
// Reports at 10 and 30; the schedule's change at 20 falls between them. Steps of 5 days;
// stop_after: the history after the step ending there, then the rest fed to `rest` (a restart).
void feed(io::WellHistory& h, double from, double to) {
  const WellSetting lrat{true, WellControl::Lrat, 100, 50}, bhp{true, WellControl::Bhp, 0, 80};
  const WellSetting inj{true, WellControl::Rate, 120, 300}, shut{false, WellControl::Rate, 120, 300};
  for (double t = from + 5; t <= to; t += 5) {
    const bool before = t <= 20;
    std::vector<ImpesWellResult> r{before ? result(100, 0, 0, 70, IMP_CTRL_RATE) : result(60, 4, 0, 80, IMP_CTRL_BHP),
                                   before ? result(0, 0, 120, 250, IMP_CTRL_RATE) : result(0, 0, 0, 0, IMP_CTRL_SHUT)};
    h.step(t, r, {before ? lrat : bhp, before ? inj : shut}, t == 10 || t == 30);
  }
}

std::vector<ImpesWell> two_wells() {
  std::vector<ImpesWell> w(2);
  w[0].name = "P1";
  w[0].kind = WellKind::Producer;
  w[1].name = "I1";
  w[1].kind = WellKind::Injector;
  return w;
}

const io::Series& series(const io::Panel& p, const std::string& label) {
  for (const auto& s : p.series)
    if (s.label == label) return s;
  FAIL("no series " << label);
  throw;
}

}  // namespace

TEST_SUITE("io") {

TEST_CASE("wells plot: from t = 0, a control change as a step at its time, shut wells marked") {
  io::WellHistory h;
  h.start(0, 2);
  feed(h, 0, 30);
  const auto panels = io::well_panels(h, two_wells());
  REQUIRE(panels.size() == 3);
  // copies: GCC 13 warns (-Wdangling-reference) of a reference returned by a call given a temporary
  const io::Series oil = series(panels[0], "oil production");
  REQUIRE_FALSE(oil.x.empty());
  CHECK(oil.x.front() == 0);
  CHECK(oil.x.back() == 30);
  // the rate steps from 100 to 60 at t = 20, with no ramp towards the next report
  bool step = false;
  for (std::size_t i = 0; i + 1 < oil.x.size(); ++i) {
    step = step || (oil.x[i] == 20 && oil.y[i] == 100 && oil.x[i + 1] == 20 && oil.y[i + 1] == 60);
    if (oil.x[i] > 20 || (oil.x[i] == 20 && i + 1 < oil.x.size() && oil.x[i + 1] > 20)) CHECK(oil.y[i] == 60);
    if (oil.x[i] < 20) CHECK(oil.y[i] == 100);
  }
  CHECK(step);
  const io::Series inj = series(panels[0], "water injection");
  CHECK(inj.x.front() == 0);
  for (std::size_t i = 0; i < inj.x.size(); ++i) CHECK(inj.y[i] == (inj.x[i] < 20 || (inj.x[i] == 20 && inj.y[i] != 0) ? 120 : 0));
  // the BHP panel marks I1's shut stretch
  bool marked = false;
  for (const auto& s : panels[2].spans) marked = marked || (s.x0 == 20 && s.x1 == 30 && s.label.find("I1") != std::string::npos);
  CHECK(marked);
  for (const auto& p : panels) CHECK(p.xlabel == "time (days)");
}

TEST_CASE("wells plot: the history saved with a checkpoint in the middle of an interval continues as one run") {
  io::WellHistory whole, part;
  whole.start(0, 2);
  feed(whole, 0, 30);
  part.start(0, 2);
  feed(part, 0, 25);
  io::WellHistory rest;
  rest.load(part.save(), 2);
  feed(rest, 25, 30);
  const auto a = io::well_panels(whole, two_wells()), b = io::well_panels(rest, two_wells());
  REQUIRE(a.size() == b.size());
  for (std::size_t p = 0; p < a.size(); ++p) {
    REQUIRE(a[p].series.size() == b[p].series.size());
    for (std::size_t s = 0; s < a[p].series.size(); ++s) {
      CHECK(a[p].series[s].x == b[p].series[s].x);
      const auto &ya = a[p].series[s].y, &yb = b[p].series[s].y;
      REQUIRE(ya.size() == yb.size());
      for (std::size_t i = 0; i < ya.size(); ++i) CHECK(((std::isnan(ya[i]) && std::isnan(yb[i])) || ya[i] == yb[i]));
    }
    CHECK(a[p].spans.size() == b[p].spans.size());
  }
  CHECK_THROWS_AS(rest.load(part.save(), 3), ConfigError);
}

}  // TEST_SUITE
