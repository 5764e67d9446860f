// What the plots show (issue 24 §3): checked on their data model (the series, the ranges, the
// ticks) and on pixels of small rendered images.
#include <doctest/doctest.h>

#include <cmath>
#include <filesystem>
#include <string>
#include <vector>

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
