#include "core/models/impes3d_fields.hpp"

#include <algorithm>
#include <cmath>

namespace poreflow {
namespace {

// splitmix64: a fixed, portable stream of 64-bit words
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return (static_cast<double>(next() >> 11) + 0.5) * 0x1.0p-53; }  // (0, 1)
  double normal() {  // Box-Muller
    const double u = uniform(), v = uniform();
    return std::sqrt(-2 * std::log(u)) * std::cos(2 * M_PI * v);
  }
};

// a moving average of half-width r along one direction, mirrored at the ends
void smooth_line(std::vector<double>& f, int n, int stride, int count, int other_stride, int r) {
  if (r <= 0 || n <= 1) return;
  std::vector<double> line(n), out(n);
  for (int c = 0; c < count; ++c) {
    const std::size_t base = static_cast<std::size_t>(c) * other_stride;
    for (int x = 0; x < n; ++x) line[x] = f[base + static_cast<std::size_t>(x) * stride];
    for (int x = 0; x < n; ++x) {
      double s = 0;
      for (int d = -r; d <= r; ++d) {
        int y = x + d;
        while (y < 0 || y >= n) y = y < 0 ? -y : 2 * (n - 1) - y;  // mirror
        s += line[y];
      }
      out[x] = s / (2 * r + 1);
    }
    for (int x = 0; x < n; ++x) f[base + static_cast<std::size_t>(x) * stride] = out[x];
  }
}

// a laterally correlated standard field of one layer: white noise, three box passes each way
// (close to a Gaussian kernel), rescaled to mean 0 and deviation 1
std::vector<double> layer_field(Rng& rng, int nx, int ny, double length) {
  std::vector<double> f(static_cast<std::size_t>(nx) * ny);
  for (auto& x : f) x = rng.normal();
  const int r = std::max(0, static_cast<int>(std::lround(length / 1.7)));
  for (int pass = 0; pass < 3; ++pass) {
    smooth_line(f, nx, 1, ny, nx, r);
    smooth_line(f, ny, nx, nx, 1, r);
  }
  double m = 0, v = 0;
  for (double x : f) m += x;
  m /= double(f.size());
  for (double x : f) v += (x - m) * (x - m);
  const double sd = f.size() > 1 && v > 0 ? std::sqrt(v / double(f.size())) : 1.0;
  for (auto& x : f) x = (x - m) / sd;
  return f;
}

// min-max onto [0, 1]
void to_unit(std::vector<double>& f) {
  const auto [lo, hi] = std::minmax_element(f.begin(), f.end());
  const double a = *lo, span = *hi - *lo;
  for (auto& x : f) x = span > 0 ? (x - a) / span : 0.5;
}

}  // namespace

LayeredFields generate_layered(int nx, int ny, int nz, const LayeredFieldSpec& s) {
  Rng rng{s.seed * 0x2545f4914f6cdd1dull + 12345};
  const std::size_t plane = static_cast<std::size_t>(nx) * ny, n = plane * nz;
  std::vector<double> phi(n), perm(n);
  const double rho = std::clamp(s.layer_correlation, 0.0, 0.999), rest = std::sqrt(1 - rho * rho);
  std::vector<double> prev_a, prev_b;
  double mean = 0;
  for (int k = 0; k < nz; ++k) {
    auto a = layer_field(rng, nx, ny, s.correlation_length);
    auto b = layer_field(rng, nx, ny, s.correlation_length);
    // layer means wander from layer to layer: sands and shalier streaks
    mean = k == 0 ? rng.normal() : rho * mean + rest * rng.normal();
    for (std::size_t c = 0; c < plane; ++c) {
      if (k > 0) {
        a[c] = rho * prev_a[c] + rest * a[c];
        b[c] = rho * prev_b[c] + rest * b[c];
      }
      phi[k * plane + c] = a[c] + 0.8 * mean;
      // permeability follows porosity, with its own scatter
      perm[k * plane + c] = 0.85 * (a[c] + 0.8 * mean) + 0.5 * b[c];
    }
    prev_a = std::move(a);
    prev_b = std::move(b);
  }
  to_unit(phi);
  to_unit(perm);
  LayeredFields f;
  f.poro.resize(n);
  f.kh.resize(n);
  f.kv.resize(n);
  const double lkh = std::log(s.kh_min), dkh = std::log(s.kh_max) - lkh;
  const double lkv = std::log(s.kv_min), dkv = std::log(s.kv_max) - lkv;
  for (std::size_t c = 0; c < n; ++c) {
    f.poro[c] = s.poro_min + (s.poro_max - s.poro_min) * phi[c];
    f.kh[c] = std::exp(lkh + dkh * perm[c]);
    f.kv[c] = std::exp(lkv + dkv * perm[c]);
  }
  return f;
}

}  // namespace poreflow
