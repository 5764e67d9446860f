#include "core/kernels/sor3d.hpp"

#include <algorithm>
#include <string>

#include "core/base/enum_names.hpp"
#include "core/base/error.hpp"
#include "core/physics/sor3d.h"

namespace poreflow {
namespace {
constexpr EnumNames<SorDesign, 3> kDesigns{
    {{"simple", SorDesign::Simple}, {"tiled", SorDesign::Tiled}, {"zline", SorDesign::Zline}}};
}

const char* to_string(SorDesign d) { return enum_name(d, kDesigns); }
SorDesign parse_sor_design(std::string_view s) { return parse_enum(s, kDesigns, "SOR design"); }

Sor3DKernels Backend::sor3d() { return Sor3DKernels(*this, sor3d_impl()); }

std::size_t sor3d_coef_values(const Box3& box) {
  return static_cast<std::size_t>(PF_SOR_NCOEF) * 2 * static_cast<std::size_t>(phys::pf_rb_m(box.view()));
}

long sor3d_kchunk(long nz, long blocks_xy, int threads, int units) {
  const long want = static_cast<long>(std::max(units, 1)) * std::max(1, 2048 / std::max(threads, 1));
  const long chunks = std::clamp<long>((want + blocks_xy - 1) / std::max<long>(blocks_xy, 1), 1, nz);
  return (nz + chunks - 1) / chunks;
}

int sor3d_tile_pitch(int bx) {
  int pitch = (bx + 2 + 15) / 16 * 16;
  if (pitch % 32 == 0) pitch += 16;  // the two rows a warp of a 16-wide tile reads fall on different banks
  return pitch;
}

std::size_t sor3d_tile_bytes(int bx, int by, std::size_t value_bytes) {
  return 3 * 2 * static_cast<std::size_t>(by + 2) * static_cast<std::size_t>(sor3d_tile_pitch(bx)) * value_bytes;
}

void Sor3DKernels::check(const Sor3DArgs& a) const {
  check_precision(be_, a.prec, "sor3d");
  check_box(a.box, a.p, a.prec, "sor3d p");
  if (a.box.halo < 1) throw BackendError("sor3d: p's box needs a halo of at least 1");
  check_values(a.coef, sor3d_coef_values(a.box), a.prec, "sor3d coef");
  if (a.coef == a.p) throw BackendError("sor3d: coef must not be p");
  if (!(a.omega > 0 && a.omega < 2))
    throw ConfigError("sor3d: the relaxation factor " + std::to_string(a.omega) + " is outside (0, 2)");
  if (a.check_every < 1)
    throw ConfigError("sor3d: check_every = " + std::to_string(a.check_every) + " must be at least 1");
  check_box_shape(a.shape, "sor3d");
  if (a.shape.threads() % 32 != 0)
    throw ConfigError("sor3d: the launch shape " + to_string(a.shape) + " must have a multiple of 32 threads");
  if (a.design == SorDesign::Tiled && a.shape.kind != BoxLaunch::March)
    throw ConfigError("sor3d: the tiled design needs a march:BXxBY shape, not " + to_string(a.shape));
  // the tiled kernel is compiled for at most 512 threads a block (its registers in double)
  if (a.design == SorDesign::Tiled && a.shape.threads() > 512)
    throw ConfigError("sor3d: the tiled design takes at most 512 threads a block, not " + to_string(a.shape));
  if (a.zline_lanes != 0 && a.zline_lanes != 1 && a.zline_lanes != 32)
    throw ConfigError("sor3d: zline_lanes = " + std::to_string(a.zline_lanes) + " must be 0 (auto), 1 or 32");
  // zline: a thread holds a chunk of its column in registers
  if (a.design == SorDesign::Zline && a.shape.threads() > 256)
    throw ConfigError("sor3d: the zline design takes at most 256 threads a block, not " + to_string(a.shape));
  check_control_block(a.ctrl, "sor3d ctrl");
  if (a.design == SorDesign::Zline) {
    check_values(a.scratch, 3 * a.box.extent(), a.prec, "sor3d scratch");
    if (a.scratch == a.p || a.scratch == a.coef) throw BackendError("sor3d: scratch must be a buffer of its own");
  }
}

void Sor3DKernels::reset(const Sor3DArgs& a) {
  check_control_block(a.ctrl, "sor3d ctrl");
  be_.control().reset(*a.ctrl);
}

void Sor3DKernels::iterate(const Sor3DArgs& a, long first, long count) {
  check(a);
  if (first < 0) throw BackendError("sor3d: negative first iteration");
  if (count <= 0) return;
  impl_.iterate(a, first, count);
}

void Sor3DImpl::vendor_spmv(const Sor3DArgs&, const Buffer&, Buffer&) {
  throw BackendError("sor3d: no vendor sparse product on this backend");
}

double Sor3DImpl::vendor_bytes(const Sor3DArgs&) const { return 0; }

void Sor3DKernels::vendor_spmv(const Sor3DArgs& a, const Buffer& x, Buffer& y) {
  check_precision(be_, a.prec, "sor3d vendor_spmv");
  check_values(a.coef, sor3d_coef_values(a.box), a.prec, "sor3d vendor_spmv coef");
  check_values(&x, static_cast<std::size_t>(a.box.cells()), a.prec, "sor3d vendor_spmv x");
  check_values(&y, static_cast<std::size_t>(a.box.cells()), a.prec, "sor3d vendor_spmv y");
  if (&x == &y) throw BackendError("sor3d vendor_spmv: x and y must differ");
  impl_.vendor_spmv(a, x, y);
}

FusedStatus Sor3DKernels::status(const Sor3DArgs& a, long next) {
  check_control_block(a.ctrl, "sor3d ctrl");
  return read_fused_status(be_, *a.ctrl, a.prec, a.threshold, a.check_every, next);
}

}  // namespace poreflow
