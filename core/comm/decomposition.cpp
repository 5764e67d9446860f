#include "core/comm/decomposition.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

#include "core/base/error.hpp"

namespace poreflow {
namespace {

// parts + 1 boundaries splitting `weight` (one entry per plane) into parts of about equal sums,
// each at least min_width planes wide, at boundaries ok allows (empty: any); empty when none fits
std::vector<long> balanced_cuts(const std::vector<long>& weight, int parts, long min_width, const std::vector<char>& ok) {
  const long n = static_cast<long>(weight.size());
  std::vector<long> prefix(weight.size() + 1, 0);
  std::partial_sum(weight.begin(), weight.end(), prefix.begin() + 1);
  const double total = static_cast<double>(prefix.back());
  std::vector<long> cut(static_cast<std::size_t>(parts) + 1, 0);
  cut.back() = n;
  for (int m = 1; m < parts; ++m) {
    const double want = total * m / parts;
    // the boundary whose prefix is nearest the target, keeping room for the parts on both sides
    const long lo = cut[static_cast<std::size_t>(m) - 1] + min_width, hi = n - static_cast<long>(parts - m) * min_width;
    long best = -1;
    double err = std::numeric_limits<double>::infinity();
    for (long c = lo; c <= hi; ++c) {
      if (!ok.empty() && !ok[static_cast<std::size_t>(c)]) continue;
      const double e = std::abs(static_cast<double>(prefix[static_cast<std::size_t>(c)]) - want);
      if (e < err) err = e, best = c;
    }
    if (best < 0) return {};
    cut[static_cast<std::size_t>(m)] = best;
  }
  return cut;
}

}  // namespace

std::array<int, 3> Decomposition::coords(int rank) const {
  return {rank % parts[0], (rank / parts[0]) % parts[1], rank / (parts[0] * parts[1])};
}

int Decomposition::rank_at(std::array<int, 3> c) const { return c[0] + parts[0] * (c[1] + parts[1] * c[2]); }

RankBox Decomposition::box(int rank) const {
  const auto c = coords(rank);
  RankBox b;
  long* o[3] = {&b.i0, &b.j0, &b.k0};
  long* n[3] = {&b.nx, &b.ny, &b.nz};
  for (int d = 0; d < 3; ++d) {
    *o[d] = cuts[d][static_cast<std::size_t>(c[d])];
    *n[d] = cuts[d][static_cast<std::size_t>(c[d]) + 1] - *o[d];
  }
  return b;
}

int Decomposition::neighbour(int rank, int dir, int side) const {
  auto c = coords(rank);
  c[dir] += side ? 1 : -1;
  if (c[dir] < 0 || c[dir] >= parts[dir]) return -1;
  return rank_at(c);
}

int Decomposition::owner(long i, long j, long k) const {
  const long x[3] = {i, j, k};
  std::array<int, 3> c{};
  for (int d = 0; d < 3; ++d) {
    if (x[d] < 0 || x[d] >= grid[d]) return -1;
    c[d] = static_cast<int>(std::upper_bound(cuts[d].begin(), cuts[d].end(), x[d]) - cuts[d].begin()) - 1;
  }
  return rank_at(c);
}

std::string Decomposition::describe() const {
  const auto [lo, hi] = std::minmax_element(active.begin(), active.end());
  const double mean = static_cast<double>(std::accumulate(active.begin(), active.end(), 0L)) / size();
  char imb[32];
  std::snprintf(imb, sizeof imb, "%.2f", mean > 0 ? static_cast<double>(*hi) / mean : 1.0);
  return std::to_string(parts[0]) + " x " + std::to_string(parts[1]) + " x " + std::to_string(parts[2]) +
         " processes; active cells per process " + std::to_string(*lo) + " .. " + std::to_string(*hi) + " (imbalance " + imb + ")";
}

Decomposition decompose(long gx, long gy, long gz, int processes, const std::vector<char>& active, long min_width) {
  DecomposeOptions o;
  o.active = active;
  o.min_width = min_width;
  return decompose(gx, gy, gz, processes, o);
}

Decomposition decompose(long gx, long gy, long gz, int processes, const DecomposeOptions& o) {
  const auto& active = o.active;
  const long min_width = o.min_width;
  for (int d = 0; d < 2; ++d)
    if (!o.cut_ok[d].empty() && static_cast<long>(o.cut_ok[d].size()) != (d ? gy : gx) + 1)
      throw ConfigError("decomposition: " + std::to_string(o.cut_ok[d].size()) + " cut flags along " + "xy"[d] + " for " +
                        std::to_string(d ? gy : gx) + " planes");
  if (gx <= 0 || gy <= 0 || gz <= 0) throw ConfigError("decomposition: an empty grid");
  if (processes < 1) throw ConfigError("decomposition: " + std::to_string(processes) + " processes");
  const std::size_t cells = static_cast<std::size_t>(gx * gy * gz);
  if (!active.empty() && active.size() != cells)
    throw ConfigError("decomposition: " + std::to_string(active.size()) + " activity flags for " + std::to_string(cells) + " cells");
  auto on = [&](long i, long j, long k) { return active.empty() || active[static_cast<std::size_t>(i + gx * (j + gy * k))]; };
  std::vector<long> wx(static_cast<std::size_t>(gx), 0), wy(static_cast<std::size_t>(gy), 0);
  for (long k = 0; k < gz; ++k)
    for (long j = 0; j < gy; ++j)
      for (long i = 0; i < gx; ++i)
        if (on(i, j, k)) ++wx[static_cast<std::size_t>(i)], ++wy[static_cast<std::size_t>(j)];
  // a grid without active cells still splits, by its cells
  if (std::all_of(wx.begin(), wx.end(), [](long w) { return w == 0; })) wx.assign(wx.size(), 1), wy.assign(wy.size(), 1);

  Decomposition best;
  long best_max = -1, best_surface = 0;
  for (int px = 1; px <= processes; ++px) {
    if (processes % px) continue;
    const int py = processes / px;
    if (px * min_width > gx || py * min_width > gy) continue;
    Decomposition d;
    d.grid = {gx, gy, gz};
    d.parts = {px, py, 1};
    d.cuts[0] = balanced_cuts(wx, px, min_width, o.cut_ok[0]);
    d.cuts[1] = balanced_cuts(wy, py, min_width, o.cut_ok[1]);
    if (d.cuts[0].empty() || d.cuts[1].empty()) continue;
    d.cuts[2] = {0, gz};
    d.active.assign(static_cast<std::size_t>(processes), 0);
    for (long k = 0; k < gz; ++k)
      for (long j = 0; j < gy; ++j)
        for (long i = 0; i < gx; ++i)
          if (on(i, j, k)) ++d.active[static_cast<std::size_t>(d.owner(i, j, k))];
    const long mx = *std::max_element(d.active.begin(), d.active.end());
    const long surface = (px - 1) * gy * gz + (py - 1) * gx * gz;
    const bool better = best_max < 0 || mx * 100 < best_max * 98 || (mx * 98 <= best_max * 100 && surface < best_surface);
    if (better) best = d, best_max = mx, best_surface = surface;
  }
  if (best_max < 0)
    throw ConfigError("decomposition: " + std::to_string(processes) + " processes for a grid of " + std::to_string(gx) + " x " +
                      std::to_string(gy) + " columns: no split into px x py boxes with at least " + std::to_string(min_width) +
                      " cells across each" + (o.constraint.empty() ? std::string() : " that " + o.constraint) +
                      " (fewer processes, or a wider grid)");
  return best;
}

Decomposition decompose_layers(long gx, long gy, long gz, int processes, long min_width, bool even) {
  if (gx <= 0 || gy <= 0 || gz <= 0) throw ConfigError("decomposition: an empty grid");
  if (processes < 1) throw ConfigError("decomposition: " + std::to_string(processes) + " processes");
  std::vector<char> ok(static_cast<std::size_t>(gz) + 1, 1);
  if (even)
    for (long c = 1; c < gz; c += 2) ok[static_cast<std::size_t>(c)] = 0;
  Decomposition d;
  d.grid = {gx, gy, gz};
  d.parts = {1, 1, processes};
  d.cuts[0] = {0, gx};
  d.cuts[1] = {0, gy};
  d.cuts[2] = balanced_cuts(std::vector<long>(static_cast<std::size_t>(gz), 1), processes, std::max(min_width, 1L), ok);
  if (d.cuts[2].empty())
    throw ConfigError("a grid of " + std::to_string(gz) + " layers does not split into " + std::to_string(processes) +
                      " slabs of at least " + std::to_string(std::max(min_width, 1L)) + " layers each" +
                      (even ? " with boundaries at even layers" : "") + " (use fewer processes or a larger grid)");
  for (int r = 0; r < processes; ++r) d.active.push_back(d.box(r).cells());
  return d;
}

}  // namespace poreflow
