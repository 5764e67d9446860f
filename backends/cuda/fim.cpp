// fim on the cuda backend (kernels_cu/fim.cu).
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/fim.hpp"
#include "kernels_cu/fim.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaFim final : public FimImpl {
 public:
  explicit CudaFim(CudaContext& ctx) : ctx_(ctx) {}
  void masses(const FimMassesArgs& a) override { run(a, "fim masses", [](auto t) { return &cu::launch_fim_masses<decltype(t)>; }); }
  void assemble(const FimAssembleArgs& a) override {
    run(a, "fim assemble", [](auto t) { return &cu::launch_fim_assemble<decltype(t)>; });
  }

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

FamilyPtr<FimImpl> make_family(CudaContext& ctx, FamilyTag<FimImpl>) { return std::make_shared<CudaFim>(ctx); }

}  // namespace poreflow::cuda_detail
