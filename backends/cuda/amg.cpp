// amg on the cuda backend (kernels_cu/amg.cu).
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/amg.hpp"
#include "kernels_cu/amg.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaAmg final : public AmgImpl {
 public:
  explicit CudaAmg(CudaContext& ctx) : ctx_(ctx) {}
  void p_values(const AmgPValuesArgs& a) override { run(a, "amg p_values", [](auto t) { return &cu::launch_amg_p_values<decltype(t)>; }); }
  void galerkin(const AmgGalerkinArgs& a) override { run(a, "amg galerkin", [](auto t) { return &cu::launch_amg_galerkin<decltype(t)>; }); }
  void smooth(const AmgSmoothArgs& a) override { run(a, "amg smooth", [](auto t) { return &cu::launch_amg_smooth<decltype(t)>; }); }
  void tail_cycle(const AmgTailArgs& a) override { run(a, "amg tail_cycle", [](auto t) { return &cu::launch_amg_tail<decltype(t)>; }); }

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

FamilyPtr<AmgImpl> make_family(CudaContext& ctx, FamilyTag<AmgImpl>) { return std::make_shared<CudaAmg>(ctx); }

}  // namespace poreflow::cuda_detail
