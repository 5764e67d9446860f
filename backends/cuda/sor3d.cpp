// sor3d on the cuda backend (kernels_cu/sor3d.cu): the two colour sweeps of each iteration back
// to back on the stream, no host round trip inside a batch.
#include "backends/cuda/families.hpp"
#include "kernels_cu/sor3d.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaSor3D final : public Sor3DImpl {
 public:
  explicit CudaSor3D(CudaContext& ctx) : ctx_(ctx) {}

  void iterate(const Sor3DArgs& a, long first, long count) override {
    ctx_.activate();
    cu::SorLaunch l;
    l.design = a.design;
    l.shape = a.shape;
    l.sm_count = ctx_.sm_count();
    l.smem_optin = ctx_.smem_optin();
    l.coef = dptr(*a.coef);
    l.p = dptr(*a.p);
    l.box = a.box.view();
    l.omega = a.omega;
    l.threshold = a.threshold;
    l.ctrl = dptr<unsigned long long>(a.ctrl);
    if (a.scratch) l.scratch = dptr(*a.scratch);
    l.extent = static_cast<long>(a.box.extent());
    for (long it = first; it < first + count; ++it) {
      const FusedPlan plan = fused_plan(it, a.check_every);
      l.it = it;
      l.check = plan.check;
      l.check_slot = plan.check_slot;
      l.clear_slot = plan.clear_slot;
      for (int c = 0; c < 2; ++c) {
        l.colour = c;
        l.decide_slot = c == 0 ? plan.decide_slot : -1;
        with_type(a.prec, [&](auto t) { cu::launch_sor3d_sweep<decltype(t)>(l, ctx_.stream()); });
        PF_CHECK_LAUNCH(c == 0 ? "sor3d red sweep" : "sor3d black sweep");
      }
    }
  }

 private:
  CudaContext& ctx_;
};

}  // namespace

std::unique_ptr<Sor3DImpl> make_family(CudaContext& ctx, FamilyTag<Sor3DImpl>) { return std::make_unique<CudaSor3D>(ctx); }

}  // namespace poreflow::cuda_detail
