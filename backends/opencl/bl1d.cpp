// bl1d on the opencl backend (kernels_cl/bl1d.cl), one work-item per face or point.
#include "backends/opencl/families.hpp"
#include "core/kernels/bl1d.hpp"

namespace poreflow::ocl {
namespace {

class ClBl1d final : public Bl1dImpl {
 public:
  explicit ClBl1d(ClContext& ctx) : ctx_(ctx) {}

  void face_mobility(const BLFaceMobilityArgs& a) override { launch(a, "bl1d_face_mobility", a.n - 1); }
  void face_velocity(const BLFaceVelocityArgs& a) override { launch(a, "bl1d_face_velocity", a.n - 1); }
  void saturation(const BLSaturationArgs& a) override { launch(a, "bl1d_saturation", a.n); }
  void pressure_system(const BLPressureSystemArgs& a) override { launch(a, "bl1d_pressure_system", a.n); }

 private:
  // kernel `name` over `points` work-items with a's description
  template <class A>
  void launch(const A& a, const char* name, std::size_t points) {
    ClKernel& k = ctx_.kernel("bl1d", a.prec, ctx_.fast_block(), name);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, points);
  }

  ClContext& ctx_;
};

}  // namespace

FamilyPtr<Bl1dImpl> make_family(ClContext& ctx, FamilyTag<Bl1dImpl>) { return std::make_shared<ClBl1d>(ctx); }

}  // namespace poreflow::ocl
