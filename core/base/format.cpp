#include "core/base/format.hpp"

#include <cmath>
#include <cstdio>

namespace poreflow {

std::string num_text(double v) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", v);
  return b;
}

std::string count_text(double n) {
  if (std::isnan(n)) return "unknown";
  if (std::isinf(n)) return n > 0 ? "more than 1e+308" : "less than -1e+308";
  char b[32];
  if (std::fabs(n) < 1e15) std::snprintf(b, sizeof b, "%.0f", n);
  else std::snprintf(b, sizeof b, "%.3g", n);
  return b;
}

std::string duration_text(double s) {
  if (!(s >= 0)) return "unknown";
  char b[64];
  // two units at most, the larger first
  auto two = [&](double v, double unit, const char* a, double sub, const char* bn) {
    const double whole = std::floor(v / unit), rest = std::floor((v - whole * unit) / sub);
    std::snprintf(b, sizeof b, "%.0f %s %.0f %s", whole, a, rest, bn);
  };
  const double min = 60, hour = 3600, day = 86400, year = 365.25 * day;
  if (s < 10) std::snprintf(b, sizeof b, "%.1f s", s);
  else if (s < min) std::snprintf(b, sizeof b, "%.0f s", s);
  else if (s < hour) two(s, min, "min", 1, "s");
  else if (s < day) two(s, hour, "h", min, "min");
  else if (s < 2 * year) two(s, day, "d", hour, "h");
  else if (s < 1e6 * year) std::snprintf(b, sizeof b, "%.0f years", std::floor(s / year));  // inf falls through
  else return "more than a million years";
  return b;
}

}  // namespace poreflow
