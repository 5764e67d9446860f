// poreflow bench adi2d: paper 002's Tables 2 and 3 on today's hardware: the time of the whole
// adi2d case (100 steps of dt = 0.001) per backend and tridiagonal algorithm for each grid, and
// the speedup against the serial Thomas program. A run is verified by its own state after its
// first 2 steps (the untimed one and the first timed one) against the same 2 steps in double on
// serial (omp on large grids), and by its physics after the timed steps: every component's mass
// balance closes and the saturations stay in [0, 1]. Each row's `checked` says what it compared.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>

#include "apps/bench_kinds.hpp"
#include "apps/common.hpp"
#include "core/io/cases/cases.hpp"
#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/models/adi2d.hpp"

namespace poreflow::app {

namespace {

// the reference runs (2 steps in double): serial up to this many points, omp up to the next
constexpr std::size_t kAdi2dSerialRefMax = 513, kAdi2dRefMax = 2049;
// the fields after 2 steps against the reference. Measured on this machine (serial, omp, PoCL, every
// algorithm): float 3e-5 to 5e-5 at 65 to 257 points; double 0 on the host backends, 1e-13 on PoCL.
// ADI stops on a volume imbalance of 1e-5, and another reduction order may stop it an iteration
// apart: double allows 1e-6, far below what a wrong kernel gives
constexpr double kAdi2dFloatLimit = 1e-3, kAdi2dDoubleLimit = 1e-6;

}  // namespace

template <class T>
void bench_adi2d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw) {
  const auto sizes = parse_sizes(o.sizes.empty() ? "65,129,257,513,1025,2049,4097" : o.sizes);
  auto wanted = split_list(o.variants);
  for (const auto& w : wanted) (void)parse_tridiag_algo(w);  // ConfigError naming an unknown one
  for (std::size_t n : sizes)
    if (n < 3 || n > std::size_t(kAdi2dMaxPoints))
      throw ConfigError("--sizes: " + std::to_string(n) + " is outside [3, " + std::to_string(kAdi2dMaxPoints) +
                        "] (adi2d's grid.points: N x N nodes of at most 2^48 values an array)");
  std::map<std::size_t, std::vector<NamedField>> refs;  // grid points -> the reference's fields after 2 steps
  std::map<std::size_t, std::pair<long, double>> serial_runs;  // serial Thomas: timed steps and their seconds
  for (const auto& name : bench_backends(o)) {
    auto be = make_backend(name, bo);
    for (std::size_t n : sizes) {  // every size's need before any is allocated, as `run` checks it
      Adi2DConfig need_of;
      need_of.points = static_cast<long>(n);
      check_memory(adi2d_need(need_of, precision_of<T>(), be->is_host()), precision_of<T>(), *be);
    }
    bw.emplace_back(name, copy_bandwidth(*be, kCopyBytes));
    double last_step = 0;  // seconds per step at the previous size (Thomas, this backend)
    std::size_t last_n = 0;
    for (std::size_t n : sizes) {
      const bool cpu_backend = name == "serial" || name == "omp";
      const double budget = cpu_backend ? o.serial_budget : o.device_budget;
      // a step costs at least the grid's area times more than at the last size (more substeps
      // and ADI iterations on top): skip sizes whose two untimed-plus-timed steps alone would take
      // several budgets (serial at 1025 points: over a minute a step)
      if (last_n > 0) {
        const double guess = last_step * double(n * n) / double(last_n * last_n);
        if (2 * guess > 4 * budget) {
          spdlog::info("bench adi2d: {} N={} skipped: about {:.1f} s a step (from N={}), over the budget of {} s", name,
                       n, guess, last_n, budget);
          continue;
        }
      }
      auto algos = tridiag_algos();
      algos.push_back(TridiagAlgo::Auto);
      for (auto algo : algos) {
        if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), to_string(algo)) == wanted.end()) continue;
        // CPU backends: Thomas (the papers' sequential program); their other algorithms are host
        // versions kept for correctness, slower by design
        const bool cpu = name == "serial" || name == "omp";
        if (cpu && algo != TridiagAlgo::Thomas) continue;
        auto cf = io::CaseFile::parse("", "bench");
        cf.set("grid.points=" + std::to_string(n));
        cf.set("time.end=" + std::to_string(o.steps * 0.001));
        cf.set(std::string("pressure.algorithm=\"") + to_string(algo) + "\"");
        auto cfg = read_adi2d_config(cf, *be);
        cf.check_all_used();
        Adi2D<T> model(*be, cfg);
        long steps = o.steps - 1, timed = 1, k_serial = 0;
        double one = 0, rest = 0, at_k = 0;
        std::vector<NamedField> after2;
        try {
          // warm-up: program builds, first touch, handles; then the timed steps
          model.step(model.time() + cfg.dt);
          be->sync();
          double t0 = now_s();
          model.step(model.time() + cfg.dt);
          be->sync();
          one = now_s() - t0;
          after2 = model.fields();  // between the timed stretches: the run's own state after 2 steps
          if (one * steps > budget) steps = std::max(1L, long(budget / one));
          // serial Thomas's timed steps fix what a speedup compares: every later row syncs after
          // as many timed steps too (a step is long enough that one sync more does not show)
          const auto ser = serial_runs.find(n);
          k_serial = ser == serial_runs.end() ? 0 : ser->second.first;
          if (k_serial == 1) at_k = one;
          t0 = now_s();
          for (long s = 0; s < steps - 1; ++s) {
            model.step(model.time() + cfg.dt);
            if (s + 2 == k_serial) {
              be->sync();
              at_k = one + (now_s() - t0);
            }
          }
          be->sync();
          rest = now_s() - t0;
        } catch (const NumericalError& e) {
          // the run broke down (float on a fine grid): a failed row, and on with the others
          spdlog::error("bench adi2d: {} {} N={}: {}", name, to_string(algo), n, e.what());
          BenchRow r = make_row("adi2d", name, be->device_name(), to_string(algo), "-", to_string(precision_of<T>()), n,
                                Timing{0, 0, 0}, 0);
          r.verified = false;
          r.note = std::string("failed: ") + e.what();
          rows.push_back(r);
          continue;
        }
        timed += steps - 1;
        double per_step = (one + rest) / double(timed);
        if (algo == TridiagAlgo::Thomas || last_n != n) {
          last_step = per_step;
          last_n = n;
        }
        Timing t{per_step * o.steps, per_step * o.steps, 1};
        BenchRow r = make_row("adi2d", name, be->device_name(), to_string(algo), "-", to_string(precision_of<T>()), n, t,
                              0);
        auto stats = model.final_stats();
        double worst = 0;
        for (int c = 1; c <= 4; ++c) worst = std::max(worst, stats.at("mass_balance_rel_error_" + std::to_string(c)));
        r.verified = worst <= (sizeof(T) == 4 ? 1e-3 : 1e-10) && stats.at("min_saturation") >= 0 &&
                     stats.at("max_saturation") <= 1;
        // the run's state after its first 2 steps against the same 2 steps in double on serial (omp
        // from kAdi2dSerialRefMax points on; none above kAdi2dRefMax, where 2 steps take minutes)
        std::string check = fmt::format("no reference run above {} points", kAdi2dRefMax);
        if (n <= kAdi2dRefMax) {
          auto& want = refs[n];
          const std::string ref_name = n <= kAdi2dSerialRefMax ? "serial" : "omp";
          if (want.empty()) {
            auto rb = make_backend(ref_name, bo);
            auto rcf = io::CaseFile::parse("", "bench");
            rcf.set("grid.points=" + std::to_string(n));
            rcf.set("time.end=" + std::to_string(o.steps * 0.001));
            rcf.set("pressure.algorithm=\"thomas\"");
            Adi2D<double> ref(*rb, read_adi2d_config(rcf, *rb));
            for (int s = 0; s < 2; ++s) ref.step(ref.time() + cfg.dt);
            want = ref.fields();
          }
          const auto d = field_difference(want, after2);
          const double lim = sizeof(T) == 4 ? kAdi2dFloatLimit : kAdi2dDoubleLimit;
          r.verified = r.verified && d.max_rel <= lim;
          r.set("max_rel_diff", d.max_rel);
          check = fmt::format("the run's fields after its first 2 steps against {} double (thomas) after the same 2 "
                              "steps: max rel diff {:.1e} in {} (limit {:.0e})",
                              ref_name, d.max_rel, d.field, lim);
        }
        r.checked = fmt::format("{}; after the timed steps: every component's mass balance within {:.0e} (worst {:.1e}), "
                                "the saturations in [0, 1]",
                                check, sizeof(T) == 4 ? 1e-3 : 1e-10, worst);
        r.timing = fmt::format("one run: steps 2-{} of the case timed after one untimed step, wall clock{} (a single "
                               "sample)",
                               timed + 1, timed + 1 < o.steps ? fmt::format(", scaled to {} steps", o.steps) : "");
        r.set("steps_timed", timed);
        r.set("seconds_timed", one + rest);
        if (name == "serial" && algo == TridiagAlgo::Thomas) serial_runs[n] = {timed, one + rest};
        // the speedup over serial Thomas: the same timed steps of both runs (serial's, or fewer
        // where this row stopped first); the time of the whole case is scaled where a run is cut
        if (const auto ser = serial_runs.find(n); ser != serial_runs.end()) {
          const long k = std::min(timed, ser->second.first);
          const double mine = k == timed ? one + rest : at_k;
          // serial's time over fewer of its steps than it ran is not known: no speedup then
          if (k == ser->second.first && mine > 0) {
            r.speedup = ser->second.second / mine;
            r.set("speedup_steps", k);
          }
        }
        r.note = fmt::format("{} steps timed{}; ADI iterations {:.0f} ({:.0f} enqueued, {:.0f} control reads), transport "
                             "substeps {:.0f}; pressure {:.3f} s, transport {:.3f} s over the {} steps run; mass balance {:.1e}",
                             timed, timed + 1 < o.steps ? " and scaled to the whole case" : "",
                             stats.at("adi_iterations_total"), stats.at("adi_iterations_enqueued_total"),
                             stats.at("adi_control_reads_total"),
                             stats.at("transport_substeps_total"), stats.at("seconds_pressure"),
                             stats.at("seconds_transport"), model.steps(), worst);
        if (algo == TridiagAlgo::Auto) {
          TridiagArgs probe{precision_of<T>(), TridiagAlgo::Auto, TridiagLayout::Contiguous, n, n};
          r.note += std::string(", auto = ") + to_string(be->tridiag().resolve(probe));
        }
        if (!r.verified) spdlog::error("bench adi2d: {} {} N={}: {}", name, r.variant, n, r.note);
        spdlog::info("bench adi2d: {} {} N={}: {:.4f} s for {} steps ({})", name, r.variant, n, t.median, o.steps,
                     r.note);
        rows.push_back(r);
      }
    }
  }
}

template void bench_adi2d<float>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);
template void bench_adi2d<double>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);

void print_adi2d_tables(const std::vector<BenchRow>& rows) {
  std::vector<std::size_t> sizes;
  std::vector<std::string> lines;
  std::map<std::pair<std::string, std::size_t>, const BenchRow*> at;
  for (const auto& r : rows) {
    if (std::find(sizes.begin(), sizes.end(), r.size) == sizes.end()) sizes.push_back(r.size);
    std::string line = r.backend + " " + r.variant;
    if (std::find(lines.begin(), lines.end(), line) == lines.end()) lines.push_back(line);
    at[{line, r.size}] = &r;
  }
  for (int table = 0; table < 2; ++table) {
    fmt::print("\n{}\n{:<28}", table == 0 ? "seconds for the whole case" : "speedup against serial Thomas, over the same timed steps of both runs", "");
    for (auto n : sizes) fmt::print(" {:>10}", n);
    fmt::print("\n");
    for (const auto& line : lines) {
      fmt::print("{:<28}", line);
      for (auto n : sizes) {
        auto it = at.find({line, n});
        if (it == at.end())
          fmt::print(" {:>10}", "-");
        else if (table == 0)
          fmt::print(" {:>9.4f}{}", it->second->t.median, it->second->verified ? " " : "!");
        else if (it->second->speedup > 0)
          fmt::print(" {:>10.1f}", it->second->speedup);
        else
          fmt::print(" {:>10}", "-");  // no serial run at this size to compare with
      }
      fmt::print("\n");
    }
  }
}

}  // namespace poreflow::app
