#pragma once
// Colour maps as PNG: a 2D field (a layer, a slice) in viridis with its colour bar, its title, and
// what is drawn around it. map_layout() is what would be drawn (ticks and their labels), so tests
// can check a map without reading pixels.
#include <filesystem>
#include <string>
#include <vector>

namespace poreflow::io {

// Ticks of an axis and their labels.
struct Ticks {
  std::vector<double> at;
  std::vector<std::string> labels;
};

// A mark on the map (a well), in the axes' coordinates.
struct MapMarker {
  double x = 0, y = 0;
  std::string label;
  bool filled = true;  // hollow: shown for orientation (a well not completed in this layer)
};

struct MapPlot {
  int nx = 0, ny = 0;
  std::vector<double> values;  // nx * ny, row-major with y = 0 at the bottom; NaN: gray
  double vmin = 0, vmax = 1;   // the colour range; values outside are clamped
  std::string title;
  // The axes: the coordinates of the map's left, right, bottom and top edges, and the labels
  // (with their units); no axis where the label is empty.
  double x0 = 0, x1 = 1, y0 = 0, y1 = 1;
  std::string xlabel, ylabel;
  bool whole_ticks = false;  // the axes count cells: ticks on whole numbers only
  std::string bar_label;     // the colour bar's quantity and unit
  std::vector<MapMarker> markers;
};

// What is drawn around the map: the ticks of its axes (none where the axis has no label) and of
// its colour bar, with their labels.
struct MapLayout {
  Ticks x, y, bar;
};
MapLayout map_layout(const MapPlot& m);

// Drawn nearest-neighbour so the map's longer side is scale_to pixels. Throws poreflow::Error
// naming the path when it cannot be written, or on a plot that does not hold together.
void write_map_png(const std::filesystem::path& file, const MapPlot& m, int scale_to = 512);

}  // namespace poreflow::io
