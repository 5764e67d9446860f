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
    Args k(ctx_, ctx_.kernel("control", a.prec, b, "cv_decide"), a.prec);
    const auto& r = a.rule;
    k.buf(a.ctrl).set(cl_long(a.it)).set(cl_int(a.slot)).real(r.abs_tol).real(r.rel_tol).set(cl_int(r.flags));
    k.set(cl_long(r.cycle)).set(cl_long(r.max_iterations));
    ctx_.launch(k.kernel(), b, b);
  }
 private:
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<ControlImpl> make_family(ClContext& ctx, FamilyTag<ControlImpl>) { return std::make_shared<ClControl>(ctx); }

}  // namespace poreflow::ocl
