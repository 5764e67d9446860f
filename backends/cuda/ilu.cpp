// ilu on the cuda backend (kernels_cu/ilu.cu): one launch a colour.
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/ilu.hpp"
#include "kernels_cu/ilu.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaIlu final : public IluImpl {
 public:
  explicit CudaIlu(CudaContext& ctx) : ctx_(ctx) {}

  void s7_factor(const IluStencilArgs& a, int colour) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_ilu_s7_factor<T>, a.factor_args(), a.block, colour, ctx_.stream());
    });
    PF_CHECK_LAUNCH("ilu stencil factor");
  }

  void s7_lower(const IluStencilArgs& a, int colour) override { s7_sweep(a, colour == 0 ? 0 : 1, "ilu stencil lower"); }
  void s7_upper(const IluStencilArgs& a) override { s7_sweep(a, 2, "ilu stencil upper"); }

  void csr_factor(const IluCsrArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_ilu_csr_factor<T>, a.factor_args(), a.block, ctx_.stream());
    });
    PF_CHECK_LAUNCH("ilu csr factor");
  }

  void csr_lower(const IluCsrArgs& a) override { csr_sweep(a, true, "ilu csr lower"); }
  void csr_upper(const IluCsrArgs& a) override { csr_sweep(a, false, "ilu csr upper"); }

 private:
  void s7_sweep(const IluStencilArgs& a, int sweep, const char* what) {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_ilu_s7_sweep<T>, a.sweep_args(), a.block, sweep, ctx_.stream());
    });
    PF_CHECK_LAUNCH(what);
  }

  void csr_sweep(const IluCsrArgs& a, bool lower, const char* what) {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_ilu_csr_sweep<T>, a.sweep_args(), a.block, lower, ctx_.stream());
    });
    PF_CHECK_LAUNCH(what);
  }

  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<IluImpl> make_family(CudaContext& ctx, FamilyTag<IluImpl>) { return std::make_shared<CudaIlu>(ctx); }

}  // namespace poreflow::cuda_detail
