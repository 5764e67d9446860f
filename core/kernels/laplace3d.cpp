#include "core/kernels/laplace3d.hpp"

#include "core/base/error.hpp"

namespace poreflow {

Laplace3DKernels Backend::laplace3d() { return Laplace3DKernels(*this, laplace3d_impl()); }

void Laplace3DKernels::apply(const Laplace3DApplyArgs& a) {
  check_precision(be_, a.prec, "laplace3d apply");
  check_box(a.in_box, a.in, a.prec, "laplace3d apply in");
  check_box(a.out_box, a.out, a.prec, "laplace3d apply out");
  check_box_shape(a.shape, "laplace3d apply");
  if (a.in_box.halo < 1) throw BackendError("laplace3d apply: the input box needs a halo of at least 1");
  if (!a.in_box.same_cells(a.out_box))
    throw BackendError("laplace3d apply: the boxes differ (" + a.in_box.describe() + " and " + a.out_box.describe() + ")");
  if (a.in == a.out) throw BackendError("laplace3d apply: out must not be in");
  impl_.apply(a);
}

}  // namespace poreflow
