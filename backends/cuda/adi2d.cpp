// adi2d on the cuda backend: one thread per node around the shared stencils (kernels_cu/adi2d.cu).
#include "backends/cuda/families.hpp"
#include "core/kernels/adi2d.hpp"
#include "kernels_cu/adi2d.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaAdi2D final : public Adi2DImpl {
 public:
  explicit CudaAdi2D(CudaContext& ctx) : ctx_(ctx) {}

  void flash(const Adi2DFlashArgs& a) override {
    run(a.prec, "adi2d flash", [&](auto t) {
      using T = decltype(t);
      const T* m[4] = {in<T>(a.mass[0]), in<T>(a.mass[1]), in<T>(a.mass[2]), in<T>(a.mass[3])};
      cu::adi2d_flash<T>(ctx_.stream(), grid(a.g), T(a.g.h), in<T>(a.prm), m, in<T>(a.p), out<T>(a.sw), out<T>(a.so),
                         out<T>(a.sg), out<T>(a.co3), out<T>(a.cg3), out<T>(a.vol), out<T>(a.props));
    });
  }

  void coefficients(const Adi2DCoeffArgs& a) override {
    run(a.prec, "adi2d coefficients", [&](auto t) {
      using T = decltype(t);
      const auto& s = a.st;
      cu::adi2d_coefficients<T>(ctx_.stream(), grid(a.g), T(a.g.h), T(a.dt), in<T>(a.prm), in<T>(s.p), in<T>(s.sw),
                                in<T>(s.so), in<T>(s.sg), in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), in<T>(a.vol),
                                in<T>(a.wells.inj), in<T>(a.wells.prod), T(a.wells.p_bh), out<T>(a.aw), out<T>(a.ae),
                                out<T>(a.as), out<T>(a.an), out<T>(a.d0), out<T>(a.rhs));
    });
  }

  void sweep(const Adi2DSweepArgs& a) override {
    run(a.prec, "adi2d sweep", [&](auto t) {
      using T = decltype(t);
      cu::adi2d_sweep<T>(ctx_.stream(), grid(a.g), a.x_sweep, T(a.r), in<T>(a.aw), in<T>(a.ae), in<T>(a.as), in<T>(a.an),
                         in<T>(a.d0), in<T>(a.rhs), in<T>(a.p), out<T>(a.a), out<T>(a.b), out<T>(a.c), out<T>(a.d),
                         dptr<unsigned long long>(a.ctl.ctrl), a.ctl.check_slot, a.ctl.clear_slot,
                         dptr<T>(a.candidates[0]), dptr<T>(a.candidates[1]));
    });
  }

  void total_velocity(const Adi2DVelocityArgs& a) override {
    run(a.prec, "adi2d total_velocity", [&](auto t) {
      using T = decltype(t);
      const auto& s = a.st;
      cu::adi2d_total_velocity<T>(ctx_.stream(), grid(a.g), in<T>(a.prm), in<T>(s.p), in<T>(s.sw), in<T>(s.so),
                                  in<T>(s.sg), in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), out<T>(a.ux), out<T>(a.uy));
    });
  }

  void transport(const Adi2DTransportArgs& a) override {
    run(a.prec, "adi2d transport", [&](auto t) {
      using T = decltype(t);
      const auto& s = a.st;
      const T* m[4];
      T* o[4];
      T* acc[4];
      for (int c = 0; c < 4; ++c) {
        m[c] = in<T>(a.mass_in[c]);
        o[c] = out<T>(a.mass_out[c]);
        acc[c] = out<T>(a.acc[c]);
      }
      cu::adi2d_transport<T>(ctx_.stream(), grid(a.g), T(a.dt), in<T>(a.prm), in<T>(s.p), in<T>(s.sw), in<T>(s.so),
                             in<T>(s.sg), in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), in<T>(a.ux), in<T>(a.uy),
                             in<T>(a.wells.inj), in<T>(a.wells.prod), T(a.wells.p_bh), m, o, acc);
    });
  }

  void rate(const Adi2DRateArgs& a) override {
    run(a.prec, "adi2d rate", [&](auto t) {
      using T = decltype(t);
      const auto& s = a.st;
      cu::adi2d_rate<T>(ctx_.stream(), grid(a.g), T(a.g.h), in<T>(a.prm), in<T>(s.p), in<T>(s.sw), in<T>(s.so),
                        in<T>(s.sg), in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), in<T>(a.ux), in<T>(a.uy), in<T>(a.vol),
                        in<T>(a.wells.prod), T(a.wells.p_bh), out<T>(a.rate));
    });
  }

 private:
  template <class T>
  static const T* in(const Buffer* b) {
    return dptr<T>(*b);
  }
  template <class T>
  static T* out(Buffer* b) {
    return dptr<T>(*b);
  }
  static cu::Adi2DGrid grid(const Adi2DGeom& g) { return {static_cast<long>(g.nx), static_cast<long>(g.ny)}; }
  template <class F>
  void run(Precision prec, const char* name, F&& f) {
    ctx_.activate();
    with_type(prec, f);
    PF_CHECK_LAUNCH(name);
  }

  CudaContext& ctx_;
};

}  // namespace

FamilyPtr<Adi2DImpl> make_family(CudaContext& ctx, FamilyTag<Adi2DImpl>) { return std::make_shared<CudaAdi2D>(ctx); }

}  // namespace poreflow::cuda_detail
