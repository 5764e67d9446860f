// laplace3d on the opencl backend (kernels_cl/laplace3d.cl), built per launch shape.
#include "backends/opencl/box3.hpp"
#include "backends/opencl/families.hpp"
#include "core/kernels/laplace3d.hpp"

namespace poreflow::ocl {
namespace {

class ClLaplace3D final : public Laplace3DImpl {
 public:
  explicit ClLaplace3D(ClContext& ctx) : ctx_(ctx) {}
  void apply(const Laplace3DApplyArgs& a) override {
    const BoxLaunchCl l = box_launch(a.in_box.nx, a.in_box.ny, a.in_box.nz, a.shape);
    ClKernel& k = ctx_.kernel("laplace3d", a.prec, l.threads, "lap7", l.defines);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, l.global, l.local);
  }

 private:
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<Laplace3DImpl> make_family(ClContext& ctx, FamilyTag<Laplace3DImpl>) { return std::make_shared<ClLaplace3D>(ctx); }

}  // namespace poreflow::ocl
