#include "core/kernels/halo3d.hpp"

#include <string>

#include "core/base/enum_names.hpp"
#include "core/base/error.hpp"

namespace poreflow {
namespace {
constexpr EnumNames<HaloMode, 6> kModes{{
    {"none", HaloMode::None},
    {"copy", HaloMode::Copy},
    {"mirror", HaloMode::Mirror},
    {"negate", HaloMode::Negate},
    {"value", HaloMode::Value},
    {"periodic", HaloMode::Periodic},
}};
}

const char* to_string(HaloMode m) { return enum_name(m, kModes); }
HaloMode parse_halo_mode(std::string_view s) { return parse_enum(s, kModes, "halo mode"); }

Halo3DKernels Backend::halo3d() { return Halo3DKernels(*this, halo3d_impl()); }

void Halo3DKernels::fill(const Halo3DFillArgs& a) {
  check_precision(be_, a.prec, "halo3d fill");
  check_box(a.box, a.field, a.prec, "halo3d fill");
  check_box_shape(a.shape, "halo3d fill");
  if (a.box.halo == 0) return;
  const long n[3] = {a.box.nx, a.box.ny, a.box.nz};
  for (int f = 0; f < 6; ++f) {
    const HaloMode m = a.face[f].mode;
    if ((m == HaloMode::Mirror || m == HaloMode::Negate || m == HaloMode::Periodic) && n[f / 2] < a.box.halo)
      throw BackendError(std::string("halo3d fill: mode ") + to_string(m) + " needs at least " +
                         std::to_string(a.box.halo) + " cells across (halo) in direction " + "xyz"[f / 2]);
  }
  for (int dir = 0; dir < 3; ++dir) impl_.fill_pass(a, dir);
}

std::size_t Halo3DPackArgs::face_values(const Box3& b, int dir) {
  long nu = 0, nv = 0;
  phys::pf_halo_extent(b.view(), dir, &nu, &nv);
  return static_cast<std::size_t>(b.halo * nu * nv);
}

void Halo3DKernels::pack(const Halo3DPackArgs& a) {
  const char* what = a.unpack ? "halo3d unpack" : "halo3d pack";
  check_precision(be_, a.prec, what);
  if (a.block != 1 && a.block != 2) throw BackendError(std::string(what) + ": " + std::to_string(a.block) + " values a cell (1 or 2)");
  check_box(a.box, a.field, a.prec, what);
  check_values(a.field, a.box.extent() * static_cast<std::size_t>(a.block), a.prec, what, "the field");
  check_box_shape(a.shape, what);
  if (a.dir < 0 || a.dir > 2) throw BackendError(std::string(what) + ": direction " + std::to_string(a.dir) + " (0, 1 or 2)");
  if (a.sides < 0 || a.sides > 3) throw BackendError(std::string(what) + ": sides " + std::to_string(a.sides) + " (bits 0 and 1)");
  if (a.box.halo == 0 || a.sides == 0) return;
  const long n[3] = {a.box.nx, a.box.ny, a.box.nz};
  if (n[a.dir] < a.box.halo)
    throw BackendError(std::string(what) + ": " + std::to_string(n[a.dir]) + " cells across in direction " + "xyz"[a.dir] +
                       ", fewer than the halo " + std::to_string(a.box.halo));
  check_values(a.buf, 2 * Halo3DPackArgs::face_values(a.box, a.dir) * static_cast<std::size_t>(a.block), a.prec, what,
               "the buffer");
  impl_.pack(a);
}

}  // namespace poreflow
