// cpr on the cuda backend (kernels_cu/cpr.cu).
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/cpr.hpp"
#include "kernels_cu/cpr.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaCpr final : public CprImpl {
 public:
  explicit CudaCpr(CudaContext& ctx) : ctx_(ctx) {}
  void weights(const CprWeightsArgs& a) override { run(a, "cpr weights", [](auto t) { return &cu::launch_cpr_weights<decltype(t)>; }); }
  void pressure(const CprPressureArgs& a) override { run(a, "cpr pressure", [](auto t) { return &cu::launch_cpr_pressure<decltype(t)>; }); }
  void restrict_residual(const CprRestrictArgs& a) override {
    run(a, "cpr restrict", [](auto t) { return &cu::launch_cpr_restrict<decltype(t)>; });
  }
  void prolong(const CprProlongArgs& a) override { run(a, "cpr prolong", [](auto t) { return &cu::launch_cpr_prolong<decltype(t)>; }); }

 private:
  template <class A, class W>
  void run(const A& a, const char* what, W wrapper) {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(wrapper(t), a.kernel_args(), ctx_.stream());
    });
    PF_CHECK_LAUNCH(what);
  }
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<CprImpl> make_family(CudaContext& ctx, FamilyTag<CprImpl>) { return std::make_shared<CudaCpr>(ctx); }

}  // namespace poreflow::cuda_detail
