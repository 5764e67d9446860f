#include "core/io/png_map.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/error.hpp"
#include "core/io/png_canvas.hpp"

namespace poreflow::io {
using namespace draw;

MapLayout map_layout(const MapPlot& m) {
  MapLayout l;
  l.bar.at = {m.vmin, m.vmax};
  l.bar.labels = {short_number(m.vmin), short_number(m.vmax)};
  return l;
}

void write_map_png(const std::filesystem::path& file, const MapPlot& m, int scale_to) {
  const std::string ctx = "write_map_png '" + file.string() + "': ";
  const int nx = m.nx, ny = m.ny;
  const double vmin = m.vmin, vmax = m.vmax;
  if (nx < 1 || ny < 1 || m.values.size() != static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny))
    throw Error(ctx + "need nx, ny >= 1 and nx * ny values");
  if (!std::isfinite(vmin) || !std::isfinite(vmax) || vmax < vmin) throw Error(ctx + "need finite vmin <= vmax");
  if (scale_to < 16 || scale_to > 8192) throw Error(ctx + "scale_to must be in [16, 8192]");
  const MapLayout l = map_layout(m);

  // The longer side gets scale_to pixels, the other keeps the aspect ratio.
  int mw = nx >= ny ? scale_to : std::max(1, static_cast<int>(std::lround(double(scale_to) * nx / ny)));
  int mh = ny >= nx ? scale_to : std::max(1, static_cast<int>(std::lround(double(scale_to) * ny / nx)));
  const int pad = 20, bar_w = 24;
  Rect map{pad, m.title.empty() ? pad : 12 + kLine + 10, 0, 0};
  map.x1 = map.x0 + mw;
  map.y1 = map.y0 + mh;
  Rect bar{map.x1 + pad, map.y0, map.x1 + pad + bar_w, map.y1};
  int labels = 0;
  for (const auto& s : l.bar.labels) labels = std::max(labels, text_width(s));
  int width = std::max(bar.x1 + 8 + labels + pad, text_width(m.title) + 2 * pad);
  Canvas c(width, map.y1 + pad);

  const double span = vmax - vmin;
  auto color = [&](double v) { return std::isnan(v) ? kNanColor : viridis(span > 0 ? (v - vmin) / span : 0.5); };
  for (int py = 0; py < mh; ++py) {
    int j = ny - 1 - static_cast<int>(static_cast<long long>(py) * ny / mh);  // image rows run downwards
    for (int px = 0; px < mw; ++px) {
      int i = static_cast<int>(static_cast<long long>(px) * nx / mw);
      c.set(map.x0 + px, map.y0 + py, color(m.values[static_cast<std::size_t>(j) * nx + i]));
    }
  }
  for (int py = 0; py < mh; ++py)
    c.fill({bar.x0, bar.y0 + py, bar.x1, bar.y0 + py + 1}, viridis(1.0 - (py + 0.5) / mh));
  c.outline({map.x0 - 1, map.y0 - 1, map.x1 + 1, map.y1 + 1}, kBlack);
  c.outline({bar.x0 - 1, bar.y0 - 1, bar.x1 + 1, bar.y1 + 1}, kBlack);
  text(c, bar.x1 + 8, bar.y0, l.bar.labels[1], kBlack);
  text(c, bar.x1 + 8, bar.y1 - kCap, l.bar.labels[0], kBlack);
  if (!m.title.empty()) text(c, width / 2, 12, m.title, kBlack, Align::Center);
  c.save(file);
}

}  // namespace poreflow::io
