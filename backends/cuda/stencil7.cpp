// stencil7 on the cuda backend (kernels_cu/stencil7.cu).
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/stencil7.hpp"
#include "kernels_cu/stencil7.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaStencil7 final : public Stencil7Impl {
 public:
  explicit CudaStencil7(CudaContext& ctx) : ctx_(ctx) {
    ctx_.activate();
    partials_ = DeviceMem(cu::kS7MaxGrid * sizeof(unsigned long long));
    counter_ = DeviceMem(sizeof(unsigned int));
    PF_CHECK_CUDA(cudaMemsetAsync(counter_.get(), 0, counter_.bytes(), ctx_.stream()));  // atomicInc re-arms it
    ctx_.sync();
  }

  void apply(const Stencil7ApplyArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_s7_apply<T>, a.kernel_args(), a.block, ctx_.stream());
    });
    PF_CHECK_LAUNCH(a.b ? "stencil7 residual" : "stencil7 apply");
  }

  void chebyshev(const Stencil7ChebyshevArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_s7_chebyshev<T>, a.kernel_args(), ctx_.stream());
    });
    PF_CHECK_LAUNCH("stencil7 chebyshev");
  }

  void invert(const Stencil7InvertArgs& a) override {
    ctx_.activate();
    cu::S7InvertLaunch l;
    l.grid = cu::s7_invert_grid(static_cast<long>(a.box.extent()), ctx_.sm_count());
    l.partials = static_cast<unsigned long long*>(partials_.get());
    l.counter = static_cast<unsigned int*>(counter_.get());
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_s7_invert<T>, a.kernel_args(), a.block, l, ctx_.stream());
    });
    PF_CHECK_LAUNCH("stencil7 invert");
  }

  void from_sor(const Stencil7FromSorArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_s7_from_sor<T>, a.kernel_args(), ctx_.stream());
    });
    PF_CHECK_LAUNCH("stencil7 from_sor");
  }

 private:
  CudaContext& ctx_;
  DeviceMem partials_, counter_;
};

}  // namespace

FamilyPtr<Stencil7Impl> make_family(CudaContext& ctx, FamilyTag<Stencil7Impl>) { return std::make_shared<CudaStencil7>(ctx); }

}  // namespace poreflow::cuda_detail
