// sor3d on the opencl backend (kernels_cl/sor3d.cl): built per design, launch shape and
// precision; the two colour sweeps of each iteration back to back on the in-order queue.
#include <algorithm>

#include "backends/opencl/box3.hpp"
#include "backends/opencl/families.hpp"
#include "core/kernels/sor3d.hpp"
#include "core/base/error.hpp"
#include "core/physics/sor3d.h"

namespace poreflow::ocl {
namespace {

std::size_t blocks_of(long n, int b) { return static_cast<std::size_t>(std::max<long>(1, (n + b - 1) / b)); }

class ClSor3D final : public Sor3DImpl {
 public:
  explicit ClSor3D(ClContext& ctx) : ctx_(ctx) {}

  void iterate(const Sor3DArgs& a, long first, long count) override {
    ctx_.require_int64_atomics(a.prec);
    const BoxShape& s = a.shape;
    const bool tiled = a.design == SorDesign::Tiled, zline = a.design == SorDesign::Zline;
    const bool march = s.kind == BoxLaunch::March;
    const int bz = march || tiled || zline ? 1 : s.bz;
    const int threads = s.bx * s.by * bz;
    std::string defines = "#define PF_SOR_BX " + std::to_string(s.bx) + "\n#define PF_SOR_BY " + std::to_string(s.by) +
                          "\n#define PF_SOR_BZ " + std::to_string(bz) + "\n";
    if (tiled) {
      const std::size_t bytes = sor3d_tile_bytes(s.bx, s.by, size_of(a.prec)) + threads * 8;
      if (bytes > ctx_.local_mem())
        throw ConfigError("sor3d tiled: a " + to_string(s) + " tile needs " + std::to_string(bytes) +
                          " bytes of local memory, more than the " + std::to_string(ctx_.local_mem()) + " of " +
                          ctx_.device_name());
      defines += "#define PF_SOR_PITCH " + std::to_string(sor3d_tile_pitch(s.bx)) + "\n";
    }
    // zline: 32 work-items per column where one per column leaves the GPU idle (as cuda)
    const long columns = phys::pf_rb_hx(a.box.view()) * a.box.ny;
    const bool wide = zline && sor3d_zline_wide(a.zline_lanes, columns, static_cast<long>(ctx_.compute_units()), ctx_.gpu());
    const std::string base = tiled ? "sor_tiled_" : wide ? "sor_zline_wide_" : zline ? "sor_zline_" : "sor_simple_";
    ClKernel* ks[2] = {&ctx_.kernel("sor3d", a.prec, threads, base + "step", defines),
                       &ctx_.kernel("sor3d", a.prec, threads, base + "check", defines)};
    const pf_box3 b = a.box.view();
    const std::size_t gx = blocks_of(phys::pf_rb_hx(b), s.bx), gy = std::min<std::size_t>(blocks_of(b.ny, s.by), 65535);
    long kchunk = bz;
    std::size_t gz = blocks_of(b.nz, bz);
    if (zline) {
      gz = 1;
    } else if (tiled || march) {
      kchunk = sor3d_kchunk(b.nz, static_cast<long>(gx * gy), threads, static_cast<int>(ctx_.compute_units()));
      gz = blocks_of(b.nz, static_cast<int>(kchunk));
    }
    // the description and the layers of a block, set once; a launch sets its colour, `it` and plan,
    // which follow the layers
    cl_uint extras = 0;
    for (ClKernel* k : ks)
      extras = zline ? ctx_.set_args(*k, a.prec, a.zline_args(), cl_long(kchunk), cl_int(0), cl_long(0), cl_int4{})
                     : ctx_.set_args(*k, a.prec, a.sweep_args(), cl_long(kchunk), cl_int(0), cl_long(0), cl_int4{});
    const std::size_t zblocks = std::min<std::size_t>(blocks_of(columns, wide ? threads / 32 : threads), std::size_t(1) << 30);
    const cl::NDRange global = zline ? cl::NDRange(zblocks * threads, 1, 1) : cl::NDRange(gx * threads, gy, gz),
                      local(threads, 1, 1);
    if (zline && first == 0) {
      ClKernel& f = ctx_.kernel("sor3d", a.prec, threads, "sor_zline_factor_all", defines);
      ctx_.set_args(f, a.prec, a.factor_args());
      ctx_.launch(f, cl::NDRange(blocks_of(b.nx * b.ny, threads) * threads), local);
    }
    for (long it = first; it < first + count; ++it) {
      const FusedPlan p = fused_plan(it, a.check_every);
      ClKernel& k = *ks[p.check];
      for (int c = 0; c < 2; ++c) {
        cl_int4 plan;
        plan.s[0] = c == 0 ? p.decide_slot : -1;
        plan.s[1] = p.check ? p.check_slot : -1;
        plan.s[2] = p.check ? p.clear_slot : -1;
        plan.s[3] = 0;
        ctx_.set(k, extras + 1, cl_int(c));
        ctx_.set(k, extras + 2, cl_long(it));
        ctx_.set(k, extras + 3, plan);
        ctx_.launch(k, global, local);
        if (a.split) a.split->after_sweep(a, c, p);
      }
    }
  }

 private:
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<Sor3DImpl> make_family(ClContext& ctx, FamilyTag<Sor3DImpl>) { return std::make_shared<ClSor3D>(ctx); }

}  // namespace poreflow::ocl
