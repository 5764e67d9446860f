// blas on the opencl backend (kernels_cl/blas.cl).
#include "backends/opencl/families.hpp"
#include "core/kernels/blas.hpp"

namespace poreflow::ocl {
namespace {

class ClBlas final : public BlasImpl {
 public:
  explicit ClBlas(ClContext& ctx) : ctx_(ctx) {}
  void axpy(const AxpyArgs& a) override {
    ClKernel& k = ctx_.kernel("blas", a.prec, ctx_.fast_block(), "axpy");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, a.n);
  }

 private:
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<BlasImpl> make_family(ClContext& ctx, FamilyTag<BlasImpl>) { return std::make_shared<ClBlas>(ctx); }

}  // namespace poreflow::ocl
