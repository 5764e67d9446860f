// blas on the cuda backend (kernels_cu/blas.cu).
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
    const auto* guard = dptr<unsigned long long>(a.guard);
    if (a.prec == Precision::Float)
      cu::launch_axpy<float>(a.n, float(a.alpha), dptr<float>(*a.x), dptr<float>(*a.y), guard, ctx_.stream());
    else
      cu::launch_axpy<double>(a.n, a.alpha, dptr<double>(*a.x), dptr<double>(*a.y), guard, ctx_.stream());
    PF_CHECK_LAUNCH("axpy");
  }

 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<BlasImpl> make_family(CudaContext& ctx, FamilyTag<BlasImpl>) { return std::make_shared<CudaBlas>(ctx); }

}  // namespace poreflow::cuda_detail
