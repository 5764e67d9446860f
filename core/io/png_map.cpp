#include "core/io/png_map.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/error.hpp"
#include "core/io/png_canvas.hpp"

namespace poreflow::io {
using namespace draw;

namespace {

Ticks ticks_of(double lo, double hi, double min_step) {
  Ticks t;
  const Axis a = make_axis(lo, hi, min_step);
  for (std::size_t i = 0; i < a.ticks.size(); ++i) {
    t.at.push_back(std::clamp(a.ticks[i], lo, hi));  // not past an end by the tick rule's tolerance
    t.labels.push_back(a.labels[i]);
  }
  return t;
}

// a well's mark: a white disc in a black ring (filled) or the ring alone
void well_mark(Canvas& c, int x, int y, bool filled) {
  for (int dy = -7; dy <= 7; ++dy)
    for (int dx = -7; dx <= 7; ++dx) {
      const int r2 = dx * dx + dy * dy;
      if (r2 <= 49 && r2 > 25) c.set(x + dx, y + dy, kBlack);
      else if (r2 <= 25 && (filled || r2 > 9)) c.set(x + dx, y + dy, kWhite);
    }
}

}  // namespace

MapLayout map_layout(const MapPlot& m) {
  MapLayout l;
  const double step = m.whole_ticks ? 1 : 0;
  if (!m.xlabel.empty() && m.x1 > m.x0) l.x = ticks_of(m.x0, m.x1, step);
  if (!m.ylabel.empty() && m.y1 > m.y0) l.y = ticks_of(m.y0, m.y1, step);
  if (m.vmax > m.vmin) l.bar = ticks_of(m.vmin, m.vmax, 0);
  else l.bar = {{m.vmin}, {short_number(m.vmin)}};  // a flat field: its one value
  return l;
}

void write_map_png(const std::filesystem::path& file, const MapPlot& m, int scale_to) {
  const std::string ctx = "write_map_png '" + file.string() + "': ";
  const int nx = m.nx, ny = m.ny;
  const double vmin = m.vmin, vmax = m.vmax;
  if (nx < 1 || ny < 1 || m.values.size() != static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny))
    throw Error(ctx + "need nx, ny >= 1 and nx * ny values");
  if (!std::isfinite(vmin) || !std::isfinite(vmax) || vmax < vmin) throw Error(ctx + "need finite vmin <= vmax");
  if (!(m.x1 > m.x0) || !(m.y1 > m.y0)) throw Error(ctx + "need x0 < x1 and y0 < y1");
  if (scale_to < 16 || scale_to > 8192) throw Error(ctx + "scale_to must be in [16, 8192]");
  const MapLayout l = map_layout(m);
  auto widest = [](const Ticks& t) {
    int w = 0;
    for (const auto& s : t.labels) w = std::max(w, text_width(s));
    return w;
  };

  // The longer side gets scale_to pixels, the other keeps the aspect ratio.
  const int mw = nx >= ny ? scale_to : std::max(1, static_cast<int>(std::lround(double(scale_to) * nx / ny)));
  const int mh = ny >= nx ? scale_to : std::max(1, static_cast<int>(std::lround(double(scale_to) * ny / nx)));
  const int pad = 20, bar_w = 24, tick = 6;
  const int left = pad + (m.ylabel.empty() ? 0 : kLine + 8 + widest(l.y) + tick + 4);
  Rect map{left, m.title.empty() ? pad : 12 + kLine + 10, left + mw, 0};
  map.y1 = map.y0 + mh;
  const int bottom = map.y1 + (m.xlabel.empty() ? pad : tick + 4 + kLine + 6 + kLine + pad / 2);
  const Rect bar{map.x1 + pad, map.y0, map.x1 + pad + bar_w, map.y1};
  const int bar_labels = bar.x1 + tick + 4, bar_title = bar_labels + widest(l.bar) + 8;
  const int width = std::max(bar_title + (m.bar_label.empty() ? 0 : kLine) + pad, text_width(m.title) + 2 * pad);
  Canvas c(width, bottom);

  // the field
  const double span = vmax - vmin;
  auto color = [&](double v) { return std::isnan(v) ? kNanColor : viridis(span > 0 ? (v - vmin) / span : 0.5); };
  for (int py = 0; py < mh; ++py) {
    int j = ny - 1 - static_cast<int>(static_cast<long long>(py) * ny / mh);  // image rows run downwards
    for (int px = 0; px < mw; ++px) {
      int i = static_cast<int>(static_cast<long long>(px) * nx / mw);
      c.set(map.x0 + px, map.y0 + py, color(m.values[static_cast<std::size_t>(j) * nx + i]));
    }
  }
  auto px_of = [&](double x) { return map.x0 + static_cast<int>(std::lround((x - m.x0) / (m.x1 - m.x0) * (mw - 1))); };
  auto py_of = [&](double y) { return map.y1 - 1 - static_cast<int>(std::lround((y - m.y0) / (m.y1 - m.y0) * (mh - 1))); };
  // the wells, named beside their mark (on the left near the right edge)
  c.clip(map);
  for (const auto& w : m.markers) {
    const int x = px_of(w.x), y = py_of(w.y), tw = text_width(w.label);
    well_mark(c, x, y, w.filled);
    const int tx = x + 10 + tw + 4 <= map.x1 ? x + 10 : x - 10 - tw;
    const int ty = std::clamp(y - kCap / 2, map.y0 + 3, map.y1 - kCap - 3);
    if (w.label.empty()) continue;
    c.fill({tx - 3, ty - 3, tx + tw + 3, ty + kCap + 4}, kWhite);
    text(c, tx, ty, w.label, kBlack);
  }
  c.unclip();
  c.outline({map.x0 - 1, map.y0 - 1, map.x1 + 1, map.y1 + 1}, kBlack);
  // the axes
  for (std::size_t i = 0; i < l.x.at.size(); ++i) {
    const int x = px_of(l.x.at[i]);
    c.fill({x, map.y1, x + 1, map.y1 + tick}, kBlack);
    text(c, x + 1, map.y1 + tick + 4, l.x.labels[i], kBlack, Align::Center);
  }
  for (std::size_t i = 0; i < l.y.at.size(); ++i) {
    const int y = py_of(l.y.at[i]);
    c.fill({map.x0 - 1 - tick, y, map.x0 - 1, y + 1}, kBlack);
    text(c, map.x0 - 1 - tick - 4, y - kCap / 2, l.y.labels[i], kBlack, Align::Right);
  }
  if (!m.xlabel.empty()) text(c, (map.x0 + map.x1) / 2, map.y1 + tick + 4 + kLine + 6, m.xlabel, kBlack, Align::Center);
  if (!m.ylabel.empty()) text_up(c, pad + kCap / 2, (map.y0 + map.y1) / 2, m.ylabel, kBlack);
  // the colour bar with its ticks
  for (int py = 0; py < mh; ++py)
    c.fill({bar.x0, bar.y0 + py, bar.x1, bar.y0 + py + 1}, viridis(1.0 - (py + 0.5) / mh));
  c.outline({bar.x0 - 1, bar.y0 - 1, bar.x1 + 1, bar.y1 + 1}, kBlack);
  for (std::size_t i = 0; i < l.bar.at.size(); ++i) {
    const double f = span > 0 ? (l.bar.at[i] - vmin) / span : 0.5;
    const int y = bar.y1 - 1 - static_cast<int>(std::lround(f * (mh - 1)));
    c.fill({bar.x1, y, bar.x1 + tick, y + 1}, kBlack);
    text(c, bar_labels, std::clamp(y - kCap / 2, 2, bottom - kCap - 2), l.bar.labels[i], kBlack);
  }
  if (!m.bar_label.empty()) text_up(c, bar_title + kCap / 2, (bar.y0 + bar.y1) / 2, m.bar_label, kBlack);
  if (!m.title.empty()) text(c, width / 2, 12, m.title, kBlack, Align::Center);
  c.save(file);
}

}  // namespace poreflow::io
