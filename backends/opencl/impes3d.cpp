// impes3d on the opencl backend (kernels_cl/impes3d.cl): one program per precision, launch shape
// and place of the tables (__constant when they fit the device's constant buffer).
#include "backends/opencl/box3.hpp"
#include "backends/opencl/families.hpp"
#include "core/kernels/impes3d.hpp"
#include "core/base/error.hpp"

namespace poreflow::ocl {
namespace {

class ClImpes3D final : public Impes3DImpl {
 public:
  explicit ClImpes3D(ClContext& ctx) : ctx_(ctx) {
    cl_ulong bytes = 0;
    PF_CHECK_CL(ctx_.device().getInfo(CL_DEVICE_MAX_CONSTANT_BUFFER_SIZE, &bytes));
    constant_bytes_ = bytes;
  }

  void props(const Impes3DPropsArgs& a) override {
    const BoxLaunchCl l = box_launch(a.grid.box.nx, a.grid.box.ny, a.grid.box.nz, a.shape);
    ClKernel& k = kernel(a.prec, l, a.tables, "imp_props");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, l.global, l.local);
  }

  void assemble(const Impes3DAssembleArgs& a) override {
    const BoxLaunchCl l = box_launch(a.grid.box.nx, a.grid.box.ny, a.grid.box.nz, a.shape);
    ClKernel& k = kernel(a.prec, l, Impes3DTables{}, "imp_assemble");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, l.global, l.local);
  }

  void wells_prepare(const Impes3DWellArgs& a) override {
    const BoxLaunchCl l = well_launch(a);
    ClKernel& k = kernel(a.prec, l, a.tables, "imp_wells_prepare");
    ctx_.set_args(k, a.prec, a.prepare_args());
    ctx_.launch(k, l.global, l.local);
  }

  void wells_finish(const Impes3DWellArgs& a) override {
    const BoxLaunchCl l = well_launch(a);
    ClKernel& k = kernel(a.prec, l, Impes3DTables{}, "imp_wells_finish");
    ctx_.set_args(k, a.prec, a.finish_args());
    ctx_.launch(k, l.global, l.local);
  }

  void wells_couple(const Impes3DWellArgs& a) override {
    const BoxLaunchCl l = well_launch(a);
    ClKernel& k = kernel(a.prec, l, Impes3DTables{}, "imp_wells_couple");
    ctx_.set_args(k, a.prec, a.couple_args());
    ctx_.launch(k, l.global, l.local);
  }

  void wells_apply(const Impes3DWellArgs& a) override {
    const BoxLaunchCl l = well_launch(a);
    ClKernel& k = kernel(a.prec, l, Impes3DTables{}, "imp_wells_apply");
    ctx_.set_args(k, a.prec, a.apply_args());
    ctx_.launch(k, l.global, l.local);
  }

  void update(const Impes3DUpdateArgs& a) override {
    ctx_.require_int64_atomics(a.prec);
    const BoxLaunchCl l = box_launch(a.grid.box.nx, a.grid.box.ny, a.grid.box.nz, a.shape);
    ClKernel& k = kernel(a.prec, l, a.tables, "imp_update");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, l.global, l.local);
  }

 private:
  // the wells' launch: groups of a fixed small size (the program is built for it, with a 32-wide
  // box shape that no box kernel of that program uses)
  BoxLaunchCl well_launch(const Impes3DWellArgs& a) const {
    BoxShape s;
    s.kind = BoxLaunch::March;
    s.bx = 32;
    s.by = 1;
    BoxLaunchCl l = box_launch(a.wells, 1, 1, s);
    l.global = cl::NDRange(static_cast<std::size_t>((a.wells + 31) / 32 * 32));
    l.local = cl::NDRange(32);
    return l;
  }

  bool use_constant(const Impes3DTables& t, Precision prec) const {
    if (!t.prm || t.space == TableSpace::Global) return false;
    const bool fits = t.values * size_of(prec) <= constant_bytes_;
    if (t.space == TableSpace::Constant && !fits)
      throw ConfigError("impes3d: " + std::to_string(t.values) + " parameter and table values do not fit in the " +
                        std::to_string(constant_bytes_) + "-byte constant buffer of " + ctx_.device_name() +
                        "; use tables = \"global\"");
    return fits;
  }

  ClKernel& kernel(Precision prec, const BoxLaunchCl& l, const Impes3DTables& t, const char* name) {
    std::string defines = l.defines;
    defines += use_constant(t, prec) ? "#define PF_TABLE_SPACE __constant\n" : "#define PF_TABLE_SPACE __global\n";
    return ctx_.kernel("impes3d", prec, l.threads, name, defines);
  }

  ClContext& ctx_;
  std::size_t constant_bytes_ = 0;
};

}  // namespace

FamilyPtr<Impes3DImpl> make_family(ClContext& ctx, FamilyTag<Impes3DImpl>) { return std::make_shared<ClImpes3D>(ctx); }

}  // namespace poreflow::ocl
