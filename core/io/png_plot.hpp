#pragma once
// Quick-look figures as PNG, with no plotting toolchain: stacked line-plot panels (profiles, time
// series, comparisons with analytic solutions). Colour maps: png_map.hpp.
#include <array>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace poreflow::io {

struct Series {
  std::string label;  // empty: not listed in the legend
  std::vector<double> x, y;  // same length; a non-finite point breaks the line
  std::array<unsigned char, 3> color{0, 0, 0};
  bool dashed = false;
  bool markers = false;
};

// A marked stretch of x (a shut well): a band over the panel's height in a light tint of its
// colour, labelled at its top.
struct Span {
  double x0 = 0, x1 = 0;
  std::string label;
  std::array<unsigned char, 3> color{0, 0, 0};
};

struct Panel {
  std::string title, xlabel, ylabel;
  std::vector<Series> series;
  // NaN: from the data with a 5% margin. The x range is always the data's.
  double ymin = std::numeric_limits<double>::quiet_NaN();
  double ymax = std::numeric_limits<double>::quiet_NaN();
  std::vector<Span> spans{};
};

// Panels stacked top to bottom, each width x panel_height pixels. Throws poreflow::Error naming
// the path when it cannot be written, or on a series whose x and y differ in length.
void write_plot_png(const std::filesystem::path& file, const std::vector<Panel>& panels, int width = 1000,
                    int panel_height = 420);

}  // namespace poreflow::io
