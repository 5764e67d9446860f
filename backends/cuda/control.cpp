// The control family on the cuda backend (kernels_cu/control.cu).
#include "backends/cuda/device_args.hpp"
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
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_cv_decide<T>, a.kernel_args(), ctx_.stream());
    });
    PF_CHECK_LAUNCH("control decide");
  }
 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<ControlImpl> make_family(CudaContext& ctx, FamilyTag<ControlImpl>) { return std::make_shared<CudaControl>(ctx); }

}  // namespace poreflow::cuda_detail
