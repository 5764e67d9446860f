// poreflow bench fluids3d: paper 001's table. For each grid N (SIZE: 32, 64, ..., 288 and 42, 84,
// 168) and backend: the time of the 100-step run of cases/fluids3d.toml's physics (default sources,
// every lin_solve at most 20 sweeps), its speedup against serial, and the lin_solve sweep alone:
// one red-black iteration (both colours, the max change folded on the device) in GB/s from the
// minimal bytes, against the copy bandwidth of the same run. GPU backends time each sweep launch
// shape (the paper's 8x8x8 and 16x16x1 blocks, and a marching 32x8). The sweep runs on the
// colour-packed arrays of the model's solves; their pack and unpack are in the run's time only.
//
// CPU backends may take minutes for a 100-step run at N = 288: a run is timed over the steps that
// fit in the budget (at least one) and scaled to 100 steps; the row's `timing` says so. Each run is
// a single sample. A speedup compares the same steps: the first k steps of both runs, k being the
// steps serial timed (every backend syncs after step k too), with both runs' sweeps a solve over
// them. Every run row is checked (its `checked` says by how much): the fields after 2 steps of a
// separate run against serial double at every N, and the timed run's fields finite with every
// solve's sweep count in [1, 20].
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>

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
std::vector<NamedField> fields_after(Backend& be, const Fluids3DConfig& c, int steps) {
  Fluids3D<T> m(be, c);
  for (int s = 0; s < steps; ++s) m.step(1e9);
  return m.fields();
}

// serial's timed run of a grid: the seconds and the sweeps summed over its solves after each step
struct SerialRun {
  std::vector<double> seconds_at, sweeps_at;
};

// the 2-step fields against serial double. Measured on this machine (serial, omp, PoCL): float
// 2e-6 to 4e-5 at N = 32 to 128, double 0 on the host backends and 4e-16 on PoCL
constexpr double kFloatLimit = 1e-3, kDoubleLimit = 1e-9;

}  // namespace

template <class T>
void bench_fluids3d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw) {
  const auto sizes = parse_sizes(o.sizes.empty() ? "32,64,96,128,160,192,224,256,288,42,84,168" : o.sizes);
  for (auto n : sizes)
    if (n < 8 || n > 2048) throw ConfigError("--sizes: " + std::to_string(n) + " is outside [8, 2048]");
  for (const auto& s : split_list(o.shapes)) check_box_shape(parse_box_shape(s), "--shapes");
  const std::string prec = to_string(precision_of<T>());
  auto serial_ref = make_backend("serial");
  std::map<std::size_t, std::vector<NamedField>> refs;
  std::map<std::size_t, SerialRun> serial_runs;
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
          // serial (first) fixes the steps a speedup compares: its timed steps (all 100 or those in
          // its budget); every later backend syncs after that many steps as well, so each speedup
          // is the time of the same steps of the same run on both backends
          const auto ser = serial_runs.find(n);
          const long k_serial = ser == serial_runs.end() ? 0 : static_cast<long>(ser->second.seconds_at.size());
          auto run = std::make_unique<Fluids3D<T>>(*be, cfg);
          auto& m = *run;
          be->sync();
          const auto t0 = Clock::now();
          long done = 0;
          double el = 0, el_at_k = 0, sweeps = 0, sweeps_at_k = 0;
          std::vector<double> seconds_at, sweeps_at;  // host backends: after every step
          auto solve_sweeps = [&] {
            double s = 0;
            for (const auto& x : m.scheme().solve_status()) s += double(x.sweeps);
            return s;
          };
          while (done < cfg.steps) {
            m.step(1e9);
            ++done;
            if (cpu || done % 10 == 0 || done == k_serial) {
              be->sync();
              el = std::chrono::duration<double>(Clock::now() - t0).count();
              if (cpu) {  // a host read of a few words: the sweep counts of every step
                sweeps += solve_sweeps();
                seconds_at.push_back(el);
                sweeps_at.push_back(sweeps);
              }
              if (done == k_serial) el_at_k = el;
              if (el > budget) break;
            }
          }
          be->sync();
          el = std::chrono::duration<double>(Clock::now() - t0).count();
          // the timed run's checks, then it goes: the runs below need its memory
          bool ok = true;
          for (const auto& s : m.scheme().solve_status())
            ok = ok && !s.non_finite && s.sweeps >= 1 && s.sweeps <= cfg.max_sweeps;
          for (const auto& f : m.fields())
            for (double x : f.values) ok = ok && std::isfinite(x);
          run.reset();
          if (!cpu) {  // the sweep counts of the same steps, untimed: a GPU reads them only after a step's sync
            Fluids3D<T> count(*be, cfg);
            for (long s = 1; s <= done; ++s) {
              count.step(1e9);
              double x = 0;
              for (const auto& st : count.scheme().solve_status()) x += double(st.sweeps);
              sweeps += x;
              if (s == k_serial) sweeps_at_k = sweeps;
            }
          } else if (k_serial > 0 && done >= k_serial) {
            sweeps_at_k = sweeps_at[k_serial - 1];
          }
          if (name == "serial") serial_runs[n] = SerialRun{seconds_at, sweeps_at};
          const double per_run = el / double(done) * double(cfg.steps);
          Timing t;
          t.median = t.min = per_run;
          t.reps = 1;
          // every row against serial double over the same first 2 steps (separate runs: the timed runs
          // take different numbers of steps, and serial double's 100 steps at N = 288 take many minutes)
          auto& want = refs[n];
          if (want.empty()) want = fields_after<double>(*serial_ref, config_for(static_cast<long>(n), BoxShape{}), 2);
          const auto diff = field_difference(want, fields_after<T>(*be, cfg, 2));
          const double limit = sizeof(T) == 4 ? kFloatLimit : kDoubleLimit;
          ok = ok && diff.max_rel <= limit;
          BenchRow r = make_row("fluids3d", name, be->device_name(), "100 steps", "-", prec, n, t, 0);
          r.layout = label;
          r.verified = ok;
          r.checked = fmt::format("the fields after 2 steps (a separate run of the same case) against serial double: max "
                                  "rel diff {:.1e} in {} (limit {:.0e}); the timed run: every field finite, every solve's "
                                  "sweeps in [1, {}]",
                                  diff.max_rel, diff.field, limit, cfg.max_sweeps);
          r.timing = done == cfg.steps
                         ? fmt::format("one run of {} steps, wall clock (a single sample, not a median)", cfg.steps)
                         : fmt::format("one run of {} steps ({:.3g} s, wall clock), scaled to {} steps (a single sample, not "
                                       "a median)",
                                       done, el, cfg.steps);
          r.set("steps_timed", done);
          r.set("seconds_timed", el);
          r.set("sweeps_per_solve", sweeps / double(done * kFluidsSolves));
          std::string vs = "no speedup: no serial run of this grid";
          if (k_serial > 0) {
            // the steps both ran: serial's k, or fewer where this backend stopped first
            const long k = std::min(done, k_serial);
            const double mine = k == done ? el : el_at_k, theirs = ser->second.seconds_at[k - 1];
            const double my_sweeps = k == done ? sweeps : sweeps_at_k, their_sweeps = ser->second.sweeps_at[k - 1];
            r.speedup = theirs / mine;
            r.set("speedup_steps", k);
            r.set("speedup_seconds_serial", theirs);
            r.set("speedup_seconds", mine);
            r.set("speedup_sweeps_per_solve_serial", their_sweeps / double(k * kFluidsSolves));
            r.set("speedup_sweeps_per_solve", my_sweeps / double(k * kFluidsSolves));
            vs = fmt::format("speedup {:.1f} over steps 1-{} of both runs (serial {:.3g} s, {:.2f} sweeps a solve; here "
                             "{:.3g} s, {:.2f})",
                             r.speedup, k, theirs, their_sweeps / double(k * kFluidsSolves), mine,
                             my_sweeps / double(k * kFluidsSolves));
          }
          r.note = fmt::format("{}; {:.2f} sweeps a solve over the timed steps; {}", r.timing,
                               sweeps / double(done * kFluidsSolves), vs);
          if (!ok) spdlog::error("bench fluids3d: {} N={} {}: {}; {}", name, n, label, r.checked, r.note);
          spdlog::info("bench fluids3d: {} N={} {} 100 steps: {:.3f} s ({}; {})", name, n, label, per_run, r.note,
                       r.checked);
          rows.push_back(r);
        }
      }
    }
  }
  // the sweep rows: the same iteration on the same data on every backend
  for (auto& r : rows)
    for (const auto& s : rows)
      if (r.variant == "lin_solve sweep" && s.backend == "serial" && s.variant == r.variant && s.size == r.size &&
          s.t.median > 0 && r.t.median > 0)
        r.speedup = s.t.median / r.t.median;
}

void print_fluids3d_table(const std::vector<BenchRow>& rows) {
  fmt::print("\nfluids3d (paper 001): seconds for 100 steps (measured, or timed over fewer steps and scaled), the speedup\n"
             "against serial over the same steps of both runs, and the lin_solve sweep\n");
  fmt::print("{:>5} {:>8} {:>12} {:>10} {:>6} {:>14} {:>10} {:>8} {:>6}\n", "N", "backend", "shape", "100 steps", "timed",
             "speedup(steps)", "sweep GB/s", "x copy", "ok");
  for (const auto& r : rows) {
    if (r.variant != "100 steps") continue;
    const BenchRow* sw = nullptr;
    for (const auto& s : rows)
      if (s.variant == "lin_solve sweep" && s.backend == r.backend && s.size == r.size && s.layout == r.layout) sw = &s;
    const auto* timed = r.get("steps_timed");
    const auto* k = r.get("speedup_steps");
    const std::string sp = k ? fmt::format("{:.1f} ({})", r.speedup, std::get<long>(*k)) : std::string("-");
    fmt::print("{:>5} {:>8} {:>12} {:>10.3f} {:>6} {:>14} {:>10.0f} {:>8.2f} {:>6}\n", r.size, r.backend, r.layout,
               r.t.median, timed ? std::get<long>(*timed) : 0L, sp, sw ? sw->gbps : 0.0, sw ? sw->ratio_copy : 0.0,
               r.verified && (!sw || sw->verified) ? "yes" : "NO");
  }
}
template void bench_fluids3d<float>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);
template void bench_fluids3d<double>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);

}  // namespace poreflow::app
