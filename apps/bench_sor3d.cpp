// poreflow bench sor3d: one red-black SOR iteration with its residual (both colour sweeps, the
// max |residual| folded on the device) per design and launch shape, for 3D grids, against the
// copy bandwidth of the same run; on cuda also cuSPARSE's product with the same operator. Every
// row is verified against serial double after a few iterations from the same start.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "apps/bench_common.hpp"
#include "apps/bench_kinds.hpp"
#include "apps/common.hpp"
#include "core/base/error.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/sor3d.hpp"
#include "core/physics/sor3d.h"

namespace poreflow::app {

namespace {

struct Grid3 {
  long nx, ny, nz;
  std::string label() const { return fmt::format("{}x{}x{}", nx, ny, nz); }
  long cells() const { return nx * ny * nz; }
};

// "64^3,128^3,512x512x64"
std::vector<Grid3> parse_grids(const std::string& s) {
  std::vector<Grid3> out;
  for (const auto& item : split_list(s)) {
    Grid3 g{0, 0, 0};
    int used = -1;
    const int len = static_cast<int>(item.size());
    if (std::sscanf(item.c_str(), "%ldx%ldx%ld%n", &g.nx, &g.ny, &g.nz, &used) == 3 && used == len) {
    } else if (used = -1; std::sscanf(item.c_str(), "%ld^3%n", &g.nx, &used) == 1 && used == len) {
      g.ny = g.nz = g.nx;
    } else {
      throw ConfigError("--grids: '" + item + "' is not N^3 or NXxNYxNZ");
    }
    if (g.nx < 2 || g.ny < 2 || g.nz < 2 || g.nx > 4096 || g.ny > 4096 || g.nz > 4096)
      throw ConfigError("--grids: '" + item + "': every side must be in [2, 4096]");
    out.push_back(g);
  }
  return out;
}

// A layered-reservoir-like diagonally dominant system on a closed box (no coupling through the
// faces), so every cell changes in every iteration. Colour-packed coefficients (core/base/rb3.h).
struct System {
  Box3 box;
  std::vector<double> p0, coef;
};

System make_system(const Grid3& g) {
  System s;
  s.box = Box3::standalone(g.nx, g.ny, g.nz, 1);
  const Box3& b = s.box;
  s.p0 = bench_random(static_cast<std::size_t>(b.extent()), -1, 1, 11 * g.cells());
  const pf_box3 v = b.view();
  const long m2 = 2 * phys::pf_rb_m(v);
  s.coef.assign(sor3d_coef_values(b), 0.0);
  const auto r = bench_random(static_cast<std::size_t>(8 * g.cells()), 0, 1, 13 * g.cells());
  std::size_t at = 0;
  for (long k = 0; k < g.nz; ++k)
    for (long j = 0; j < g.ny; ++j)
      for (long i = 0; i < g.nx; ++i, at += 8) {
        const long q = phys::pf_rb_of(v, i, j, k);
        const bool has[6] = {i > 0, i + 1 < g.nx, j > 0, j + 1 < g.ny, k > 0, k + 1 < g.nz};
        double sum = 0;
        for (int f = 0; f < 6; ++f) {
          const double t = has[f] ? (0.1 + r[at + f]) * (f >= 4 ? 5.0 : 1.0) : 0.0;
          s.coef[q + f * m2] = t;
          sum += t;
        }
        s.coef[q + PF_SOR_D * m2] = sum + 0.02 + 0.2 * r[at + 6];
        s.coef[q + PF_SOR_R * m2] = 4 * r[at + 7] - 2;
      }
  return s;
}

struct Variant {
  SorDesign design;
  std::string shape;
  int lanes = 0;  // zline on cuda: 1 a thread per column, 32 a warp per column
  std::string label() const {
    return std::string(to_string(design)) + (shape.empty() ? "" : " " + shape) +
           (lanes == 1 ? " thread/column" : lanes == 32 ? " warp/column" : "");
  }
};

// host backends sweep rows by OpenMP whatever the shape: one row per design
std::vector<Variant> variants_for(const std::string& backend, const BenchOptions& o) {
  std::vector<Variant> all;
  if (backend == "serial" || backend == "omp") {
    all = {{SorDesign::Simple, ""}, {SorDesign::Zline, ""}};
  } else {
    for (const char* sh : {"3d:32x4x2", "3d:32x8x1", "march:32x8", "march:32x16", "march:64x4"})
      all.push_back({SorDesign::Simple, sh});
    for (const char* sh : {"march:16x16", "march:32x8", "march:32x16"}) all.push_back({SorDesign::Tiled, sh});
    if (backend == "cuda" || backend == "opencl") {
      all.push_back({SorDesign::Zline, "march:32x4", 1});
      all.push_back({SorDesign::Zline, "march:32x4", 32});
    } else {
      all.push_back({SorDesign::Zline, "march:32x4"});
    }
  }
  auto wanted = split_list(o.variants);
  if (wanted.empty()) return all;
  std::vector<Variant> out;
  for (const auto& v : all)
    if (std::find(wanted.begin(), wanted.end(), to_string(v.design)) != wanted.end()) out.push_back(v);
  return out;
}

const long kVerifyIters = 3;

template <class U>
struct Run {
  Field<U> p, coef, scratch;
  std::unique_ptr<Buffer> ctrl;
  Sor3DArgs a;
  Run(Backend& be, const System& s, const Variant& v, double omega)
      : p(be, s.p0.size()), coef(be, s.coef.size()), scratch(be, v.design == SorDesign::Zline ? 3 * s.box.extent() : 1) {
    coef.upload(std::vector<U>(s.coef.begin(), s.coef.end()));
    ctrl = be.alloc(kControlBytes);
    a.prec = precision_of<U>();
    a.box = s.box;
    a.p = &p.buffer();
    a.coef = &coef.buffer();
    a.omega = omega;
    a.threshold = 0;  // never converges: every iteration does full work
    a.check_every = 1;
    a.design = v.design;
    if (!v.shape.empty()) a.shape = parse_box_shape(v.shape);
    a.ctrl = ctrl.get();
    a.scratch = v.design == SorDesign::Zline ? &scratch.buffer() : nullptr;
    a.zline_lanes = v.lanes;
  }
  void restart(const System& s) { p.upload(std::vector<U>(s.p0.begin(), s.p0.end())); }
};

}  // namespace

template <class T>
void bench_sor3d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw) {
  const auto grids = parse_grids(o.sizes.empty() ? "64^3,128^3,256^3,512x512x64" : o.sizes);
  const double omega = 1.5;
  for (const auto& w : split_list(o.variants))
    if (w != "vendor") (void)parse_sor_design(w);  // ConfigError naming an unknown one
  auto serial_ref = make_backend("serial");
  for (const auto& name : bench_backends(o)) {
    auto be = make_backend(name, bo);
    const double cbw = copy_bandwidth(*be, kCopyBytes);
    bw.emplace_back(name, cbw);
    spdlog::info("bench sor3d: {} on {}: copy {:.1f} GB/s", name, be->device_name(), cbw);
    // every grid's arrays before any is allocated: p, the coefficients and zline's scratch on the
    // backend; on the host the system in double (p0, the coefficients, the random numbers behind
    // them), the serial double reference's arrays, the reference iterate, the result and the uploads in T
    for (const auto& g : grids) {
      const Box3 b = Box3::standalone(g.nx, g.ny, g.nz, 1);
      const std::size_t e = b.extent(), c = sor3d_coef_values(b), cells = std::size_t(g.cells());
      check_bench_memory("bench sor3d at " + g.label(), *be, precision_of<T>(), (4 * e + c) * sizeof(T), c * sizeof(T),
                         (e + c + 8 * cells) * sizeof(double) + (5 * e + c) * sizeof(double) + (2 * e + c) * sizeof(T));
    }
    for (const auto& g : grids) {
      const System s = make_system(g);
      const double n = double(g.cells());
      // per iteration: both sweeps read their colour's 8 coefficient arrays (8 N), each reads every
      // p once (2 N) and writes its half (N)
      const double bytes = 11.0 * n * sizeof(T);
      std::map<SorDesign, std::vector<double>> refs;
      for (const auto& v : variants_for(name, o)) {
        // a host thread's column walks every plane: zline on the CPU backends is slow by design,
        // timed on the small grids only
        if ((name == "serial" || name == "omp") && v.design == SorDesign::Zline && g.cells() > (1L << 21)) continue;
        // the reference: the same design's iterates in double on serial (zline's differ from points')
        std::vector<double>& want = refs[v.design];
        if (want.empty()) {
          Run<double> ref(*serial_ref, s, v, omega);
          ref.restart(s);
          auto sor = serial_ref->sor3d();
          sor.reset(ref.a);
          sor.iterate(ref.a, 0, kVerifyIters);
          sor.status(ref.a, kVerifyIters);
          want = ref.p.download();
        }
        Run<T> run(*be, s, v, omega);
        run.restart(s);
        auto sor = be->sor3d();
        sor.reset(run.a);
        sor.iterate(run.a, 0, kVerifyIters);
        auto st = sor.status(run.a, kVerifyIters);
        auto got = run.p.download();
        double err = 0, scale = 0;
        const Box3& b = s.box;
        for (long k = 0; k < g.nz; ++k)
          for (long j = 0; j < g.ny; ++j)
            for (long i = 0; i < g.nx; ++i) {
              const long at = b.at(i, j, k);
              const double d = std::fabs(double(got[at]) - want[at]);
              err = std::isnan(d) ? INFINITY : std::max(err, d);
              scale = std::max(scale, std::fabs(want[at]));
            }
        // the timing: one iteration a call, the control block's decision included
        long next = kVerifyIters;
        Timing t = measure([&] { sor.iterate(run.a, next++, 1); }, [&] { be->sync(); }, o.target);
        st = sor.status(run.a, next);
        BenchRow r = make_row("sor3d", name, be->device_name(), v.label(), "-", to_string(precision_of<T>()),
                              static_cast<std::size_t>(n), t, bytes);
        r.layout = g.label();
        r.gbps = bytes / t.median / 1e9;
        r.copy_gbps = cbw;
        r.ratio_copy = r.gbps / cbw;
        r.verified = err <= (sizeof(T) == 4 ? 1e-4 : 1e-11) * std::max(scale, 1.0) && !st.converged && !st.non_finite &&
                     st.iterations == next;
        r.note = fmt::format("one iteration (red and black sweeps, residual folded, device-side decision); omega {}; "
                             "max abs diff {:.2e} after {} iterations vs serial double; {:.2f} Gcell/s{}",
                             omega, err, kVerifyIters, n / t.median / 1e9,
                             v.design == SorDesign::Zline ? "; zline also writes and reads its 2 factor arrays (not counted)" : "");
        if (!r.verified)
          spdlog::error("bench sor3d: {} {} {}: diff {:.3e}, iterations {} of {}", name, r.variant, r.layout, err,
                        st.iterations, next);
        spdlog::info("bench sor3d: {} {} {}: {:.1f} us, {:.0f} GB/s ({:.2f} x copy)", name, r.variant, r.layout,
                     t.median * 1e6, r.gbps, r.ratio_copy);
        rows.push_back(r);
      }
      // the vendor anchor: one sparse product with the same operator
      const bool vendor_wanted = o.variants.empty() || o.variants.find("vendor") != std::string::npos;
      if (!be->sor3d().vendor_name().empty() && vendor_wanted) {
        Run<T> run(*be, s, {SorDesign::Simple, ""}, omega);
        Field<T> x(*be, static_cast<std::size_t>(g.cells())), y(*be, static_cast<std::size_t>(g.cells()));
        const auto xv = bench_random(static_cast<std::size_t>(g.cells()), -1, 1, 17);
        x.upload(std::vector<T>(xv.begin(), xv.end()));
        auto sor = be->sor3d();
        sor.vendor_spmv(run.a, x.buffer(), y.buffer());
        be->sync();
        // spot check rows against the operator
        const auto yv = y.download();
        const pf_box3 vw = s.box.view();
        const long m2 = 2 * phys::pf_rb_m(vw);
        double err = 0, scale = 0;
        for (long r = 0; r < g.cells(); r += 97) {
          const long i = r % g.nx, j = (r / g.nx) % g.ny, k = r / (g.nx * g.ny);
          const long q = phys::pf_rb_of(vw, i, j, k);
          auto c = [&](int f) { return double(T(s.coef[q + f * m2])); };
          auto xs = [&](long d, bool has) { return has ? double(T(xv[r + d])) : 0.0; };
          const double want = c(PF_SOR_D) * double(T(xv[r])) - c(PF_SOR_W) * xs(-1, i > 0) -
                              c(PF_SOR_E) * xs(1, i + 1 < g.nx) - c(PF_SOR_S) * xs(-g.nx, j > 0) -
                              c(PF_SOR_N) * xs(g.nx, j + 1 < g.ny) - c(PF_SOR_B) * xs(-g.nx * g.ny, k > 0) -
                              c(PF_SOR_T) * xs(g.nx * g.ny, k + 1 < g.nz);
          const double d = std::fabs(double(yv[r]) - want);
          err = std::isnan(d) ? INFINITY : std::max(err, d);
          scale = std::max(scale, std::fabs(want));
        }
        Timing t = measure([&] { sor.vendor_spmv(run.a, x.buffer(), y.buffer()); }, [&] { be->sync(); }, o.target);
        const double vbytes = sor.vendor_bytes(run.a);
        BenchRow r = make_row("sor3d", name, be->device_name(), sor.vendor_name(), "-", to_string(precision_of<T>()),
                              static_cast<std::size_t>(g.cells()), t, vbytes);
        r.layout = g.label();
        r.gbps = vbytes / t.median / 1e9;
        r.copy_gbps = cbw;
        r.ratio_copy = r.gbps / cbw;
        r.verified = err <= (sizeof(T) == 4 ? 1e-5 : 1e-13) * std::max(scale, 1.0);
        r.note = fmt::format("one y = A x with the same 7-point operator (CSR); bytes: its matrix, x and y; its time "
                             "against one SOR iteration: the anchor of one read of the operator; max abs diff {:.2e} on "
                             "every 97th row",
                             err);
        rows.push_back(r);
      }
    }
  }
}

template void bench_sor3d<float>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);
template void bench_sor3d<double>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);

}  // namespace poreflow::app
