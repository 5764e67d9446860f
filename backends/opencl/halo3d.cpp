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
    run(a.prec, a.box, dir, a.shape, "halo3d_pass", a.pass_args(dir));
  }
  void pack(const Halo3DPackArgs& a) override { run(a.prec, a.box, a.dir, a.shape, "halo3d_pack", a.kernel_args()); }

 private:
  // the face index space of direction dir is (u, v) by 2 halo layers: a 3D launch whatever the box's shape
  template <class Args>
  void run(Precision prec, const Box3& box, int dir, const BoxShape& shape, const char* name, const Args& args) {
    long nu, nv;
    phys::pf_halo_extent(box.view(), dir, &nu, &nv);
    BoxShape s = shape;
    s.kind = BoxLaunch::Blocks3D;
    s.bz = 1;
    const BoxLaunchCl l = box_launch(nu, nv, 2 * box.halo, s);
    ClKernel& k = ctx_.kernel("halo3d", prec, l.threads, name, l.defines);
    ctx_.set_args(k, prec, args);
    ctx_.launch(k, l.global, l.local);
  }

  ClContext& ctx_;
};

}  // namespace

FamilyPtr<Halo3DImpl> make_family(ClContext& ctx, FamilyTag<Halo3DImpl>) { return std::make_shared<ClHalo3D>(ctx); }

}  // namespace poreflow::ocl
