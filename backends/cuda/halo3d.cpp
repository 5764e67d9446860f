// halo3d on the cuda backend (kernels_cu/halo3d.cu).
#include "backends/cuda/device_args.hpp"
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
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_halo_pass<T>, a.pass_args(dir), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("halo3d fill");
  }
  void pack(const Halo3DPackArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_halo_pack<T>, a.kernel_args(), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH(a.unpack ? "halo3d unpack" : "halo3d pack");
  }

 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<Halo3DImpl> make_family(CudaContext& ctx, FamilyTag<Halo3DImpl>) { return std::make_shared<CudaHalo3D>(ctx); }

}  // namespace poreflow::cuda_detail
