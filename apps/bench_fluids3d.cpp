// poreflow bench fluids3d: paper 001's table. For each grid N (SIZE: 32, 64, ..., 288 and 42, 84,
// 168) and backend: the time of the 100-step run of cases/fluids3d.toml's physics (default sources,
// every lin_solve at most 20 sweeps), its speedup against serial, and the lin_solve sweep alone:
// one red-black iteration (both colours, the max change folded on the device) in GB/s from the
// minimal bytes, against the copy bandwidth of the same run. GPU backends time each sweep launch
// shape (the paper's 8x8x8 and 16x16x1 blocks, and a marching 32x8). The sweep runs on the
// colour-packed arrays of the model's solves; their pack and unpack are in the run's time only.
//
// CPU backends may take minutes for a 100-step run at N = 288: a run is timed over the steps that
// fit in the budget (at least one) and scaled to 100 steps; the note says so. Every run row is
// checked: its fields after 2 steps against serial double where N <= 96, elsewhere finite with
// every solve's sweep count in [1, 20].
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "apps/bench_common.hpp"
#include "apps/bench_kinds.hpp"
#include "apps/common.hpp"
#include "core/base/error.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/fluids3d.hpp"
#include "core/models/fluids3d.hpp"

namespace poreflow::app {

namespace {

using Clock = std::chrono::steady_clock;

Fluids3DConfig config_for(long n, const BoxShape& shape) {
  Fluids3DConfig c;  // the case's physics: dt 0.1, viscosity and diffusion 1e-4, tolerance 1e-7, 20 sweeps
  c.n = n;
  c.steps = 100;
  c.sweep_shape = shape;
  const long m = (n - 1) / 2;
  FluidsSource d;
  d.cell = {m, m, m};
  d.rate = 1000;
  d.last_step = 10;
  FluidsSource f = d;
  f.density = false;
  f.force = {0, 50, 0};
  c.sources = {d, f};
  return c;
}

std::vector<BoxShape> shapes_for(const std::string& backend, const BenchOptions& o) {
  if (backend == "serial" || backend == "omp") return {BoxShape{}};
  std::vector<BoxShape> out;
  for (const auto& s : split_list(o.shapes.empty() ? "march:32x8,3d:8x8x8,3d:16x16x1" : o.shapes)) out.push_back(parse_box_shape(s));
  return out;
}

template <class T>
std::vector<std::vector<double>> fields_after(Backend& be, const Fluids3DConfig& c, int steps) {
  Fluids3D<T> m(be, c);
  for (int s = 0; s < steps; ++s) m.step(1e9);
  std::vector<std::vector<double>> out;
  for (auto& f : m.fields()) out.push_back(std::move(f.values));
  return out;
}

}  // namespace

template <class T>
void bench_fluids3d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw) {
  const auto sizes = parse_sizes(o.sizes.empty() ? "32,64,96,128,160,192,224,256,288,42,84,168" : o.sizes);
  for (auto n : sizes)
    if (n < 8 || n > 2048) throw ConfigError("--sizes: " + std::to_string(n) + " is outside [8, 2048]");
  for (const auto& s : split_list(o.shapes)) check_box_shape(parse_box_shape(s), "--shapes");
  const std::string prec = to_string(precision_of<T>());
  auto serial_ref = make_backend("serial");
  std::map<std::size_t, std::vector<std::vector<double>>> refs;
  for (const auto& name : bench_backends(o)) {
    auto be = make_backend(name, bo);
    const double cbw = copy_bandwidth(*be, kCopyBytes);
    bw.emplace_back(name, cbw);
    spdlog::info("bench fluids3d: {} on {}: copy {:.1f} GB/s", name, be->device_name(), cbw);
    const bool cpu = be->is_host();
    const double budget = cpu ? o.serial_budget : o.device_budget;
    for (const auto n : sizes) {
      const double cells = double(n) * double(n) * double(n);
      for (const auto& shape : shapes_for(name, o)) {
        const std::string label = cpu ? std::string("-") : to_string(shape);
        const Fluids3DConfig cfg = config_for(static_cast<long>(n), shape);
        try {
          check_memory(fluids3d_need(cfg, precision_of<T>(), cpu), precision_of<T>(), *be);
        } catch (const ConfigError& e) {
          spdlog::warn("bench fluids3d: {} N={} skipped: {}", name, n, e.what());
          continue;
        }
        // ---- the lin_solve sweep alone: one iteration (red and black), device-side decision --------
        {
          const Box3 box = Box3::standalone(static_cast<long>(n), static_cast<long>(n), static_cast<long>(n), 1);
          // the colour-packed arrays the model's solves run on (their unused slots hold random values too)
          const std::size_t np = fluids3d_packed_values(box);
          const auto xr = bench_random(np, -1, 1, 7 * n), x0r = bench_random(np, -1, 1, 9 * n);
          Field<T> x(*be, np), x0(*be, np);
          x.upload(std::vector<T>(xr.begin(), xr.end()));
          x0.upload(std::vector<T>(x0r.begin(), x0r.end()));
          auto ctrl = be->alloc(fluids3d_ctrl_bytes(1));
          auto k = be->fluids3d();
          k.reset(*ctrl, 1);
          FluidsSolveArgs a;
          a.prec = precision_of<T>();
          a.box = box;
          a.x = &x.buffer();
          a.x0 = &x0.buffer();
          a.a = 0.1 * 1e-4 * double(n) * double(n);  // the case's diffusion
          a.c = 1 + 6 * a.a;
          a.tolerance = 0;  // never stops: every iteration does full work
          a.shape = shape;
          a.ctrl = ctrl.get();
          long next = 0;
          k.solve(a, next++, 1);
          be->sync();
          // the copy rate measured again just before and after the sweep, the ratio against their mean:
          // the H100 host's CPU memory rate drifted by 2x between runs minutes apart
          // (docs/benchmarks.md), so one figure per backend misled
          const double cbw_before = copy_bandwidth(*be, kCopyBytes);
          const Timing t = measure([&] { k.solve(a, next++, 1); }, [&] { be->sync(); }, o.target);
          const double cbw_after = copy_bandwidth(*be, kCopyBytes), near_cbw = 0.5 * (cbw_before + cbw_after);
          std::vector<unsigned long long> w(PF_CV_WORDS);
          be->download(*ctrl, w.data(), w.size() * sizeof(unsigned long long));
          const auto st = Fluids3DKernels::decode(w.data(), 0, precision_of<T>(), next);
          // each colour's sweep reads every x once (its own and its neighbours, the other colour),
          // its half of x0 and writes its half of x: 2 N^3 values a colour (ghost writes not counted)
          const double bytes = 4.0 * cells * sizeof(T);
          BenchRow r = make_row("fluids3d", name, be->device_name(), "lin_solve sweep", "-", prec, n, t, bytes);
          r.layout = label;
          r.gbps = bytes / t.median / 1e9;
          r.copy_gbps = near_cbw;
          r.ratio_copy = r.gbps / near_cbw;
          r.verified = !st.non_finite && !st.converged && st.sweeps == next && std::isfinite(st.last_change);
          r.note = fmt::format("one red-black iteration, max change folded and decided on the device; {:.2f} Gcell/s; "
                               "bytes 4 N^3 values (each colour: all x, its half of x0, writes its half); copy {:.1f} GB/s before, "
                               "{:.1f} after",
                               cells / t.median / 1e9, cbw_before, cbw_after);
          spdlog::info("bench fluids3d: {} N={} {} sweep: {:.1f} us, {:.0f} GB/s ({:.2f} x copy of {:.0f}/{:.0f} GB/s before/after)",
                       name, n, label, t.median * 1e6, r.gbps, r.ratio_copy, cbw_before, cbw_after);
          rows.push_back(r);
        }
        // ---- the 100-step run ----------------------------------------------------------------------
        {
          if (!cpu) {  // a warm-up run: OpenCL builds its programs, CUDA loads its modules
            Fluids3D<T> warm(*be, cfg);
            warm.step(1e9);
            be->sync();
          }
          Fluids3D<T> m(*be, cfg);
          be->sync();
          const auto t0 = Clock::now();
          long done = 0;
          double el = 0;
          while (done < cfg.steps) {
            m.step(1e9);
            ++done;
            if (cpu || done % 10 == 0) {
              be->sync();
              el = std::chrono::duration<double>(Clock::now() - t0).count();
              if (el > budget) break;
            }
          }
          be->sync();
          el = std::chrono::duration<double>(Clock::now() - t0).count();
          const double per_run = el / double(done) * double(cfg.steps);
          Timing t;
          t.median = t.min = per_run;
          t.reps = 1;
          const auto st = m.scheme().solve_status();
          double sweeps = 0;
          for (const auto& s : st) sweeps += double(s.sweeps) / double(kFluidsSolves);
          bool ok = true;
          for (const auto& s : st) ok = ok && !s.non_finite && s.sweeps >= 1 && s.sweeps <= cfg.max_sweeps;
          for (const auto& f : m.fields())
            for (double x : f.values) ok = ok && std::isfinite(x);
          std::string check = "finite, sweeps in [1, 20]";
          if (n <= 96) {
            auto& want = refs[n];
            if (want.empty()) want = fields_after<double>(*serial_ref, config_for(static_cast<long>(n), BoxShape{}), 2);
            const auto got = fields_after<T>(*be, cfg, 2);
            double worst = 0;
            for (std::size_t q = 0; q < want.size(); ++q) {
              double scale = 1e-30, d = 0;
              for (std::size_t c = 0; c < want[q].size(); ++c) {
                scale = std::max(scale, std::fabs(want[q][c]));
                d = std::max(d, std::fabs(got[q][c] - want[q][c]));
                if (!std::isfinite(got[q][c])) d = INFINITY;
              }
              worst = std::max(worst, d / scale);
            }
            ok = ok && worst <= (sizeof(T) == 4 ? 1e-3 : 1e-9);
            check = fmt::format("fields after 2 steps vs serial double: max rel diff {:.1e}", worst);
          }
          BenchRow r = make_row("fluids3d", name, be->device_name(), "100 steps", "-", prec, n, t, 0);
          r.layout = label;
          r.verified = ok;
          r.note = fmt::format("{}{}; last step: {:.1f} sweeps a solve; {}", done < cfg.steps ? "timed " : "",
                               done < cfg.steps ? fmt::format("{} steps ({:.2f} s) and scaled to 100", done, el) : "100 steps",
                               sweeps, check);
          if (!ok) spdlog::error("bench fluids3d: {} N={} {}: {}", name, n, label, r.note);
          spdlog::info("bench fluids3d: {} N={} {} 100 steps: {:.3f} s ({})", name, n, label, per_run, r.note);
          rows.push_back(r);
        }
      }
    }
  }
  // speedups against serial's row of the same grid and kind
  for (auto& r : rows)
    for (const auto& s : rows)
      if (s.backend == "serial" && s.variant == r.variant && s.size == r.size && s.t.median > 0 && r.t.median > 0)
        r.speedup = s.t.median / r.t.median;
}

void print_fluids3d_table(const std::vector<BenchRow>& rows) {
  fmt::print("\nfluids3d (paper 001): seconds for 100 steps, speedup vs serial, and the lin_solve sweep\n");
  fmt::print("{:>5} {:>8} {:>12} {:>10} {:>8} {:>10} {:>8} {:>6}\n", "N", "backend", "shape", "100 steps", "speedup",
             "sweep GB/s", "x copy", "ok");
  for (const auto& r : rows) {
    if (r.variant != "100 steps") continue;
    const BenchRow* sw = nullptr;
    for (const auto& s : rows)
      if (s.variant == "lin_solve sweep" && s.backend == r.backend && s.size == r.size && s.layout == r.layout) sw = &s;
    fmt::print("{:>5} {:>8} {:>12} {:>10.3f} {:>8.1f} {:>10.0f} {:>8.2f} {:>6}\n", r.size, r.backend, r.layout, r.t.median,
               r.speedup, sw ? sw->gbps : 0.0, sw ? sw->ratio_copy : 0.0, r.verified && (!sw || sw->verified) ? "yes" : "NO");
  }
}

template void bench_fluids3d<float>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);
template void bench_fluids3d<double>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);

}  // namespace poreflow::app
