#pragma once
// The drawing under the PNG plots and maps (png_plot.hpp, png_map.hpp): an RGB canvas with a clip
// rectangle, text in stb_easy_font, lines, markers, axis ticks, the viridis colours. Internal to
// core/io.
#include <algorithm>
#include <array>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

namespace poreflow::io::draw {

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
  // throws poreflow::Error naming the file when it cannot be written
  void save(const std::filesystem::path& file) const;

 private:
  int w_, h_;
  std::vector<unsigned char> px_;
  Rect clip_;
};

enum class Align { Left, Center, Right };

int text_width(const std::string& s);
// Text whose digits and capitals span y .. y + kCap, anchored at x by `align`.
void text(Canvas& c, int x, int y, const std::string& s, Rgb col, Align align = Align::Left);
// Text reading upwards (a quarter turn counter-clockwise), centred on (cx, cy): the y-axis label.
void text_up(Canvas& c, int cx, int cy, const std::string& s, Rgb col);

// A line 2 px thick; `phase` carries the dash pattern from one segment of a polyline to the next.
void line(Canvas& c, int x0, int y0, int x1, int y1, Rgb col, bool dashed, int& phase);
void marker(Canvas& c, int x, int y, Rgb col);
// Cuts the segment to the rectangle (Liang-Barsky); false when nothing is left.
bool clip_segment(double& x0, double& y0, double& x1, double& y1, Rect r);

// An axis from lo to hi with its ticks.
struct Axis {
  double lo = 0, hi = 1;
  std::vector<double> ticks;
  std::vector<std::string> labels;
  // pixel position of v along [p0, p1]; clamped so that far-off values stay integers
  double map(double v, double p0, double p1) const;
};
// A range that is never empty: a constant gets +-10% (or +-1 around zero).
void widen_if_flat(double& lo, double& hi);
// Ticks at multiples of a 1, 2 or 5 x 10^k step (at least min_step), about five of them.
Axis make_axis(double lo, double hi, double min_step = 0);

Rgb viridis(double t);
std::string short_number(double v);

}  // namespace poreflow::io::draw
