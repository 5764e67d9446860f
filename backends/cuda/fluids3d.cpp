// fluids3d on the cuda backend (kernels_cu/fluids3d.cu): a solve is its colour sweeps back to back
// on the stream, the stop decided on the device; no host round trip inside it.
#include "backends/cuda/families.hpp"
#include "core/kernels/fluids3d.hpp"
#include "kernels_cu/fluids3d.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaFluids3D final : public Fluids3DImpl {
 public:
  explicit CudaFluids3D(CudaContext& ctx) : ctx_(ctx) {}

  void add_source(const FluidsSourceArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_fl_source<T>(dptr<T>(*a.x), a.box.view(), a.b, a.i0, a.j0, a.k0, a.i1 - a.i0 + 1, a.j1 - a.j0 + 1,
                              a.k1 - a.k0 + 1, T(a.value), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("fluids3d add_source");
  }

  void boundary(const FluidsBoundaryArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_fl_boundary<T>(dptr<T>(*a.x), a.box.view(), a.b, ctx_.stream());
    });
    PF_CHECK_LAUNCH("fluids3d boundary");
  }

  void pack(const FluidsPackArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_fl_pack<T>(dptr<T>(*a.x), dptr<T>(*a.xp), a.box.view(), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("fluids3d pack");
  }

  void unpack(const FluidsUnpackArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_fl_unpack<T>(dptr<T>(*a.xp), dptr<T>(*a.x), a.box.view(), a.b, a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("fluids3d unpack");
  }

  void solve(const FluidsSolveArgs& a, long first, long count) override {
    ctx_.activate();
    cu::FlSweepLaunch l;
    l.shape = a.shape;
    l.sm_count = ctx_.sm_count();
    l.x = dptr(*a.x);
    l.x0 = dptr(*a.x0);
    l.box = a.box.view();
    l.a = a.a;
    l.inv_c = 1.0 / a.c;
    l.tolerance = a.tolerance;
    l.b = a.b;
    l.narrow = !a.wide_index && fluids3d_narrow_index(l.box);
    l.prefetch = a.prefetch >= 0 ? a.prefetch : fluids3d_sweep_prefetch(l.box, size_of(a.prec), ctx_.l2_bytes());
    l.ctrl = dptr<unsigned long long>(a.ctrl) + static_cast<std::size_t>(a.ctrl_block) * PF_CV_WORDS;
    for (long it = first; it < first + count; ++it) {
      const FusedPlan plan = fused_plan(it, 1);
      l.it = it;
      l.check_slot = plan.check_slot;
      l.clear_slot = plan.clear_slot;
      for (int c = 0; c < 2; ++c) {
        l.colour = c;
        l.decide_slot = c == 0 ? plan.decide_slot : -1;
        with_type(a.prec, [&](auto t) { cu::launch_fl_sweep<decltype(t)>(l, ctx_.stream()); });
        PF_CHECK_LAUNCH(c == 0 ? "fluids3d red sweep" : "fluids3d black sweep");
      }
    }
  }

  void advect(const FluidsAdvectArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      const pf_box3 b = a.box.view();
      cu::launch_fl_advect<T>(dptr<T>(*a.d), dptr<T>(*a.d0), dptr<T>(*a.u), dptr<T>(*a.v), dptr<T>(*a.w), b, a.b,
                              T(a.dt * double(b.nx)), T(a.dt * double(b.ny)), T(a.dt * double(b.nz)), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("fluids3d advect");
  }

  void divergence(const FluidsDivergenceArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_fl_divergence<T>(dptr<T>(*a.u), dptr<T>(*a.v), dptr<T>(*a.w), dptr<T>(*a.div), dptr<T>(a.p), a.box.view(),
                                  T(a.h), a.shape, ctx_.stream());
    });
    PF_CHECK_LAUNCH("fluids3d divergence");
  }

  void gradient(const FluidsGradientArgs& a) override {
    ctx_.activate();
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      cu::launch_fl_gradient<T>(dptr<T>(*a.u), dptr<T>(*a.v), dptr<T>(*a.w), dptr<T>(*a.p), a.box.view(), T(a.scale), a.shape,
                                ctx_.stream());
    });
    PF_CHECK_LAUNCH("fluids3d gradient");
  }

 private:
  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<Fluids3DImpl> make_family(CudaContext& ctx, FamilyTag<Fluids3DImpl>) {
  return std::make_shared<CudaFluids3D>(ctx);
}

}  // namespace poreflow::cuda_detail
