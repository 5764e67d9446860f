#include "core/io/png_plot.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <system_error>

#include <stb_image_write.h>  // the implementation is in Debian's libstb
// stb_easy_font is static functions only; we do not call stb_easy_font_spacing.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include <stb_easy_font.h>
#pragma GCC diagnostic pop

#include "core/base/error.hpp"

namespace poreflow::io {
namespace fs = std::filesystem;

namespace {

using Rgb = std::array<unsigned char, 3>;
constexpr Rgb kWhite{255, 255, 255}, kBlack{0, 0, 0}, kGrid{228, 228, 228}, kNanColor{150, 150, 150};
constexpr int kScale = 2;           // stb_easy_font's digits are 7 px tall: doubled for readability
constexpr int kCap = 7 * kScale;    // height of a digit or capital
constexpr int kLine = 12 * kScale;  // line height, descenders included

struct Rect {
  int x0, y0, x1, y1;  // [x0, x1) x [y0, y1)
};

// An RGB image with a clip rectangle, so plot lines cannot spill over the axes.
class Canvas {
 public:
  Canvas(int w, int h) : w_(w), h_(h), px_(static_cast<std::size_t>(w) * h * 3, 255), clip_{0, 0, w, h} {}
  void clip(Rect r) { clip_ = {std::max(r.x0, 0), std::max(r.y0, 0), std::min(r.x1, w_), std::min(r.y1, h_)}; }
  void unclip() { clip_ = {0, 0, w_, h_}; }
  void set(int x, int y, Rgb c) {
    if (x < clip_.x0 || x >= clip_.x1 || y < clip_.y0 || y >= clip_.y1) return;
    std::memcpy(&px_[(static_cast<std::size_t>(y) * w_ + x) * 3], c.data(), 3);
  }
  Rgb get(int x, int y) const {
    const unsigned char* p = &px_[(static_cast<std::size_t>(y) * w_ + x) * 3];
    return {p[0], p[1], p[2]};
  }
  void fill(Rect r, Rgb c) {
    for (int y = r.y0; y < r.y1; ++y)
      for (int x = r.x0; x < r.x1; ++x) set(x, y, c);
  }
  void outline(Rect r, Rgb c) {  // 1 px, just inside r
    fill({r.x0, r.y0, r.x1, r.y0 + 1}, c);
    fill({r.x0, r.y1 - 1, r.x1, r.y1}, c);
    fill({r.x0, r.y0, r.x0 + 1, r.y1}, c);
    fill({r.x1 - 1, r.y0, r.x1, r.y1}, c);
  }
  void save(const fs::path& file) const {
    errno = 0;
    if (!stbi_write_png(file.string().c_str(), w_, h_, 3, px_.data(), w_ * 3)) {
      std::string why = errno ? ": " + std::generic_category().message(errno) : "";
      throw Error("cannot write PNG '" + file.string() + "'" + why);
    }
  }

 private:
  int w_, h_;
  std::vector<unsigned char> px_;
  Rect clip_;
};

// ---- text ------------------------------------------------------------------------------------

// stb_easy_font indexes a table by character: anything outside printable ASCII would read past it.
std::string printable(const std::string& s) {
  std::string t = s;
  for (char& c : t)
    if (c < 32 || c > 126) c = '?';
  return t;
}

int text_width(const std::string& s) {
  auto t = printable(s);
  return stb_easy_font_width(t.data()) * kScale;
}

// Calls put(u0, v0, u1, v1) for each rectangle of the glyphs, in font units from the text's
// top-left corner.
template <class Put>
void glyphs(const std::string& s, Put&& put) {
  auto t = printable(s);
  std::vector<char> buf(t.size() * 1024 + 64);  // stb truncates rather than overflows if short
  int quads = stb_easy_font_print(0, 0, t.data(), nullptr, buf.data(), static_cast<int>(buf.size()));
  for (int q = 0; q < quads; ++q) {
    float a[2], b[2];  // vertex 0 (top left) and vertex 2 (bottom right) of 16-byte vertices
    std::memcpy(a, &buf[q * 64], sizeof a);
    std::memcpy(b, &buf[q * 64 + 32], sizeof b);
    put(static_cast<int>(a[0]), static_cast<int>(a[1]), static_cast<int>(b[0]), static_cast<int>(b[1]));
  }
}

enum class Align { Left, Center, Right };

// Text whose digits and capitals span y .. y + kCap, anchored at x by `align`.
void text(Canvas& c, int x, int y, const std::string& s, Rgb col, Align align = Align::Left) {
  int w = text_width(s);
  if (align == Align::Center) x -= w / 2;
  if (align == Align::Right) x -= w;
  glyphs(s, [&](int u0, int v0, int u1, int v1) {
    c.fill({x + u0 * kScale, y + v0 * kScale, x + u1 * kScale, y + v1 * kScale}, col);
  });
}

// Text reading upwards (a quarter turn counter-clockwise), centred on (cx, cy): the y-axis label.
void text_up(Canvas& c, int cx, int cy, const std::string& s, Rgb col) {
  int x = cx - kCap / 2, base = cy + text_width(s) / 2;
  glyphs(s, [&](int u0, int v0, int u1, int v1) {
    c.fill({x + v0 * kScale, base - u1 * kScale, x + v1 * kScale, base - u0 * kScale}, col);
  });
}

// ---- lines -----------------------------------------------------------------------------------

// Bresenham, stamping 2x2 pixels so the line is 2 px thick. `phase` carries the dash pattern
// from one segment of a polyline to the next.
void line(Canvas& c, int x0, int y0, int x1, int y1, Rgb col, bool dashed, int& phase) {
  int dx = std::abs(x1 - x0), dy = -std::abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
  int err = dx + dy;
  for (;;) {
    if (!dashed || phase % 18 < 11) c.fill({x0, y0, x0 + 2, y0 + 2}, col);
    ++phase;
    if (x0 == x1 && y0 == y1) break;
    int e2 = 2 * err;
    if (e2 >= dy) {
      err += dy;
      x0 += sx;
    }
    if (e2 <= dx) {
      err += dx;
      y0 += sy;
    }
  }
}

void marker(Canvas& c, int x, int y, Rgb col) {
  for (int dy = -3; dy <= 3; ++dy)
    for (int dx = -3; dx <= 3; ++dx)
      if (dx * dx + dy * dy <= 10) c.set(x + dx, y + dy, col);
}

// Liang-Barsky: cuts the segment to the rectangle before rasterizing, so a point far outside the
// axes (a fixed ymax, a blown-up value) costs nothing. False when nothing is left.
bool clip_segment(double& x0, double& y0, double& x1, double& y1, Rect r) {
  double t0 = 0, t1 = 1, dx = x1 - x0, dy = y1 - y0;
  auto edge = [&](double p, double q) {  // keep the part where p * t <= q
    if (p == 0) return q >= 0;
    double t = q / p;
    if (p < 0) t0 = std::max(t0, t);
    else t1 = std::min(t1, t);
    return t0 <= t1;
  };
  if (!edge(-dx, x0 - r.x0) || !edge(dx, r.x1 - 1 - x0) || !edge(-dy, y0 - r.y0) || !edge(dy, r.y1 - 1 - y0))
    return false;
  x1 = x0 + t1 * dx;
  y1 = y0 + t1 * dy;
  x0 += t0 * dx;
  y0 += t0 * dy;
  return true;
}

// ---- axes ------------------------------------------------------------------------------------

struct Axis {
  double lo = 0, hi = 1;
  std::vector<double> ticks;
  std::vector<std::string> labels;
  // pixel position of v along [p0, p1]; clamped so that far-off values stay integers
  double map(double v, double p0, double p1) const {
    return std::clamp(p0 + (v - lo) / (hi - lo) * (p1 - p0), -1e7, 1e7);
  }
};

// A range that is never empty: a constant gets +-10% (or +-1 around zero).
void widen_if_flat(double& lo, double& hi) {
  if (!(lo < hi)) {
    double d = lo == 0 ? 1 : std::abs(lo) * 0.1;
    lo -= d;
    hi = lo + 2 * d;
  }
}

// "2.5e+07" -> "2.5e7": shorter tick labels.
std::string compact_exponent(std::string s) {
  auto e = s.find('e');
  if (e == std::string::npos) return s;
  std::size_t digits = s.find_first_not_of("+-", e + 1);
  std::string sign = s[e + 1] == '-' ? "-" : "";
  std::size_t nz = std::min(s.find_first_not_of('0', digits), s.size() - 1);
  return s.substr(0, e + 1) + sign + s.substr(nz);
}

// Ticks at multiples of a 1, 2 or 5 x 10^k step: the one that gives the count closest to five.
Axis make_axis(double lo, double hi) {
  Axis a;
  a.lo = lo;
  a.hi = hi;
  const double tol = 1e-9;
  auto count = [&](double st) { return std::floor(hi / st + tol) - std::ceil(lo / st - tol) + 1; };
  double base = std::pow(10.0, std::floor(std::log10((hi - lo) / 5))), step = 0;
  for (double m : {1, 2, 5, 10, 20, 50})
    if (step == 0 || std::abs(count(m * base) - 5) <= std::abs(count(step) - 5)) step = m * base;
  double k0 = std::ceil(lo / step - tol);
  for (int k = 0; k < 20 && (k0 + k) * step <= hi + tol * step; ++k) {
    double v = (k0 + k) * step;
    a.ticks.push_back(v == 0 ? 0.0 : v);  // no "-0"
  }
  // Fixed notation with the step's decimals while that reads well, else just enough digits.
  int e = static_cast<int>(std::floor(std::log10(step) + 1e-9));
  double big = std::max(std::abs(lo), std::abs(hi));
  bool fixed = big < 1e6 && e >= -4;
  int digits = std::clamp(static_cast<int>(std::floor(std::log10(big))) - e + 1, 1, 15);
  for (double v : a.ticks) {
    char buf[40];
    if (fixed) std::snprintf(buf, sizeof buf, "%.*f", std::max(0, -e), v);
    else std::snprintf(buf, sizeof buf, "%.*g", digits, v);
    a.labels.push_back(compact_exponent(buf));
  }
  return a;
}

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

// ---- color map -------------------------------------------------------------------------------

// viridis at eight evenly spaced points; linear in between is indistinguishable from the full
// table at this size.
constexpr Rgb kViridis[] = {{68, 1, 84},    {70, 51, 126},  {54, 92, 141},  {39, 127, 142},
                            {31, 161, 135}, {74, 193, 109}, {159, 218, 58}, {253, 231, 37}};

Rgb viridis(double t) {
  constexpr int n = sizeof kViridis / sizeof kViridis[0];
  t = std::clamp(t, 0.0, 1.0) * (n - 1);
  int k = std::min(static_cast<int>(t), n - 2);
  double f = t - k;
  Rgb out;
  for (int i = 0; i < 3; ++i)
    out[i] = static_cast<unsigned char>(std::lround(kViridis[k][i] + f * (kViridis[k + 1][i] - kViridis[k][i])));
  return out;
}

std::string short_number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return buf;
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

void write_map_png(const fs::path& file, int nx, int ny, const std::vector<double>& values, double vmin, double vmax,
                   const std::string& title, int scale_to) {
  const std::string ctx = "write_map_png '" + file.string() + "': ";
  if (nx < 1 || ny < 1 || values.size() != static_cast<std::size_t>(nx) * static_cast<std::size_t>(ny))
    throw Error(ctx + "need nx, ny >= 1 and nx * ny values");
  if (!std::isfinite(vmin) || !std::isfinite(vmax) || vmax < vmin) throw Error(ctx + "need finite vmin <= vmax");
  if (scale_to < 16 || scale_to > 8192) throw Error(ctx + "scale_to must be in [16, 8192]");

  // The longer side gets scale_to pixels, the other keeps the aspect ratio.
  int mw = nx >= ny ? scale_to : std::max(1, static_cast<int>(std::lround(double(scale_to) * nx / ny)));
  int mh = ny >= nx ? scale_to : std::max(1, static_cast<int>(std::lround(double(scale_to) * ny / nx)));
  const int pad = 20, bar_w = 24;
  std::string hi_label = short_number(vmax), lo_label = short_number(vmin);
  Rect map{pad, title.empty() ? pad : 12 + kLine + 10, 0, 0};
  map.x1 = map.x0 + mw;
  map.y1 = map.y0 + mh;
  Rect bar{map.x1 + pad, map.y0, map.x1 + pad + bar_w, map.y1};
  int width = std::max(bar.x1 + 8 + std::max(text_width(hi_label), text_width(lo_label)) + pad,
                       text_width(title) + 2 * pad);
  Canvas c(width, map.y1 + pad);

  const double span = vmax - vmin;
  auto color = [&](double v) { return std::isnan(v) ? kNanColor : viridis(span > 0 ? (v - vmin) / span : 0.5); };
  for (int py = 0; py < mh; ++py) {
    int j = ny - 1 - static_cast<int>(static_cast<long long>(py) * ny / mh);  // image rows run downwards
    for (int px = 0; px < mw; ++px) {
      int i = static_cast<int>(static_cast<long long>(px) * nx / mw);
      c.set(map.x0 + px, map.y0 + py, color(values[static_cast<std::size_t>(j) * nx + i]));
    }
  }
  for (int py = 0; py < mh; ++py)
    c.fill({bar.x0, bar.y0 + py, bar.x1, bar.y0 + py + 1}, viridis(1.0 - (py + 0.5) / mh));
  c.outline({map.x0 - 1, map.y0 - 1, map.x1 + 1, map.y1 + 1}, kBlack);
  c.outline({bar.x0 - 1, bar.y0 - 1, bar.x1 + 1, bar.y1 + 1}, kBlack);
  text(c, bar.x1 + 8, bar.y0, hi_label, kBlack);
  text(c, bar.x1 + 8, bar.y1 - kCap, lo_label, kBlack);
  if (!title.empty()) text(c, width / 2, 12, title, kBlack, Align::Center);
  c.save(file);
}

}  // namespace poreflow::io
