// adi2d on the opencl backend: one work-item per node (kernels_cl/adi2d.cl); arguments in the
// kernels' order.
#include "backends/opencl/families.hpp"
#include "core/kernels/adi2d.hpp"

namespace poreflow::ocl {
namespace {

class ClAdi2D final : public Adi2DImpl {
 public:
  explicit ClAdi2D(ClContext& ctx) : ctx_(ctx) {}

  void flash(const Adi2DFlashArgs& a) override {
    Args k = kernel(a.prec, a.g, "adi2d_flash");
    k.real(a.g.h).buf(a.prm);
    for (const Buffer* m : a.mass) k.buf(m);
    k.buf(a.p).buf(a.sw).buf(a.so).buf(a.sg).buf(a.co3).buf(a.cg3).buf(a.vol).buf(a.props);
    launch(k, a.g);
  }

  void coefficients(const Adi2DCoeffArgs& a) override {
    Args k = kernel(a.prec, a.g, "adi2d_coefficients");
    k.real(a.g.h).real(a.dt).buf(a.prm);
    phase_state(k, a.st);
    k.buf(a.vol).buf(a.wells.inj).buf(a.wells.prod).real(a.wells.p_bh);
    k.buf(a.aw).buf(a.ae).buf(a.as).buf(a.an).buf(a.d0).buf(a.rhs);
    launch(k, a.g);
  }

  void sweep(const Adi2DSweepArgs& a) override {
    const bool check = a.ctl.checks();
    if (check) ctx_.require_int64_atomics(a.prec);
    Args k = kernel(a.prec, a.g, check ? "adi2d_sweep_check" : "adi2d_sweep");
    k.set(cl_int(a.x_sweep ? 1 : 0)).real(a.r);
    k.buf(a.aw).buf(a.ae).buf(a.as).buf(a.an).buf(a.d0).buf(a.rhs).buf(a.p);
    k.buf(a.a).buf(a.b).buf(a.c).buf(a.d);
    k.buf_or_null(a.ctl.ctrl).set(cl_int(a.ctl.check_slot)).set(cl_int(a.ctl.clear_slot));
    if (check) k.buf_or_null(a.candidates[0]).buf_or_null(a.candidates[1]);
    launch(k, a.g);
  }

  void total_velocity(const Adi2DVelocityArgs& a) override {
    Args k = kernel(a.prec, a.g, "adi2d_total_velocity");
    k.buf(a.prm);
    phase_state(k, a.st);
    k.buf(a.ux).buf(a.uy);
    launch(k, a.g);
  }

  void transport(const Adi2DTransportArgs& a) override {
    Args k = kernel(a.prec, a.g, "adi2d_transport");
    k.real(a.dt).buf(a.prm);
    phase_state(k, a.st);
    k.buf(a.ux).buf(a.uy);
    k.buf(a.wells.inj).buf(a.wells.prod).real(a.wells.p_bh);
    for (const Buffer* m : a.mass_in) k.buf(m);
    for (const Buffer* m : a.mass_out) k.buf(m);
    for (const Buffer* m : a.acc) k.buf(m);
    launch(k, a.g);
  }

  void rate(const Adi2DRateArgs& a) override {
    Args k = kernel(a.prec, a.g, "adi2d_rate");
    k.real(a.g.h).buf(a.prm);
    phase_state(k, a.st);
    k.buf(a.ux).buf(a.uy).buf(a.vol).buf(a.wells.prod).real(a.wells.p_bh).buf(a.rate);
    launch(k, a.g);
  }

 private:
  // the kernel with its leading (nx, ny) set
  Args kernel(Precision prec, const Adi2DGeom& g, const char* name) {
    Args k(ctx_, ctx_.kernel("adi2d", prec, ctx_.fast_block(), name), prec);
    k.set(cl_long(g.nx)).set(cl_long(g.ny));
    return k;
  }
  static void phase_state(Args& k, const Adi2DPhaseState& s) {
    k.buf(s.p).buf(s.sw).buf(s.so).buf(s.sg).buf(s.co3).buf(s.cg3).buf(s.props);
  }
  void launch(Args& k, const Adi2DGeom& g) { ctx_.launch_points(k.kernel(), g.nx * g.ny); }

  ClContext& ctx_;
};

}  // namespace

FamilyPtr<Adi2DImpl> make_family(ClContext& ctx, FamilyTag<Adi2DImpl>) { return std::make_shared<ClAdi2D>(ctx); }

}  // namespace poreflow::ocl
