// adi2d on the cuda backend: one thread per node around the shared stencils (kernels_cu/adi2d.cu).
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/adi2d.hpp"
#include "kernels_cu/adi2d.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaAdi2D final : public Adi2DImpl {
 public:
  explicit CudaAdi2D(CudaContext& ctx) : ctx_(ctx) {}

  void flash(const Adi2DFlashArgs& a) override {
    launch(a.prec, "adi2d flash", a.kernel_args(), [](auto t) { return &cu::adi2d_flash<decltype(t)>; });
  }

  void coefficients(const Adi2DCoeffArgs& a) override {
    launch(a.prec, "adi2d coefficients", a.kernel_args(), [](auto t) { return &cu::adi2d_coefficients<decltype(t)>; });
  }

  // one wrapper for both kernels, with the check's description (the candidates null where not given)
  void sweep(const Adi2DSweepArgs& a) override {
    launch(a.prec, "adi2d sweep", a.check_args(), [](auto t) { return &cu::adi2d_sweep<decltype(t)>; });
  }

  void total_velocity(const Adi2DVelocityArgs& a) override {
    launch(a.prec, "adi2d total_velocity", a.kernel_args(), [](auto t) { return &cu::adi2d_total_velocity<decltype(t)>; });
  }

  void transport(const Adi2DTransportArgs& a) override {
    launch(a.prec, "adi2d transport", a.kernel_args(), [](auto t) { return &cu::adi2d_transport<decltype(t)>; });
  }

  void rate(const Adi2DRateArgs& a) override {
    launch(a.prec, "adi2d rate", a.kernel_args(), [](auto t) { return &cu::adi2d_rate<decltype(t)>; });
  }

 private:
  // the launch wrapper wrapper_of(T{}) with the description desc, in precision prec
  template <class D, class W>
  void launch(Precision prec, const char* what, const D& desc, W wrapper_of) {
    ctx_.activate();
    with_type(prec, [&](auto t) { cu_launch<decltype(t)>(wrapper_of(t), desc, ctx_.stream()); });
    PF_CHECK_LAUNCH(what);
  }

  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<Adi2DImpl> make_family(CudaContext& ctx, FamilyTag<Adi2DImpl>) { return std::make_shared<CudaAdi2D>(ctx); }

}  // namespace poreflow::cuda_detail
