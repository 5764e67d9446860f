// blas on the cuda backend (kernels_cu/blas.cu).
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/blas.hpp"
#include "kernels_cu/blas.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaBlas final : public BlasImpl {
 public:
  explicit CudaBlas(CudaContext& ctx) : ctx_(ctx) {}
  void axpy(const AxpyArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_axpy<T>, a.kernel_args(), ctx_.stream());
    });
    PF_CHECK_LAUNCH("axpy");
  }

 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<BlasImpl> make_family(CudaContext& ctx, FamilyTag<BlasImpl>) { return std::make_shared<CudaBlas>(ctx); }

}  // namespace poreflow::cuda_detail
