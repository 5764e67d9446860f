#include "core/kernels/amg.hpp"

#include "core/base/error.hpp"
#include "core/kernels/control.hpp"

namespace poreflow {

AmgKernels Backend::amg() { return AmgKernels(*this, amg_impl()); }

namespace {
void check_ints(const Buffer* b, std::size_t n, const char* what) {
  if (!b) throw BackendError(std::string(what) + ": missing");
  check_range(*b, n * sizeof(int), 0, what);
}
}  // namespace

void AmgKernels::p_values(const AmgPValuesArgs& a) {
  check_precision(be_, a.prec, "amg p_values");
  check_ints(a.p_ptr, a.rows + 1, "amg p_values p_ptr");
  check_ints(a.diag_pos, a.rows, "amg p_values diag_pos");
  check_ints(a.weak_ptr, a.rows + 1, "amg p_values weak_ptr");
  for (const Buffer* b : {a.weak, a.src_ptr, a.src, a.own})
    if (!b) throw BackendError("amg p_values: a plan array is missing");
  check_values(a.a, a.a_values, a.prec, "amg p_values a");
  check_values(a.p, a.p_values, a.prec, "amg p_values p");
  if (a.rows == 0) return;
  impl_.p_values(a);
}

void AmgKernels::galerkin(const AmgGalerkinArgs& a) {
  check_precision(be_, a.prec, "amg galerkin");
  check_ints(a.r_ptr, a.rows + 1, "amg galerkin r_ptr");
  check_ints(a.c_ptr, a.rows + 1, "amg galerkin c_ptr");
  for (const Buffer* b : {a.r_col, a.r_val, a.a_ptr, a.a_col, a.a_val, a.p_ptr, a.p_col, a.p_val, a.c_col})
    if (!b) throw BackendError("amg galerkin: a matrix array is missing");
  check_values(a.c_val, a.c_values, a.prec, "amg galerkin c_val");
  if (a.rows == 0) return;
  impl_.galerkin(a);
}

void AmgKernels::smooth(const AmgSmoothArgs& a) {
  check_precision(be_, a.prec, "amg smooth");
  for (const Buffer* b : {a.r, a.dinv, static_cast<const Buffer*>(a.d), static_cast<const Buffer*>(a.x)})
    check_values(b, a.n, a.prec, "amg smooth");
  if (a.guard) check_control_block(a.guard, "amg smooth guard");
  if (a.n == 0) return;
  impl_.smooth(a);
}

}  // namespace poreflow
