// fluids3d on the cuda backend (kernels_cu/fluids3d.cu): a solve is its colour sweeps back to back
// on the stream, the stop decided on the device; no host round trip inside it.
#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/fluids3d.hpp"
#include "kernels_cu/fluids3d.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaFluids3D final : public Fluids3DImpl {
 public:
  explicit CudaFluids3D(CudaContext& ctx) : ctx_(ctx) {}

  void add_source(const FluidsSourceArgs& a) override {
    launch(a, "fluids3d add_source", [](auto t) { return &cu::launch_fl_source<decltype(t)>; }, a.shape);
  }

  void boundary(const FluidsBoundaryArgs& a) override {
    launch(a, "fluids3d boundary", [](auto t) { return &cu::launch_fl_boundary<decltype(t)>; });
  }

  void pack(const FluidsPackArgs& a) override {
    launch(a, "fluids3d pack", [](auto t) { return &cu::launch_fl_pack<decltype(t)>; }, a.shape);
  }

  void unpack(const FluidsUnpackArgs& a) override {
    launch(a, "fluids3d unpack", [](auto t) { return &cu::launch_fl_unpack<decltype(t)>; }, a.shape);
  }

  void solve(const FluidsSolveArgs& a, long first, long count) override {
    ctx_.activate();
    cu::FlSweepLaunch l;
    l.shape = a.shape;
    l.sm_count = ctx_.sm_count();
    const pf_box3 box = a.box.view();
    l.narrow = !a.wide_index && fluids3d_narrow_index(box);
    l.prefetch = a.prefetch >= 0 ? a.prefetch : fluids3d_sweep_prefetch(box, size_of(a.prec), ctx_.l2_bytes());
    const FluidsSweepParts parts = fluids3d_sweep_parts(box.nz, a.split != nullptr);
    for (long it = first; it < first + count; ++it) {
      const FusedPlan plan = fused_plan(it, 1);
      l.it = it;
      l.check_slot = plan.check_slot;
      l.clear_slot = plan.clear_slot;
      for (int c = 0; c < 2; ++c) {
        l.colour = c;
        l.decide_slot = c == 0 ? plan.decide_slot : -1;  // every part decides alike (pf_cv_fused_stop)
        for (int q = 0; q <= parts.n; ++q) {
          if (q == parts.outer && a.split) a.split->outer_swept(a, c, plan);
          if (q == parts.n) break;
          l.k_first = parts.first[q];
          l.k_count = parts.count[q];
          with_type(a.prec, [&](auto t) {
            using T = decltype(t);
            cu_launch<T>(&cu::launch_fl_sweep<T>, a.sweep_args(), l, ctx_.stream());
          });
          PF_CHECK_LAUNCH(c == 0 ? "fluids3d red sweep" : "fluids3d black sweep");
        }
        if (a.split) a.split->after_sweep(a, c, plan);
      }
    }
  }

  void advect(const FluidsAdvectArgs& a) override {
    launch(a, "fluids3d advect", [](auto t) { return &cu::launch_fl_advect<decltype(t)>; }, a.shape);
  }

  void divergence(const FluidsDivergenceArgs& a) override {
    launch(a, "fluids3d divergence", [](auto t) { return &cu::launch_fl_divergence<decltype(t)>; }, a.shape);
  }

  void gradient(const FluidsGradientArgs& a) override {
    launch(a, "fluids3d gradient", [](auto t) { return &cu::launch_fl_gradient<decltype(t)>; }, a.shape);
  }

 private:
  // the launch wrapper wrapper_of(T{}) with a's description, then the extras (a launch shape) and
  // the stream, in a's precision
  template <class A, class W, class... Extra>
  void launch(const A& a, const char* what, W wrapper_of, const Extra&... extra) {
    ctx_.activate();
    with_type(a.prec, [&](auto t) { cu_launch<decltype(t)>(wrapper_of(t), a.kernel_args(), extra..., ctx_.stream()); });
    PF_CHECK_LAUNCH(what);
  }

  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<Fluids3DImpl> make_family(CudaContext& ctx, FamilyTag<Fluids3DImpl>) {
  return std::make_shared<CudaFluids3D>(ctx);
}

}  // namespace poreflow::cuda_detail
