#include "core/io/png_canvas.hpp"

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

namespace poreflow::io::draw {

void Canvas::save(const std::filesystem::path& file) const {
  errno = 0;
  if (!stbi_write_png(file.string().c_str(), w_, h_, 3, px_.data(), w_ * 3)) {
    std::string why = errno ? ": " + std::generic_category().message(errno) : "";
    throw Error("cannot write PNG '" + file.string() + "'" + why);
  }
}

namespace {

// stb_easy_font indexes a table by character: anything outside printable ASCII would read past it.
std::string printable(const std::string& s) {
  std::string t = s;
  for (char& c : t)
    if (c < 32 || c > 126) c = '?';
  return t;
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

}  // namespace

int text_width(const std::string& s) {
  auto t = printable(s);
  return stb_easy_font_width(t.data()) * kScale;
}

void text(Canvas& c, int x, int y, const std::string& s, Rgb col, Align align) {
  int w = text_width(s);
  if (align == Align::Center) x -= w / 2;
  if (align == Align::Right) x -= w;
  glyphs(s, [&](int u0, int v0, int u1, int v1) {
    c.fill({x + u0 * kScale, y + v0 * kScale, x + u1 * kScale, y + v1 * kScale}, col);
  });
}

void text_up(Canvas& c, int cx, int cy, const std::string& s, Rgb col) {
  int x = cx - kCap / 2, base = cy + text_width(s) / 2;
  glyphs(s, [&](int u0, int v0, int u1, int v1) {
    c.fill({x + v0 * kScale, base - u1 * kScale, x + v1 * kScale, base - u0 * kScale}, col);
  });
}

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

double Axis::map(double v, double p0, double p1) const {
  return std::clamp(p0 + (v - lo) / (hi - lo) * (p1 - p0), -1e7, 1e7);
}


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
Axis make_axis(double lo, double hi, double min_step) {
  Axis a;
  a.lo = lo;
  a.hi = hi;
  const double tol = 1e-9;
  auto count = [&](double st) { return std::floor(hi / st + tol) - std::ceil(lo / st - tol) + 1; };
  double base = std::pow(10.0, std::floor(std::log10((hi - lo) / 5))), step = 0;
  for (double m : {1, 2, 5, 10, 20, 50})
    if (step == 0 || std::abs(count(m * base) - 5) <= std::abs(count(step) - 5)) step = m * base;
  step = std::max(step, min_step);
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

}  // namespace poreflow::io::draw
