// halo3d on the cuda backend (kernels_cu/halo3d.cu).
#include "backends/cuda/families.hpp"
#include "core/kernels/halo3d.hpp"
#include "kernels_cu/halo3d.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaHalo3D final : public Halo3DImpl {
 public:
  explicit CudaHalo3D(CudaContext& ctx) : ctx_(ctx) {}
  void fill_pass(const Halo3DFillArgs& a, int dir) override {
    ctx_.activate();
    const HaloFace& lo = a.face[2 * dir];
    const HaloFace& hi = a.face[2 * dir + 1];
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_halo_pass<T>(dptr<T>(*a.field), a.box.view(), dir, static_cast<int>(lo.mode), static_cast<int>(hi.mode),
                              T(lo.value), T(hi.value), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("halo3d fill");
  }

 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<Halo3DImpl> make_family(CudaContext& ctx, FamilyTag<Halo3DImpl>) { return std::make_shared<CudaHalo3D>(ctx); }

}  // namespace poreflow::cuda_detail
