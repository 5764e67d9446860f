// fluids3d on the opencl backend (kernels_cl/fluids3d.cl): the sweep built per launch shape and
// precision, the box kernels per box shape; a solve's sweeps back to back on the in-order queue,
// the stop decided on the device.
#include <algorithm>

#include "backends/opencl/box3.hpp"
#include "backends/opencl/families.hpp"
#include "core/kernels/fluids3d.hpp"
#include "core/base/error.hpp"
#include "core/base/rb3.h"
#include "core/physics/fluids3d.h"

namespace poreflow::ocl {
namespace {

std::size_t blocks_of(long n, int b) { return static_cast<std::size_t>(std::max<long>(1, (n + b - 1) / b)); }

class ClFluids3D final : public Fluids3DImpl {
 public:
  explicit ClFluids3D(ClContext& ctx) : ctx_(ctx) {}

  void add_source(const FluidsSourceArgs& a) override {
    const long ni = a.i1 - a.i0 + 1, nj = a.j1 - a.j0 + 1, nk = a.k1 - a.k0 + 1;
    const BoxLaunchCl l = box_launch(ni, nj, nk, a.shape);
    // the build of the whole box's kernels (the same program)
    ClKernel& k = ctx_.kernel("fluids3d", a.prec, l.threads, "fl_source", box_launch_cells(a.box.view(), a.shape).defines);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, l.global, l.local);
  }

  void boundary(const FluidsBoundaryArgs& a) override {
    const int threads = 256;
    ClKernel& k = ctx_.kernel("fluids3d", a.prec, threads, "fl_boundary");
    ctx_.set_args(k, a.prec, a.kernel_args());
    const long n = phys::fl_boundary_cells(a.box.view());
    ctx_.launch(k, std::min<std::size_t>(blocks_of(n, threads), std::size_t(1) << 20) * threads, threads);
  }

  void pack(const FluidsPackArgs& a) override {
    const pf_box3 b = a.box.view();
    const BoxLaunchCl l = box_launch_cells(b, a.shape);
    ClKernel& k = ctx_.kernel("fluids3d", a.prec, l.threads, "fl_pack", l.defines);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, l.global, l.local);
  }

  void unpack(const FluidsUnpackArgs& a) override {
    const pf_box3 b = a.box.view();
    const BoxLaunchCl l = box_launch_cells(b, a.shape);
    ClKernel& k = ctx_.kernel("fluids3d", a.prec, l.threads, "fl_unpack", l.defines);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, l.global, l.local);
  }

  void solve(const FluidsSolveArgs& a, long first, long count) override {
    ctx_.require_int64_atomics(a.prec);
    const BoxShape& s = a.shape;
    const bool march = s.kind == BoxLaunch::March;
    const int bz = march ? 1 : s.bz;
    const int threads = s.bx * s.by * bz;
    const pf_box3 b = a.box.view();
    const bool narrow = !a.wide_index && fluids3d_narrow_index(b);
    const bool flat = fluids3d_flat_sweep(s);
    const std::string defines = "#define PF_RB_BX " + std::to_string(s.bx) + "\n#define PF_RB_BY " + std::to_string(s.by) +
                                "\n#define PF_RB_BZ " + std::to_string(bz) + "\n#define PF_RB_INDEX " +
                                (narrow ? "int" : "long") + "\n#define PF_RB_FLAT " + (flat ? "1" : "0") + "\n";
    ClKernel& k = ctx_.kernel("fluids3d", a.prec, threads, "fl_sweep", defines);
    const std::size_t gx = flat ? blocks_of(phys::pf_rb_hx(b) * b.ny, threads) : blocks_of(phys::pf_rb_hx(b), s.bx);
    const std::size_t gy = flat ? 1 : std::min<std::size_t>(blocks_of(b.ny, s.by), 65535);
    // the layers of a block for a part of nz layers (fluids3d_sweep_parts), and its launch
    auto kchunk_of = [&](long nz) {
      return march ? fluids3d_sweep_layers(nz, static_cast<long>(gx * gy), threads, static_cast<int>(ctx_.compute_units())) : long(bz);
    };
    // the description, set once; a launch sets its layers, colour, `it`, plan and part
    const cl_uint extras =
        ctx_.set_args(k, a.prec, a.sweep_args(), cl_long(kchunk_of(b.nz)), cl_int(0), cl_long(0), cl_int4{}, cl_long(0), cl_long(b.nz));
    const cl::NDRange local(threads, 1, 1);
    const FluidsSweepParts parts = fluids3d_sweep_parts(b.nz, a.split != nullptr);
    for (long it = first; it < first + count; ++it) {
      const FusedPlan p = fused_plan(it, 1);
      for (int c = 0; c < 2; ++c) {
        cl_int4 plan;
        plan.s[0] = c == 0 ? p.decide_slot : -1;  // every part decides alike (pf_cv_fused_stop)
        plan.s[1] = p.check_slot;
        plan.s[2] = p.clear_slot;
        plan.s[3] = 0;
        ctx_.set(k, extras + 1, cl_int(c));
        ctx_.set(k, extras + 2, cl_long(it));
        ctx_.set(k, extras + 3, plan);
        for (int q = 0; q <= parts.n; ++q) {
          if (q == parts.outer && a.split) a.split->outer_swept(a, c, p);
          if (q == parts.n) break;
          const long kchunk = kchunk_of(parts.count[q]);
          ctx_.set(k, extras + 0, cl_long(kchunk));
          ctx_.set(k, extras + 4, cl_long(parts.first[q]));
          ctx_.set(k, extras + 5, cl_long(parts.count[q]));
          ctx_.launch(k, cl::NDRange(gx * threads, gy, blocks_of(parts.count[q], static_cast<int>(kchunk))), local);
        }
        if (a.split) a.split->after_sweep(a, c, p);
      }
    }
  }

  void advect(const FluidsAdvectArgs& a) override {
    const pf_box3 b = a.box.view();
    const BoxLaunchCl l = box_launch_cells(b, a.shape);
    ClKernel& k = ctx_.kernel("fluids3d", a.prec, l.threads, "fl_advect", l.defines);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, l.global, l.local);
  }

  void divergence(const FluidsDivergenceArgs& a) override {
    const pf_box3 b = a.box.view();
    const BoxLaunchCl l = box_launch_cells(b, a.shape);
    ClKernel& k = ctx_.kernel("fluids3d", a.prec, l.threads, "fl_divergence", l.defines);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, l.global, l.local);
  }

  void gradient(const FluidsGradientArgs& a) override {
    const pf_box3 b = a.box.view();
    const BoxLaunchCl l = box_launch_cells(b, a.shape);
    ClKernel& k = ctx_.kernel("fluids3d", a.prec, l.threads, "fl_gradient", l.defines);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, l.global, l.local);
  }

 private:
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<Fluids3DImpl> make_family(ClContext& ctx, FamilyTag<Fluids3DImpl>) { return std::make_shared<ClFluids3D>(ctx); }

}  // namespace poreflow::ocl
