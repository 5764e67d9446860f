#include "core/io/png_plot.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/error.hpp"
#include "core/io/png_canvas.hpp"

namespace poreflow::io {
namespace fs = std::filesystem;
using namespace draw;

namespace {

void data_range(const Panel& p, bool want_x, double& lo, double& hi) {
  lo = INFINITY;
  hi = -INFINITY;
  for (const auto& s : p.series)
    for (std::size_t i = 0; i < s.x.size(); ++i)
      if (std::isfinite(s.x[i]) && std::isfinite(s.y[i])) {
        double v = want_x ? s.x[i] : s.y[i];
        lo = std::min(lo, v);
        hi = std::max(hi, v);
      }
  if (lo > hi) lo = 0, hi = 1;  // no data
}

struct PanelAxes {
  Axis x, y;
};

PanelAxes panel_axes(const Panel& p) {
  double xlo, xhi, ylo, yhi;
  data_range(p, true, xlo, xhi);
  data_range(p, false, ylo, yhi);
  for (const auto& s : p.spans)
    if (std::isfinite(s.x0) && std::isfinite(s.x1)) xlo = std::min(xlo, s.x0), xhi = std::max(xhi, s.x1);
  widen_if_flat(xlo, xhi);
  double margin = 0.05 * (yhi - ylo);
  if (std::isnan(p.ymin)) ylo -= margin;
  else ylo = p.ymin;
  if (std::isnan(p.ymax)) yhi += margin;
  else yhi = p.ymax;
  widen_if_flat(ylo, yhi);
  return {make_axis(xlo, xhi), make_axis(ylo, yhi)};
}

// Where the axes' ranges are drawn: inset from the frame, so a curve at the end of a range (a
// zero rate, a water cut of 1) is drawn beside the frame, not under it.
constexpr int kInset = 4;
Rect data_area(Rect plot) { return {plot.x0 + kInset, plot.y0 + kInset, plot.x1 - kInset, plot.y1 - kInset}; }

void draw_series(Canvas& c, const Series& s, const PanelAxes& ax, Rect plot) {
  int phase = 0;
  bool have_prev = false;
  double px = 0, py = 0;
  for (std::size_t i = 0; i < s.x.size(); ++i) {
    if (!std::isfinite(s.x[i]) || !std::isfinite(s.y[i])) {
      have_prev = false;  // a gap in the data is a gap in the line
      continue;
    }
    const Rect d = data_area(plot);
    double qx = ax.x.map(s.x[i], d.x0, d.x1 - 1), qy = ax.y.map(s.y[i], d.y1 - 1, d.y0);
    double ax0 = px, ay0 = py, ax1 = qx, ay1 = qy;
    if (have_prev && clip_segment(ax0, ay0, ax1, ay1, plot))
      line(c, static_cast<int>(std::lround(ax0)), static_cast<int>(std::lround(ay0)), static_cast<int>(std::lround(ax1)),
           static_cast<int>(std::lround(ay1)), s.color, s.dashed, phase);
    if (s.markers) marker(c, static_cast<int>(std::lround(qx)), static_cast<int>(std::lround(qy)), s.color);
    px = qx;
    py = qy;
    have_prev = true;
  }
}

// The legend goes in the corner of the plot that hides the fewest drawn pixels.
void draw_legend(Canvas& c, const Panel& p, Rect plot) {
  std::vector<const Series*> items;
  int label_w = 0;
  for (const auto& s : p.series)
    if (!s.label.empty()) {
      items.push_back(&s);
      label_w = std::max(label_w, text_width(s.label));
    }
  if (items.empty()) return;
  const int pad = 8, sample = 36, gap = 12;
  int w = pad + sample + gap + label_w + pad, h = pad + static_cast<int>(items.size()) * kLine + pad - (kLine - kCap);
  Rect best{};
  long best_ink = -1;
  for (int corner = 0; corner < 4; ++corner) {
    int x0 = corner % 2 == 0 ? plot.x1 - 10 - w : plot.x0 + 10;
    int y0 = corner < 2 ? plot.y0 + 10 : plot.y1 - 10 - h;
    Rect r{std::max(x0, plot.x0), std::max(y0, plot.y0), std::min(x0 + w, plot.x1), std::min(y0 + h, plot.y1)};
    long ink = 0;
    for (int y = r.y0; y < r.y1; ++y)
      for (int x = r.x0; x < r.x1; ++x) ink += c.get(x, y) != kWhite && c.get(x, y) != kGrid;
    if (best_ink < 0 || ink < best_ink) best = r, best_ink = ink;
  }
  c.fill(best, kWhite);
  c.outline(best, {120, 120, 120});
  c.clip(best);
  for (std::size_t i = 0; i < items.size(); ++i) {
    int y = best.y0 + pad + static_cast<int>(i) * kLine, x = best.x0 + pad, mid = y + kCap / 2;
    int phase = 0;
    line(c, x, mid - 1, x + sample, mid - 1, items[i]->color, items[i]->dashed, phase);
    if (items[i]->markers) marker(c, x + sample / 2, mid, items[i]->color);
    text(c, x + sample + gap, y, items[i]->label, kBlack);
  }
  c.unclip();
}

void draw_panel(Canvas& c, const Panel& p, const PanelAxes& ax, int top, int left, int width, int height) {
  const int right = std::max(20, text_width(ax.x.labels.empty() ? "" : ax.x.labels.back()) / 2 + 8);
  Rect plot{left, top + (p.title.empty() ? 20 : 12 + kLine + 10), width - right,
            top + height - (p.xlabel.empty() ? 40 : 40 + kLine + 6)};
  if (plot.x1 - plot.x0 < 40 || plot.y1 - plot.y0 < 40)
    throw Error("write_plot_png: the image is too small for panel '" + p.title + "'");

  if (!p.title.empty()) text(c, (plot.x0 + plot.x1) / 2, top + 12, p.title, kBlack, Align::Center);
  const Rect d = data_area(plot);
  // the marked stretches: a light band each, labelled at its top (one row per span, three rows)
  c.clip({plot.x0 + 1, plot.y0 + 1, plot.x1 - 1, plot.y1 - 1});
  for (std::size_t i = 0; i < p.spans.size(); ++i) {
    const auto& s = p.spans[i];
    const int x0 = static_cast<int>(std::lround(ax.x.map(s.x0, d.x0, d.x1 - 1)));
    const int x1 = static_cast<int>(std::lround(ax.x.map(s.x1, d.x0, d.x1 - 1)));
    Rgb tint;
    for (int k = 0; k < 3; ++k) tint[k] = static_cast<unsigned char>(255 - (255 - s.color[k]) / 5);
    c.fill({x0, plot.y0, std::max(x1, x0 + 2), plot.y1}, tint);
    text(c, x0 + 4, plot.y0 + 6 + static_cast<int>(i % 3) * kLine, s.label, s.color);
  }
  c.unclip();
  for (double v : ax.x.ticks) {
    int x = static_cast<int>(std::lround(ax.x.map(v, d.x0, d.x1 - 1)));
    c.fill({x, plot.y0, x + 1, plot.y1}, kGrid);
  }
  for (double v : ax.y.ticks) {
    int y = static_cast<int>(std::lround(ax.y.map(v, d.y1 - 1, d.y0)));
    c.fill({plot.x0, y, plot.x1, y + 1}, kGrid);
  }
  c.clip({plot.x0 + 1, plot.y0 + 1, plot.x1 - 1, plot.y1 - 1});
  for (const auto& s : p.series) draw_series(c, s, ax, plot);
  c.unclip();

  c.outline(plot, kBlack);
  for (std::size_t i = 0; i < ax.x.ticks.size(); ++i) {
    int x = static_cast<int>(std::lround(ax.x.map(ax.x.ticks[i], d.x0, d.x1 - 1)));
    c.fill({x, plot.y1, x + 1, plot.y1 + 6}, kBlack);
    text(c, x + 1, plot.y1 + 10, ax.x.labels[i], kBlack, Align::Center);
  }
  for (std::size_t i = 0; i < ax.y.ticks.size(); ++i) {
    int y = static_cast<int>(std::lround(ax.y.map(ax.y.ticks[i], d.y1 - 1, d.y0)));
    c.fill({plot.x0 - 6, y, plot.x0, y + 1}, kBlack);
    text(c, plot.x0 - 10, y - kCap / 2, ax.y.labels[i], kBlack, Align::Right);
  }
  if (!p.xlabel.empty()) text(c, (plot.x0 + plot.x1) / 2, plot.y1 + 16 + kLine, p.xlabel, kBlack, Align::Center);
  if (!p.ylabel.empty()) text_up(c, 12 + kCap / 2, (plot.y0 + plot.y1) / 2, p.ylabel, kBlack);
  draw_legend(c, p, plot);
}

}  // namespace

void write_plot_png(const fs::path& file, const std::vector<Panel>& panels, int width, int panel_height) {
  const std::string ctx = "write_plot_png '" + file.string() + "': ";
  if (panels.empty()) throw Error(ctx + "no panels");
  if (width < 200 || width > 16384 || panel_height < 150 || panel_height > 16384 / static_cast<int>(panels.size()))
    throw Error(ctx + "need 200 <= width <= 16384, panel height >= 150 and a total height <= 16384");
  for (const auto& p : panels)
    for (const auto& s : p.series)
      if (s.x.size() != s.y.size()) throw Error(ctx + "series '" + s.label + "' has x and y of different lengths");

  // One left margin for all panels, so that stacked x axes line up.
  std::vector<PanelAxes> axes;
  int left = 0;
  for (const auto& p : panels) {
    axes.push_back(panel_axes(p));
    int labels = 0;
    for (const auto& l : axes.back().y.labels) labels = std::max(labels, text_width(l));
    left = std::max(left, 12 + (p.ylabel.empty() ? 0 : kLine) + labels + 12);
  }
  Canvas c(width, panel_height * static_cast<int>(panels.size()));
  for (std::size_t i = 0; i < panels.size(); ++i)
    draw_panel(c, panels[i], axes[i], static_cast<int>(i) * panel_height, left, width, panel_height);
  c.save(file);
}

}  // namespace poreflow::io
