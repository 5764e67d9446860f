// bl1d on the cuda backend (kernels_cu/bl1d.cu).
#include "backends/cuda/families.hpp"
#include "core/kernels/bl1d.hpp"
#include "kernels_cu/bl1d.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaBl1d final : public Bl1dImpl {
 public:
  explicit CudaBl1d(CudaContext& ctx) : ctx_(ctx) {}

  void face_mobility(const BLFaceMobilityArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_bl_face_mobility<T>(dptr<T>(*a.s), dptr<T>(*a.mface), a.n, T(a.phys.k), T(a.phys.mu_w), T(a.phys.mu_o),
                                     ctx_.stream());
    });
    PF_CHECK_LAUNCH("bl1d face_mobility");
  }

  void face_velocity(const BLFaceVelocityArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_bl_face_velocity<T>(dptr<T>(*a.p), dptr<T>(*a.mface), dptr<T>(*a.u), a.n, T(a.inv_h), ctx_.stream());
    });
    PF_CHECK_LAUNCH("bl1d face_velocity");
  }

  void saturation(const BLSaturationArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_bl_saturation<T>(dptr<T>(*a.s_old), dptr<T>(*a.u), dptr<T>(*a.s_new), a.n, T(a.c), T(a.s_inj),
                                  T(a.phys.mu_w), T(a.phys.mu_o), ctx_.stream());
    });
    PF_CHECK_LAUNCH("bl1d saturation");
  }

  void pressure_system(const BLPressureSystemArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_bl_pressure_system<T>(dptr<T>(a.mface), a.n, T(a.p_left), T(a.p_right), dptr<T>(*a.a), dptr<T>(*a.b),
                                       dptr<T>(*a.c), dptr<T>(*a.d), ctx_.stream());
    });
    PF_CHECK_LAUNCH("bl1d pressure_system");
  }

 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<Bl1dImpl> make_family(CudaContext& ctx, FamilyTag<Bl1dImpl>) { return std::make_shared<CudaBl1d>(ctx); }

}  // namespace poreflow::cuda_detail
