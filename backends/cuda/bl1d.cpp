// bl1d on the cuda backend (kernels_cu/bl1d.cu).
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/bl1d.hpp"
#include "kernels_cu/bl1d.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaBl1d final : public Bl1dImpl {
 public:
  explicit CudaBl1d(CudaContext& ctx) : ctx_(ctx) {}

  void face_mobility(const BLFaceMobilityArgs& a) override {
    launch(a.prec, "bl1d face_mobility", a.kernel_args(), [](auto t) { return &cu::launch_bl_face_mobility<decltype(t)>; });
  }

  void face_velocity(const BLFaceVelocityArgs& a) override {
    launch(a.prec, "bl1d face_velocity", a.kernel_args(), [](auto t) { return &cu::launch_bl_face_velocity<decltype(t)>; });
  }

  void saturation(const BLSaturationArgs& a) override {
    launch(a.prec, "bl1d saturation", a.kernel_args(), [](auto t) { return &cu::launch_bl_saturation<decltype(t)>; });
  }

  void pressure_system(const BLPressureSystemArgs& a) override {
    launch(a.prec, "bl1d pressure_system", a.kernel_args(), [](auto t) { return &cu::launch_bl_pressure_system<decltype(t)>; });
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

FamilyPtr<Bl1dImpl> make_family(CudaContext& ctx, FamilyTag<Bl1dImpl>) { return std::make_shared<CudaBl1d>(ctx); }

}  // namespace poreflow::cuda_detail
