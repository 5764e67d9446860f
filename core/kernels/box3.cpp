#include "core/kernels/box3.hpp"

#include <algorithm>
#include <charconv>
#include <string>

#include "core/base/error.hpp"

namespace poreflow {

static_assert(sizeof(long) == 8, "pf_box3 holds 64-bit longs, as OpenCL C's long");

long box_blocks_z(long nz, const BoxShape& s) {
  const long per = s.kind == BoxLaunch::March ? kBoxMarchLayers : s.bz;
  return std::clamp<long>((nz + per - 1) / per, 1, 65535);
}

bool box_narrow_index(const pf_box3& b, const BoxShape& s) {
  if (s.wide_index) return false;
  const long h = b.halo, last = b.off + (b.nx + h - 1) + (b.ny + h - 1) * b.sy + (b.nz + h - 1) * b.sz;
  const long step = (s.kind == BoxLaunch::March ? 1 : s.bz) * b.sz;
  return last + step < (1L << 31);
}

Box3 Box3::standalone(long nx, long ny, long nz, long halo) {
  return inside(nx, ny, nz, halo, nx + 2 * halo, ny + 2 * halo, nz + 2 * halo, halo, halo, halo);
}

Box3 Box3::inside(long nx, long ny, long nz, long halo, long ax, long ay, long az, long i0, long j0, long k0) {
  Box3 b;
  b.nx = nx;
  b.ny = ny;
  b.nz = nz;
  b.halo = halo;
  b.sy = ax;
  b.sz = ax * ay;
  b.off = i0 + j0 * b.sy + k0 * b.sz;
  if (i0 - halo < 0 || j0 - halo < 0 || k0 - halo < 0 || i0 + nx + halo > ax || j0 + ny + halo > ay ||
      k0 + nz + halo > az)
    throw BackendError("Box3::inside: " + b.describe() + " with its halo does not fit in an array of " +
                       std::to_string(ax) + " x " + std::to_string(ay) + " x " + std::to_string(az));
  return b;
}

std::size_t Box3::extent() const {
  const long h = halo;
  return static_cast<std::size_t>(at(nx + h - 1, ny + h - 1, nz + h - 1) + 1);
}

std::string Box3::describe() const {
  return std::to_string(nx) + " x " + std::to_string(ny) + " x " + std::to_string(nz) + " cells, halo " +
         std::to_string(halo) + ", pitches " + std::to_string(sy) + "/" + std::to_string(sz) + ", offset " +
         std::to_string(off);
}

void check_box(const Box3& box, const Buffer* b, Precision prec, const char* what) {
  const long h = box.halo;
  auto fail = [&](const std::string& why) {
    throw BackendError(std::string(what) + ": box " + box.describe() + ": " + why);
  };
  if (box.nx < 1 || box.ny < 1 || box.nz < 1) fail("needs at least one cell in each direction");
  if (h < 0) fail("negative halo");
  if (box.sy < box.nx + 2 * h) fail("the j pitch is shorter than a row with its halo");
  if (box.sz < box.sy * (box.ny + 2 * h)) fail("the k pitch is shorter than a plane with its halo");
  if (box.at(-h, -h, -h) < 0) fail("the halo starts before the array");
  if (!b) throw BackendError(std::string(what) + ": missing buffer");
  check_values(b, box.extent(), prec, what);
}

namespace {

int parse_int(std::string_view s, std::string_view whole) {
  int v = 0;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc() || p != s.data() + s.size())
    throw ConfigError("launch shape '" + std::string(whole) + "': '" + std::string(s) + "' is not a number");
  return v;
}

}  // namespace

BoxShape parse_box_shape(std::string_view s) {
  const auto colon = s.find(':');
  if (colon == std::string_view::npos)
    throw ConfigError("launch shape '" + std::string(s) + "' is not march:BXxBY or 3d:BXxBYxBZ (e.g. march:32x8, 3d:8x8x8)");
  BoxShape shape;
  const auto kind = s.substr(0, colon);
  if (kind == "march") shape.kind = BoxLaunch::March;
  else if (kind == "3d") shape.kind = BoxLaunch::Blocks3D;
  else throw ConfigError("launch shape '" + std::string(s) + "': '" + std::string(kind) + "' is not march or 3d");
  int dims[3] = {1, 1, 1};
  int nd = 0;
  auto rest = s.substr(colon + 1);
  while (true) {
    const auto x = rest.find('x');
    if (nd == 3) throw ConfigError("launch shape '" + std::string(s) + "' has too many sizes");
    dims[nd++] = parse_int(rest.substr(0, x), s);
    if (x == std::string_view::npos) break;
    rest = rest.substr(x + 1);
  }
  if (nd != (shape.kind == BoxLaunch::March ? 2 : 3))
    throw ConfigError("launch shape '" + std::string(s) + "': march takes BXxBY, 3d takes BXxBYxBZ");
  shape.bx = dims[0];
  shape.by = dims[1];
  shape.bz = dims[2];
  check_box_shape(shape, "launch shape");
  return shape;
}

std::string to_string(const BoxShape& s) {
  std::string t = s.kind == BoxLaunch::March ? "march:" : "3d:";
  t += std::to_string(s.bx);
  t += 'x';
  t += std::to_string(s.by);
  if (s.kind == BoxLaunch::Blocks3D) {
    t += 'x';
    t += std::to_string(s.bz);
  }
  return t;
}

void check_box_shape(const BoxShape& s, const char* what) {
  if (s.bx < 1 || s.by < 1 || s.bz < 1 || s.threads() > 1024)
    throw ConfigError(std::string(what) + " " + to_string(s) + ": sides must be positive and the block at most 1024 threads");
}

}  // namespace poreflow
