#include "core/models/spe10_fields.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

#include "core/base/error.hpp"

// the values must not depend on whether a compiler fuses a * b + c: CMake compiles this file with
// -ffp-contract=off (GCC ignores the standard pragma; Clang honours it)
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#endif

namespace poreflow {
namespace {

// splitmix64, the stream of impes3d_fields
struct Rng {
  std::uint64_t s;
  std::uint64_t next() {
    std::uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1), exact
  // a standard deviate as the sum of 12 uniforms (Irwin-Hall: mean 6, variance 1): additions only,
  // no log or cos whose last bit could differ between libraries; the smoothing below makes the
  // fields Gaussian anyway
  double normal() {
    double sum = 0;
    for (int i = 0; i < 12; ++i) sum += uniform();
    return sum - 6;
  }
  int below(int n) { return static_cast<int>(uniform() * n); }
};

// 10^x by 2^(x log2 10): the integer part exactly (ldexp), 2^f of the fraction by its Taylor series
// in f ln 2 < 0.7 (17 terms, below double's rounding): products and sums only
double pow10_exact(double x) {
  const double y = x * 3.321928094887362347870319429489390;  // log2(10)
  const double n = std::floor(y);
  const double t = (y - n) * 0.693147180559945309417232121458177;  // ln 2
  double p = 1;
  for (int k = 17; k >= 1; --k) p = 1 + p * t / k;
  return std::ldexp(p, static_cast<int>(n));
}

// a moving average of half-width r along one direction of an nx x ny plane, mirrored at the ends
void smooth(std::vector<double>& f, int nx, int ny, bool along_x, int r) {
  const int n = along_x ? nx : ny, lines = along_x ? ny : nx;
  if (r <= 0 || n <= 1) return;
  std::vector<double> line(n);
  for (int c = 0; c < lines; ++c) {
    auto at = [&](int x) -> double& {
      return along_x ? f[static_cast<std::size_t>(c) * nx + x] : f[static_cast<std::size_t>(x) * nx + c];
    };
    for (int x = 0; x < n; ++x) line[x] = at(x);
    for (int x = 0; x < n; ++x) {
      double s = 0;
      for (int d = -r; d <= r; ++d) {
        int y = x + d;
        while (y < 0 || y >= n) y = y < 0 ? -y : 2 * (n - 1) - y;
        s += line[y];
      }
      at(x) = s / (2 * r + 1);
    }
  }
}

// a standard field of one layer correlated over about rx cells along x and ry along y (three box
// passes each way, close to a Gaussian kernel), rescaled to mean 0 and deviation 1
std::vector<double> layer_field(Rng& rng, int nx, int ny, int rx, int ry) {
  std::vector<double> f(static_cast<std::size_t>(nx) * ny);
  for (auto& x : f) x = rng.normal();
  for (int pass = 0; pass < 3; ++pass) {
    smooth(f, nx, ny, true, rx);
    smooth(f, nx, ny, false, ry);
  }
  double m = 0, v = 0;
  for (double x : f) m += x;
  m /= double(f.size());
  for (double x : f) v += (x - m) * (x - m);
  const double sd = f.size() > 1 && v > 0 ? std::sqrt(v / double(f.size())) : 1.0;
  for (auto& x : f) x = (x - m) / sd;
  return f;
}

// log10 of permeability (mD) bounds: 1e-3 .. 2e4 mD, SPE10 model 2's span
constexpr double kLogMin = -3.0, kLogMax = 4.3;

}  // namespace

Spe10Fields generate_spe10_like(int nx, int ny, int nz, std::uint64_t seed) {
  if (nx < 1 || ny < 1 || nz < 1 || nx > 4096 || ny > 4096 || nz > 4096)
    throw ConfigError("generate_spe10_like: " + std::to_string(nx) + " x " + std::to_string(ny) + " x " + std::to_string(nz) +
                      " cells: every side must be in [1, 4096]");
  Rng rng{seed * 0x2545f4914f6cdd1dull + 0x5bd1e995ull};
  const std::size_t plane = static_cast<std::size_t>(nx) * ny, n = plane * nz;
  Spe10Fields f;
  f.nx = nx;
  f.ny = ny;
  f.nz = nz;
  f.tarbert_layers = std::clamp((nz * 35 + 42) / 85, 0, nz);  // 35 of SPE10's 85
  std::vector<double> logk(n), scatter(n);
  // correlation lengths scale with the grid, SPE10's own at 60 x 220
  const int rx = std::max(1, nx / 20), ry = std::max(1, ny / 22);

  // Tarbert: correlated log-normal layers, the field and the layer means carried from layer to layer
  std::vector<double> prev;
  double mean = 0;
  for (int k = 0; k < f.tarbert_layers; ++k) {
    auto a = layer_field(rng, nx, ny, rx, ry);
    mean = k == 0 ? rng.normal() : 0.8 * mean + 0.6 * rng.normal();
    if (k > 0)
      for (std::size_t c = 0; c < plane; ++c) a[c] = 0.6 * prev[c] + 0.8 * a[c];  // 0.6^2 + 0.8^2 = 1
    for (std::size_t c = 0; c < plane; ++c) logk[k * plane + c] = 1.2 + 0.5 * mean + 0.8 * a[c];
    prev = std::move(a);
  }

  // Upper Ness: a floodplain of short correlation ...
  const int un0 = f.tarbert_layers, un = nz - un0;
  for (int k = un0; k < nz; ++k) {
    const auto b = layer_field(rng, nx, ny, std::max(1, rx / 2), std::max(1, ry / 2));
    for (std::size_t c = 0; c < plane; ++c) logk[k * plane + c] = -1.2 + 0.6 * b[c];
  }
  // ... cut by channels along y until they fill about 45% of it: a centreline wandering in x (an
  // integrated AR(1) slope, reflected at the sides), a few cells wide, narrower towards its base
  if (un > 0) {
    std::vector<char> chan(plane * un, 0);
    std::size_t filled = 0;
    const std::size_t target = static_cast<std::size_t>(0.45 * double(plane * un));
    std::vector<double> xc(ny);
    for (int c = 0; c < 100000 && filled < target; ++c) {
      const int top = un0 + rng.below(un), thick = 2 + rng.below(4);
      const double width = std::min(double(nx), 3 + 6 * rng.uniform());
      const double level = 2.5 + 0.25 * rng.normal();  // the channel's own mean log10 k
      double x = nx * rng.uniform(), slope = 0;
      for (int j = 0; j < ny; ++j) {
        slope = 0.9 * slope + 0.12 * rng.normal();
        x += slope;
        if (x < 0) x = -x, slope = -slope;
        if (x > nx) x = 2.0 * nx - x, slope = -slope;
        xc[j] = x;
      }
      const auto g = layer_field(rng, nx, ny, 1, std::max(1, ry / 2));
      for (int d = 0; d < thick && top + d < nz; ++d) {
        const double half = 0.5 * width * (1 - 0.5 * d / thick);
        const int k = top + d;
        for (int j = 0; j < ny; ++j)
          for (int i = 0; i < nx; ++i) {
            const double dx = i + 0.5 - xc[j];
            if (dx > half || dx < -half) continue;
            const std::size_t cell = static_cast<std::size_t>(j) * nx + i, at = (k - un0) * plane + cell;
            if (!chan[at]) ++filled;
            chan[at] = 1;
            logk[k * plane + cell] = level + 0.5 * g[cell];
          }
      }
    }
    f.channel_fraction = double(filled) / double(plane * un);
  }

  for (auto& s : scatter) s = rng.normal();
  f.kx.resize(n);
  f.ky.resize(n);
  f.kz.resize(n);
  f.poro.resize(n);
  for (std::size_t c = 0; c < n; ++c) {
    const double lk = std::clamp(logk[c], kLogMin, kLogMax);
    f.kx[c] = pow10_exact(lk);
    f.ky[c] = f.kx[c];
    f.kz[c] = 0.1 * f.kx[c];
    // porosity follows log10 k (about 0.06 in the shales to 0.3 in the best sands), with scatter
    f.poro[c] = std::clamp(0.06 + 0.042 * (lk + 1.2) + 0.015 * scatter[c], 0.01, 0.42);
  }
  return f;
}

FieldStats field_stats(const std::vector<double>& v) {
  FieldStats s;
  if (v.empty()) return s;
  std::vector<double> a(v);
  std::sort(a.begin(), a.end());
  auto at = [&](double q) { return a[std::min(a.size() - 1, static_cast<std::size_t>(q * double(a.size())))]; };
  s.min = a.front();
  s.max = a.back();
  s.p01 = at(0.01);
  s.p10 = at(0.10);
  s.p50 = at(0.50);
  s.p90 = at(0.90);
  s.p99 = at(0.99);
  double sum = 0, logs = 0;
  for (double x : a) sum += x, logs += x > 0 ? std::log(x) : 0;
  s.mean = sum / double(a.size());
  s.geo_mean = s.min > 0 ? std::exp(logs / double(a.size())) : 0;  // a summary for people, not part of the field
  return s;
}

std::uint64_t fingerprint(const Spe10Fields& f) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  auto eat = [&](const std::vector<double>& v) {
    for (double x : v) {
      std::uint64_t b;
      std::memcpy(&b, &x, sizeof b);
      for (int i = 0; i < 8; ++i) h = (h ^ ((b >> (8 * i)) & 0xff)) * 0x100000001b3ull;
    }
  };
  eat(f.kx);
  eat(f.ky);
  eat(f.kz);
  eat(f.poro);
  return h;
}

}  // namespace poreflow
