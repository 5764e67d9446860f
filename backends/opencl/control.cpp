// The control family on the opencl backend (kernels_cl/control.cl).
#include "backends/opencl/families.hpp"
#include "core/kernels/control.hpp"

namespace poreflow::ocl {
namespace {

class ClControl final : public ControlImpl {
 public:
  explicit ClControl(ClContext& ctx) : ctx_(ctx) {}
  void decide(const ControlDecideArgs& a) override {
    const int b = ctx_.fast_block();
    ClKernel& k = ctx_.kernel("control", a.prec, b, "cv_decide");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, b, b);
  }
 private:
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<ControlImpl> make_family(ClContext& ctx, FamilyTag<ControlImpl>) { return std::make_shared<ClControl>(ctx); }

}  // namespace poreflow::ocl
