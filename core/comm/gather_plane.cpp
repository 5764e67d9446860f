#include "core/comm/gather_plane.hpp"

#include <array>
#include <string>

#include "core/base/error.hpp"

namespace poreflow {

namespace {

struct Plane {
  int u = 0, v = 0;  // the remaining axes, u faster
};

Plane plane_axes(int axis) {
  if (axis == 0) return {1, 2};
  if (axis == 1) return {0, 2};
  return {0, 1};
}

std::array<long, 3> lo(const RankBox& b) { return {b.i0, b.j0, b.k0}; }
std::array<long, 3> size(const RankBox& b) { return {b.nx, b.ny, b.nz}; }

bool crosses(const RankBox& b, int axis, long at) { return at >= lo(b)[axis] && at < lo(b)[axis] + size(b)[axis]; }

}  // namespace

std::vector<double> plane_of(const std::array<long, 3>& n, int axis, long at, const std::vector<double>& box) {
  if (axis < 0 || axis > 2 || at < 0 || at >= n[axis] || static_cast<long>(box.size()) != n[0] * n[1] * n[2])
    throw ConfigError("plane_of: plane " + std::to_string(at) + " across axis " + std::to_string(axis) + " of a box of " +
                      std::to_string(box.size()) + " values");
  const Plane p = plane_axes(axis);
  std::vector<double> out;
  out.reserve(static_cast<std::size_t>(n[p.u] * n[p.v]));
  std::array<long, 3> c{0, 0, 0};
  c[axis] = at;
  for (c[p.v] = 0; c[p.v] < n[p.v]; ++c[p.v])
    for (c[p.u] = 0; c[p.u] < n[p.u]; ++c[p.u]) out.push_back(box[static_cast<std::size_t>(c[0] + n[0] * (c[1] + n[1] * c[2]))]);
  return out;
}

std::vector<double> gather_plane(const Communicator& comm, const Decomposition& dec, int axis, long at,
                                 const std::vector<double>& mine) {
  if (axis < 0 || axis > 2 || at < 0 || at >= dec.grid[axis])
    throw ConfigError("gather_plane: plane " + std::to_string(at) + " across axis " + std::to_string(axis) + " is outside the grid");
  const Plane p = plane_axes(axis);
  const RankBox b = dec.box(comm.rank());
  if (static_cast<long>(mine.size()) != b.cells())
    throw ConfigError("gather_plane: " + std::to_string(mine.size()) + " values for a box of " + std::to_string(b.cells()) + " cells");
  // this process's cells of the plane, u fastest
  const std::vector<double> part = crosses(b, axis, at) ? plane_of(size(b), axis, at - lo(b)[axis], mine) : std::vector<double>{};
  const int procs = comm.size();
  std::vector<std::size_t> counts(static_cast<std::size_t>(procs), 0);
  std::size_t all = 0;
  for (int r = 0; r < procs; ++r) {
    const RankBox q = dec.box(r);
    if (crosses(q, axis, at)) counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(size(q)[p.u] * size(q)[p.v]) * sizeof(double);
    all += counts[static_cast<std::size_t>(r)] / sizeof(double);
  }
  const bool root = comm.rank() == 0;
  std::vector<double> got(root ? all : 0);
  comm.gather(part.data(), part.size() * sizeof(double), got.data(), counts, 0);
  if (!root) return {};
  const long nu = dec.grid[p.u];
  std::vector<double> out(static_cast<std::size_t>(nu * dec.grid[p.v]), 0.0);
  std::size_t k = 0;
  for (int r = 0; r < procs; ++r) {
    if (counts[static_cast<std::size_t>(r)] == 0) continue;
    const RankBox q = dec.box(r);
    for (long v = 0; v < size(q)[p.v]; ++v)
      for (long u = 0; u < size(q)[p.u]; ++u)
        out[static_cast<std::size_t>((lo(q)[p.u] + u) + nu * (lo(q)[p.v] + v))] = got[k++];
  }
  return out;
}

}  // namespace poreflow
