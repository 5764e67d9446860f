#include "core/kernels/bl1d.hpp"

#include <string>

#include "core/base/error.hpp"

namespace poreflow {

Bl1dKernels Backend::bl1d() { return Bl1dKernels(*this, bl1d_impl()); }

void Bl1dKernels::face_mobility(const BLFaceMobilityArgs& a) {
  check_precision(be_, a.prec, "bl1d face_mobility");
  if (a.n < 2) return;  // no faces
  check_values(a.s, a.n, a.prec, "bl1d face_mobility s");
  check_values(a.mface, a.n - 1, a.prec, "bl1d face_mobility mface");
  impl_.face_mobility(a);
}

void Bl1dKernels::face_velocity(const BLFaceVelocityArgs& a) {
  check_precision(be_, a.prec, "bl1d face_velocity");
  if (a.n < 2) return;
  check_values(a.p, a.n, a.prec, "bl1d face_velocity p");
  check_values(a.mface, a.n - 1, a.prec, "bl1d face_velocity mface");
  check_values(a.u, a.n - 1, a.prec, "bl1d face_velocity u");
  impl_.face_velocity(a);
}

void Bl1dKernels::saturation(const BLSaturationArgs& a) {
  check_precision(be_, a.prec, "bl1d saturation");
  if (a.n < 2) throw BackendError("bl1d saturation needs at least 2 points (n = " + std::to_string(a.n) + ")");
  check_values(a.s_old, a.n, a.prec, "bl1d saturation s_old");
  check_values(a.u, a.n - 1, a.prec, "bl1d saturation u");
  check_values(a.s_new, a.n, a.prec, "bl1d saturation s_new");
  if (a.s_old == a.s_new) throw BackendError("bl1d saturation: s_new must not be s_old");
  impl_.saturation(a);
}

void Bl1dKernels::pressure_system(const BLPressureSystemArgs& a) {
  check_precision(be_, a.prec, "bl1d pressure_system");
  if (a.n == 0) return;
  if (a.n >= 2) check_values(a.mface, a.n - 1, a.prec, "bl1d pressure_system mface");
  for (const Buffer* b : {a.a, a.b, a.c, a.d}) check_values(b, a.n, a.prec, "bl1d pressure_system system");
  impl_.pressure_system(a);
}

}  // namespace poreflow
