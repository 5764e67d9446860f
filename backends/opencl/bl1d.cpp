// bl1d on the opencl backend (kernels_cl/bl1d.cl), one work-item per face or point.
#include "backends/opencl/families.hpp"
#include "core/kernels/bl1d.hpp"

namespace poreflow::ocl {
namespace {

class ClBl1d final : public Bl1dImpl {
 public:
  explicit ClBl1d(ClContext& ctx) : ctx_(ctx) {}

  void face_mobility(const BLFaceMobilityArgs& a) override {
    Args k = kernel(a.prec, "bl1d_face_mobility");
    k.buf(a.s).buf(a.mface).set(cl_ulong(a.n - 1)).real(a.phys.k).real(a.phys.mu_w).real(a.phys.mu_o);
    ctx_.launch_points(k.kernel(), a.n - 1);
  }

  void face_velocity(const BLFaceVelocityArgs& a) override {
    Args k = kernel(a.prec, "bl1d_face_velocity");
    k.buf(a.p).buf(a.mface).buf(a.u).set(cl_ulong(a.n - 1)).real(a.inv_h);
    ctx_.launch_points(k.kernel(), a.n - 1);
  }

  void saturation(const BLSaturationArgs& a) override {
    Args k = kernel(a.prec, "bl1d_saturation");
    k.buf(a.s_old).buf(a.u).buf(a.s_new).set(cl_ulong(a.n)).real(a.c).real(a.s_inj).real(a.phys.mu_w).real(a.phys.mu_o);
    ctx_.launch_points(k.kernel(), a.n);
  }

  void pressure_system(const BLPressureSystemArgs& a) override {
    Args k = kernel(a.prec, "bl1d_pressure_system");
    k.buf_or_null(a.mface).set(cl_ulong(a.n)).real(a.p_left).real(a.p_right).buf(a.a).buf(a.b).buf(a.c).buf(a.d);
    ctx_.launch_points(k.kernel(), a.n);
  }

 private:
  Args kernel(Precision prec, const char* name) { return Args(ctx_, ctx_.kernel("bl1d", prec, ctx_.fast_block(), name), prec); }
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<Bl1dImpl> make_family(ClContext& ctx, FamilyTag<Bl1dImpl>) { return std::make_shared<ClBl1d>(ctx); }

}  // namespace poreflow::ocl
