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

}  // namespace poreflow
