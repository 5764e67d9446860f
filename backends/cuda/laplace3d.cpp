// laplace3d on the cuda backend (kernels_cu/laplace3d.cu).
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/laplace3d.hpp"
#include "kernels_cu/laplace3d.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaLaplace3D final : public Laplace3DImpl {
 public:
  explicit CudaLaplace3D(CudaContext& ctx) : ctx_(ctx) {}
  void apply(const Laplace3DApplyArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_lap7<T>, a.kernel_args(), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("laplace3d apply");
  }

 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<Laplace3DImpl> make_family(CudaContext& ctx, FamilyTag<Laplace3DImpl>) { return std::make_shared<CudaLaplace3D>(ctx); }

}  // namespace poreflow::cuda_detail
