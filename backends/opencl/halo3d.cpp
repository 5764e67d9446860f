// halo3d on the opencl backend (kernels_cl/halo3d.cl), built per launch shape.
#include "backends/opencl/box3.hpp"
#include "backends/opencl/families.hpp"
#include "core/kernels/halo3d.hpp"
#include "core/physics/halo3d.h"

namespace poreflow::ocl {
namespace {

class ClHalo3D final : public Halo3DImpl {
 public:
  explicit ClHalo3D(ClContext& ctx) : ctx_(ctx) {}
  void fill_pass(const Halo3DFillArgs& a, int dir) override {
    const pf_box3 b = a.box.view();
    long nu, nv;
    phys::pf_halo_extent(b, dir, &nu, &nv);
    // the face index space is (u, v) by 2 halo layers: a 3D launch whatever the box's shape
    BoxShape s = a.shape;
    s.kind = BoxLaunch::Blocks3D;
    s.bz = 1;
    const BoxLaunchCl l = box_launch(nu, nv, 2 * b.halo, s);
    ClKernel& k = ctx_.kernel("halo3d", a.prec, l.threads, "halo3d_pass", l.defines);
    ctx_.set_args(k, a.prec, a.pass_args(dir));
    ctx_.launch(k, l.global, l.local);
  }

 private:
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<Halo3DImpl> make_family(ClContext& ctx, FamilyTag<Halo3DImpl>) { return std::make_shared<ClHalo3D>(ctx); }

}  // namespace poreflow::ocl
