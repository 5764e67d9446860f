// poreflow bench impes3d: paper 003's measurements on today's hardware. Per backend, for case 1's
// NX:NY:NZ variants at 921 600 cells, the figure-10 series (NX = NY = 16/3 NZ) and case 2: the
// time per step, cell updates per second, SOR iterations per step and the speedup against serial
// over the same steps; and the whole of case 2 (100 report steps over 450 days). Every backend
// takes the same untimed first step and times the same following steps (as many as the grid's
// first backend fitted in its budget). A row is verified by its fields after those steps against
// a reference run of the same steps in double (serial; omp above --serial-max-cells) and by both
// phases' mass balance; the whole case by its production against serial's. Each row's `checked`
// says what it compared and by how much.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <map>

#include "apps/bench_kinds.hpp"
#include "apps/common.hpp"
#include "core/io/cases/cases.hpp"
#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/run/registry.hpp"
#include "core/models/impes3d.hpp"

namespace poreflow::app {

namespace {

struct Item {
  std::string label;  // case1 | fig10 | case2 | case2-full
  std::string file;   // impes_case1.toml | impes_case2.toml
  long nx = 0, ny = 0, nz = 0;  // 0: the case's own grid
  bool full = false;            // the whole case instead of a few steps
};

std::vector<Item> parse_items(const std::string& s) {
  const std::string all =
      "case1:960x960x1,case1:480x480x4,case1:240x240x16,case1:120x120x64,case1:96x96x100,case1:16x16x3600,"
      "fig10:80x80x15,fig10:128x128x24,fig10:160x160x30,fig10:192x192x36,fig10:240x240x45,fig10:256x256x48,"
      "fig10:320x320x60,case2,case2-full";
  std::vector<Item> out;
  for (const auto& w : split_list(s.empty() ? all : s)) {
    Item it;
    const auto colon = w.find(':');
    it.label = w.substr(0, colon);
    if (it.label == "case1" || it.label == "fig10") {
      it.file = "impes_case1.toml";
    } else if (it.label == "case2" || it.label == "case2-full") {
      it.file = "impes_case2.toml";
      it.full = it.label == "case2-full";
    } else {
      throw ConfigError("--cases: '" + w + "': expected case1:NXxNYxNZ, fig10:NXxNYxNZ, case2 or case2-full");
    }
    if (colon != std::string::npos) {
      int used = -1;
      const char* g = w.c_str() + colon + 1;
      if (std::sscanf(g, "%ldx%ldx%ld%n", &it.nx, &it.ny, &it.nz, &used) != 3 || used != int(std::strlen(g)) || it.nx < 1 ||
          it.ny < 1 || it.nz < 1)
        throw ConfigError("--cases: '" + w + "': the grid must be NXxNYxNZ with positive sides");
    }
    out.push_back(it);
  }
  return out;
}

io::CaseFile load_item(const Item& it, const std::string& dir) {
  auto cf = io::CaseFile::load(std::filesystem::path(dir) / it.file);
  if (it.nx > 0) {
    cf.set("grid.nx=" + std::to_string(it.nx));
    cf.set("grid.ny=" + std::to_string(it.ny));
    cf.set("grid.nz=" + std::to_string(it.nz));
  }
  return cf;
}

// the fields after the timed steps against the reference run's in double. Measured on this
// machine (serial, omp, PoCL): float 2e-5 (case 1 at 96x96x10, case 2, 11 steps); double 0 on the
// host backends and 3.5e-9 in S_w on PoCL (case 2, 5 steps): the SOR solves stop at their
// tolerance, and another reduction order stops one an iteration apart. Far below what a wrong
// kernel gives (percents).
constexpr double kFloatFieldLimit = 1e-3, kDoubleFieldLimit = 1e-6;

bool balanced(const std::map<std::string, double>& st, double tol) {
  return st.at("mass_balance_water_rel") <= tol && st.at("mass_balance_oil_rel") <= tol;
}

}  // namespace

template <class T>
void bench_impes3d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw) {
  const auto items = parse_items(o.cases);
  const double tol = sizeof(T) == 4 ? 1e-3 : 1e-8;
  std::map<std::string, long> steps_of;     // grid label -> the steps serial timed (every backend times as many)
  std::map<std::string, double> serial_oil;  // case2-full: serial's cumulative oil
  std::map<std::string, std::vector<NamedField>> refs;  // grid label -> the reference's fields after the timed steps
  const auto names = bench_backends(o);
  const auto compiled = available_backends();
  auto ref_available = [&](const std::string& n) { return std::find(compiled.begin(), compiled.end(), n) != compiled.end(); };
  for (const auto& name : names) {
    auto be = make_backend(name, bo);
    bw.emplace_back(name, copy_bandwidth(*be, kCopyBytes));
    const bool cpu = name == "serial" || name == "omp";
    const double budget = cpu ? o.serial_budget : o.device_budget;
    for (const auto& it : items) {
      if (name == "serial" && double(it.nx) * double(it.ny) * double(it.nz) > double(o.serial_max_cells)) {
        spdlog::info("bench impes3d: serial {}:{}x{}x{} skipped: over --serial-max-cells {}", it.label, it.nx, it.ny, it.nz,
                     o.serial_max_cells);
        continue;
      }
      auto cf = load_item(it, o.cases_dir);
      auto cfg = read_impes3d_case(cf, *be, precision_of<T>()).config;
      const auto& g = cfg.input.grid;
      const std::string grid = fmt::format("{}x{}x{}", g.nx, g.ny, g.nz);
      const std::string key = it.label + " " + grid;
      const double cells = double(g.nx) * g.ny * g.nz;
      BenchRow r = make_row("impes3d", name, be->device_name(), it.label, "-", to_string(precision_of<T>()),
                            static_cast<std::size_t>(cells), Timing{}, 0);
      r.layout = grid;
      try {
        if (it.full) {
          {  // warm-up: programs built, first touch
            Impes3D<T> warm(*be, cfg);
            warm.step(warm.end_time());
            be->sync();
          }
          Impes3D<T> model(*be, cfg);
          OutputOptions out;
          out.enabled = false;
          auto rep = run_model(model, out, false);
          r.t = Timing{rep.wall_seconds, rep.wall_seconds, 1};
          const auto& st = rep.stats;
          r.verified = balanced(st, tol) && rep.sim_time >= model.end_time() * (1 - 1e-12);
          const double oil = st.at("oil_produced_sm3");
          if (name == "serial") serial_oil[key] = oil;
          double vs = 0;
          if (serial_oil.count(key)) {
            vs = std::fabs(oil - serial_oil[key]) / std::max(serial_oil[key], 1e-300);
            r.verified = r.verified && vs <= (sizeof(T) == 4 ? 1e-3 : 1e-7);
          }
          r.timing = "one run of the whole case after an untimed warm-up run, wall clock (a single sample)";
          r.checked = fmt::format("{}the run reached the case's end; both phases' mass balance within {:.0e}",
                                  serial_oil.count(key) ? fmt::format("cumulative oil against serial's run of the same case "
                                                                      "in {} (rel diff {:.1e}, limit {:.0e}); ",
                                                                      to_string(precision_of<T>()), vs,
                                                                      sizeof(T) == 4 ? 1e-3 : 1e-7)
                                                        : std::string("no serial run to compare with; "),
                                  tol);
          r.note = fmt::format("the whole case: {} reports over {} days in {} steps ({} retried), {:.1f} SOR it/step; "
                               "cumulative oil {:.6g} sm3 ({:.1e} from serial); mass balance water {:.1e}, oil {:.1e}",
                               model.report_times().size(), model.end_time(), rep.steps, st.at("retried_steps"),
                               st.at("sor_iterations_per_step"), oil, vs, st.at("mass_balance_water_rel"),
                               st.at("mass_balance_oil_rel"));
        } else {
          // the same run on every backend: one untimed step (programs built, first touch), then the
          // steps the grid's first backend (serial, or the next where serial skips the grid) fitted
          // in its budget; every later backend times exactly those steps
          Impes3D<T> model(*be, cfg);
          model.step(model.end_time());
          be->sync();
          const bool first = !steps_of.count(key);
          long n = first ? o.impes_steps : steps_of[key];
          const long sor0 = model.sor_iterations();
          const double time0 = model.time();
          double t0 = now_s();
          model.step(model.end_time());
          be->sync();
          double spent = now_s() - t0;
          long done = 1;
          if (first) n = std::clamp(long(budget / std::max(spent, 1e-9)), 1L, long(o.impes_steps));
          while (done < n && model.time() < model.end_time()) {
            model.step(model.end_time());
            ++done;
          }
          be->sync();
          spent = now_s() - t0;
          if (first) steps_of[key] = done;
          const double per = spent / double(done);
          const double its = double(model.sor_iterations() - sor0) / double(done);
          r.t = Timing{per, per, done};
          r.timing = fmt::format("one run: steps 2-{} of the case timed together after one untimed step, wall clock, "
                                 "per step (a single sample)",
                                 done + 1);
          r.set("steps_timed", done);
          r.set("days_timed", model.time() - time0);
          const auto st = model.final_stats();
          r.verified = balanced(st, tol);
          // the reference: the same 1 + done steps on serial in double (omp where the grid is over
          // --serial-max-cells), its fields compared with this run's
          const bool big = cells > double(o.serial_max_cells);
          const std::string ref_name = big ? "omp" : "serial";
          std::string check = "no reference run (" + ref_name + " not available)";
          if (!refs.count(key) && std::find(names.begin(), names.end(), ref_name) != names.end() &&
              name == ref_name && sizeof(T) == 8)
            refs[key] = model.fields();  // this run is the reference
          if (!refs.count(key) && ref_available(ref_name)) {
            auto rb = make_backend(ref_name, bo);
            auto rcf = load_item(it, o.cases_dir);
            auto rcfg = read_impes3d_case(rcf, *rb, Precision::Double).config;
            Impes3D<double> ref(*rb, rcfg);
            for (long s = 0; s < 1 + done; ++s) ref.step(ref.end_time());
            refs[key] = ref.fields();
          }
          if (refs.count(key)) {
            const auto d = field_difference(refs[key], model.fields());
            const double lim = sizeof(T) == 4 ? kFloatFieldLimit : kDoubleFieldLimit;
            r.verified = r.verified && d.max_rel <= lim;
            check = fmt::format("the fields after the same {} steps against {} double: max rel diff {:.1e} in {} (limit "
                                "{:.0e})",
                                1 + done, ref_name, d.max_rel, d.field, lim);
            r.set("max_rel_diff", d.max_rel);
          }
          r.checked = fmt::format("{}; both phases' mass balance within {:.0e} (water {:.1e}, oil {:.1e})", check, tol,
                                  st.at("mass_balance_water_rel"), st.at("mass_balance_oil_rel"));
          r.note = fmt::format("{} steps timed after one untimed; SOR {} {:.1f} it/step, omega {:.3f}; {:.1f} Mcell "
                               "updates/s, {:.2f} ms per step per million cells; days {:.4g} to {:.4g}, last dt {:.3g} d",
                               done, to_string(model.design()), its, model.omega(), cells / per / 1e6,
                               per * 1e3 / (cells / 1e6), time0, model.time(), model.last_dt());
        }
      } catch (const NumericalError& e) {
        spdlog::error("bench impes3d: {} {}: {}", name, key, e.what());
        r.verified = false;
        r.note = std::string("failed: ") + e.what();
      }
      if (!r.verified) spdlog::error("bench impes3d: {} {}: {}", name, key, r.note);
      spdlog::info("bench impes3d: {} {}: {:.4g} s{} ({})", name, key, r.t.median, it.full ? "" : " a step", r.note);
      rows.push_back(r);
    }
  }
  for (auto& r : rows)
    for (const auto& s : rows)
      if (s.backend == "serial" && s.variant == r.variant && s.layout == r.layout && s.t.median > 0 && r.t.median > 0)
        r.speedup = s.t.median / r.t.median;
}

template void bench_impes3d<float>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);
template void bench_impes3d<double>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);

void print_impes3d_table(const std::vector<BenchRow>& rows) {
  fmt::print("\n{:<7} {:<11} {:<14} {:>9} {:>12} {:>12} {:>9} {:>4}\n", "backend", "case", "grid", "cells", "s/step|run",
             "Mcell-up/s", "speedup", "ok");
  for (const auto& r : rows) {
    const bool full = r.variant == "case2-full";
    fmt::print("{:<7} {:<11} {:<14} {:>9} {:>12.5f} {:>12} {:>9.1f} {:>4}\n", r.backend, r.variant, r.layout, r.size,
               r.t.median, full || r.t.median <= 0 ? std::string("-") : fmt::format("{:.1f}", double(r.size) / r.t.median / 1e6),
               r.speedup, r.verified ? "yes" : "NO");
  }
}

}  // namespace poreflow::app
