#include "core/kernels/blas.hpp"

#include "core/base/error.hpp"
#include "core/kernels/control.hpp"

namespace poreflow {

BlasKernels Backend::blas() { return BlasKernels(*this, blas_impl()); }

void BlasKernels::axpy(const AxpyArgs& a) {
  check_precision(be_, a.prec, "axpy");
  check_values(a.x, a.n, a.prec, "axpy x");
  check_values(a.y, a.n, a.prec, "axpy y");
  if (a.x == a.y) throw BackendError("axpy: x and y must be distinct buffers");
  if (a.guard) check_control_block(a.guard, "axpy guard");
  if (a.n == 0) return;
  impl_.axpy(a);
}

}  // namespace poreflow
