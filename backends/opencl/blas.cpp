// blas on the opencl backend (kernels_cl/blas.cl).
#include "backends/opencl/families.hpp"
#include "core/kernels/blas.hpp"

namespace poreflow::ocl {
namespace {

class ClBlas final : public BlasImpl {
 public:
  explicit ClBlas(ClContext& ctx) : ctx_(ctx) {}
  void axpy(const AxpyArgs& a) override {
    Args k(ctx_, ctx_.kernel("blas", a.prec, ctx_.fast_block(), "axpy"), a.prec);
    k.set(cl_ulong(a.n)).real(a.alpha).buf(a.x).buf(a.y).buf_or_null(a.guard);
    ctx_.launch_points(k.kernel(), a.n);
  }

 private:
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<BlasImpl> make_family(ClContext& ctx, FamilyTag<BlasImpl>) { return std::make_shared<ClBlas>(ctx); }

}  // namespace poreflow::ocl
