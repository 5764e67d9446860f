// The control family on the cuda backend (kernels_cu/control.cu).
#include "backends/cuda/families.hpp"
#include "core/kernels/control.hpp"
#include "kernels_cu/control.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaControl final : public ControlImpl {
 public:
  explicit CudaControl(CudaContext& ctx) : ctx_(ctx) {}
  void decide(const ControlDecideArgs& a) override {
    ctx_.activate();
    auto* w = dptr<unsigned long long>(a.ctrl);
    const auto& r = a.rule;
    if (a.prec == Precision::Float)
      cu::launch_cv_decide<float>(w, a.it, a.slot, float(r.abs_tol), float(r.rel_tol), r.flags, r.cycle, r.max_iterations,
                                  ctx_.stream());
    else
      cu::launch_cv_decide<double>(w, a.it, a.slot, r.abs_tol, r.rel_tol, r.flags, r.cycle, r.max_iterations, ctx_.stream());
    PF_CHECK_LAUNCH("control decide");
  }
 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<ControlImpl> make_family(CudaContext& ctx, FamilyTag<ControlImpl>) { return std::make_shared<CudaControl>(ctx); }

}  // namespace poreflow::cuda_detail
