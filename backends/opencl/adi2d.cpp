// adi2d on the opencl backend: one work-item per node (kernels_cl/adi2d.cl); arguments in the
// kernels' order.
#include "backends/opencl/families.hpp"
#include "core/kernels/adi2d.hpp"

namespace poreflow::ocl {
namespace {

class ClAdi2D final : public Adi2DImpl {
 public:
  explicit ClAdi2D(ClContext& ctx) : ctx_(ctx) {}

  void flash(const Adi2DFlashArgs& a) override { launch(a.prec, a.g, "adi2d_flash", a.kernel_args()); }
  void coefficients(const Adi2DCoeffArgs& a) override { launch(a.prec, a.g, "adi2d_coefficients", a.kernel_args()); }

  void sweep(const Adi2DSweepArgs& a) override {
    if (a.ctl.checks()) {
      ctx_.require_int64_atomics(a.prec);
      launch(a.prec, a.g, "adi2d_sweep_check", a.check_args());
    } else {
      launch(a.prec, a.g, "adi2d_sweep", a.kernel_args());
    }
  }

  void total_velocity(const Adi2DVelocityArgs& a) override { launch(a.prec, a.g, "adi2d_total_velocity", a.kernel_args()); }
  void transport(const Adi2DTransportArgs& a) override { launch(a.prec, a.g, "adi2d_transport", a.kernel_args()); }
  void rate(const Adi2DRateArgs& a) override { launch(a.prec, a.g, "adi2d_rate", a.kernel_args()); }

 private:
  // kernel `name` with description desc, one work-item per node
  template <class D>
  void launch(Precision prec, const Adi2DGeom& g, const char* name, const D& desc) {
    ClKernel& k = ctx_.kernel("adi2d", prec, ctx_.fast_block(), name);
    ctx_.set_args(k, prec, desc);
    ctx_.launch_points(k, g.nx * g.ny);
  }

  ClContext& ctx_;
};

}  // namespace

FamilyPtr<Adi2DImpl> make_family(ClContext& ctx, FamilyTag<Adi2DImpl>) { return std::make_shared<ClAdi2D>(ctx); }

}  // namespace poreflow::ocl
