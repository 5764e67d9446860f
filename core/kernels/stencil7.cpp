#include "core/kernels/stencil7.hpp"

#include <cstdint>
#include <initializer_list>
#include <string>

#include "core/base/error.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/sor3d.hpp"

namespace poreflow {

namespace {

// the box, its halo, the block and the coefficient planes and mask of an operator
void check_operator(const Box3& box, int block, const Buffer* coef, const Buffer* active, Precision prec,
                    const char* what) {
  if (block != 1 && block != 2) throw BackendError(std::string(what) + ": blocks of " + std::to_string(block) + " (1 or 2)");
  check_box(box, coef, prec, what);
  if (box.halo < 1) throw BackendError(std::string(what) + ": the box needs a halo of at least 1 (" + box.describe() + ")");
  const std::size_t e = box.extent(), b2 = static_cast<std::size_t>(block * block);
  check_values(coef, 7 * b2 * e, prec, what, "coefficients");
  if (!active) throw BackendError(std::string(what) + ": missing mask");
  check_range(*active, e * sizeof(int), 0, what);
}

}  // namespace

Stencil7Kernels Backend::stencil7() { return Stencil7Kernels(*this, stencil7_impl()); }

void Stencil7Kernels::apply(const Stencil7ApplyArgs& a) {
  const char* w = a.b ? "stencil7 residual" : "stencil7 apply";
  check_precision(be_, a.prec, w);
  check_operator(a.box, a.block, a.coef, a.active, a.prec, w);
  const std::size_t n = static_cast<std::size_t>(a.block) * a.box.extent();
  check_values(a.x, n, a.prec, w, "x");
  check_values(a.y, n, a.prec, w, "y");
  if (a.b) check_values(a.b, n, a.prec, w, "b");
  for (const Buffer* in : {a.x, a.b, a.coef, a.active})
    if (in == a.y) throw BackendError(std::string(w) + ": y must not be one of the inputs");
  if (a.guard) check_control_block(a.guard, w);
  impl_.apply(a);
}

void Stencil7Kernels::chebyshev(const Stencil7ChebyshevArgs& a) {
  const char* w = "stencil7 chebyshev";
  check_precision(be_, a.prec, w);
  check_operator(a.box, 1, a.coef, a.active, a.prec, w);
  const std::size_t n = a.box.extent();
  check_values(a.dinv, n, a.prec, w, "inverse diagonal");
  check_values(a.b, n, a.prec, w, "b");
  const Buffer* x = a.start != 0 ? nullptr : a.x;  // from zero: x is not read
  if (x) check_values(x, n, a.prec, w, "x");
  check_values(a.d, n, a.prec, w, "direction");
  check_values(a.x_out, n, a.prec, w, "x_out");
  if (a.r && a.start == 0) throw BackendError(std::string(w) + ": a residual r is the step from zero's (start), not another's");
  if (a.r) check_values(a.r, n, a.prec, w, "r");
  for (const Buffer* in : {x, a.b, a.dinv, a.coef, a.active}) {
    if (in && in == a.x_out) throw BackendError(std::string(w) + ": x_out must not be one of the inputs");
    if (in && in == a.d) throw BackendError(std::string(w) + ": the direction must not be one of the inputs");
    if (in && in == a.r) throw BackendError(std::string(w) + ": r must not be one of the inputs");
  }
  if (a.d == a.x_out || (a.r && (a.r == a.d || a.r == a.x_out)))
    throw BackendError(std::string(w) + ": the direction, x_out and r must differ");
  if (a.guard) check_control_block(a.guard, w);
  impl_.chebyshev(a);
}

long Stencil7Kernels::invert(const Stencil7InvertArgs& a) {
  const char* w = "stencil7 invert";
  check_precision(be_, a.prec, w);
  check_operator(a.box, a.block, a.coef, a.active, a.prec, w);
  check_values(a.dinv, static_cast<std::size_t>(a.block * a.block) * a.box.extent(), a.prec, w, "inverse");
  if (!a.status) throw BackendError(std::string(w) + ": missing status word");
  check_range(*a.status, sizeof(std::uint64_t), 0, w);
  for (const Buffer* in : std::initializer_list<const Buffer*>{a.coef, a.active, a.status})
    if (in == a.dinv) throw BackendError(std::string(w) + ": the inverse must not be one of the inputs");
  impl_.invert(a);
  std::uint64_t v = 0;
  be_.download(*a.status, &v, sizeof v);  // waits: once per setup
  return v == PF_S7_NONE ? -1 : static_cast<long>(v);
}

void Stencil7Kernels::from_sor(const Stencil7FromSorArgs& a) {
  const char* w = "stencil7 from_sor";
  check_precision(be_, a.prec, w);
  if (a.box.halo < 1) throw BackendError(std::string(w) + ": the box needs a halo of at least 1");
  check_values(a.rb, sor3d_coef_values(a.box), a.prec, w, "sor coefficients");
  if (a.scale) check_values(a.scale, a.box.extent(), a.prec, w, "scale");
  check_values(a.coef, 7 * a.box.extent(), a.prec, w, "coefficients");
  check_values(a.b, a.box.extent(), a.prec, w, "right-hand side");
  if (a.box.cells() == 0) return;
  impl_.from_sor(a);
}

}  // namespace poreflow
