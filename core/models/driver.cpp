#include "core/models/driver.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <memory>
#include <vector>

#include "core/error.hpp"
#include "core/io/case_file.hpp"
#include "core/io/csv.hpp"
#include "core/io/vtk.hpp"

namespace poreflow {

OutputOptions read_output_options(io::CaseFile& cf) {
  OutputOptions o;
  o.dir = cf.get_string("output.dir", o.dir.string());
  o.snapshots = static_cast<int>(cf.int_at_least("output.snapshots", o.snapshots, 0));
  o.series_every = cf.int_at_least("output.series_every", o.series_every, 1);
  o.vtk = cf.get_bool("output.vtk", o.vtk);
  o.csv = cf.get_bool("output.csv", o.csv);
  o.png = cf.get_bool("output.png", o.png);
  return o;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

class Outputs {
 public:
  Outputs(const Model& m, const OutputOptions& o) : m_(m), o_(o) {
    if (!o.enabled) return;
    std::error_code ec;
    std::filesystem::create_directories(o.dir, ec);
    if (ec) throw ConfigError("cannot create the output folder '" + o.dir.string() + "': " + ec.message());
    if (o.csv) csv_ = std::make_unique<io::CsvWriter>(o.dir / (m.name() + "_series.csv"), m.series_columns());
    if (o.vtk) pvd_ = std::make_unique<io::PvdCollection>(o.dir / (m.name() + ".pvd"));
  }
  void open(Model& m) {
    if (o_.enabled) m.open_outputs(o_.dir);
  }

  void series() {
    if (csv_) csv_->row(m_.series_row());
  }

  void snapshot() {
    if (!o_.enabled) return;
    char stem[64];
    std::snprintf(stem, sizeof stem, "%s_%04d", m_.name().c_str(), index_++);
    if (pvd_) {
      const auto file = m_.write_snapshot(o_.dir, stem);
      pvd_->add(m_.time(), file);  // rewrites the .pvd, so a crashed run leaves a valid collection
    }
    if (o_.png) m_.write_plot(o_.dir / (std::string(stem) + ".png"));
  }

 private:
  const Model& m_;
  const OutputOptions& o_;
  std::unique_ptr<io::CsvWriter> csv_;
  std::unique_ptr<io::PvdCollection> pvd_;
  int index_ = 0;
};

}  // namespace

std::string Model::write_snapshot(const std::filesystem::path& dir, const std::string& stem) const {
  auto g = grid();
  std::vector<io::VtkField> fs;
  for (auto& f : fields()) fs.push_back({f.name, std::move(f.values)});
  const std::string file = stem + ".vti";
  io::write_vti(dir / file, g.points, g.origin, g.spacing, fs, time());
  return file;
}

RunReport run_model(Model& m, const OutputOptions& o, bool progress) {
  spdlog::info("{}", m.summary());
  Outputs out(m, o);
  out.open(m);
  const double t_end = m.end_time();
  const int nsnap = o.enabled ? o.snapshots : 0;
  // where the loop stops: the model's report times (a CSV row at each, snapshots spread over
  // them), or equal intervals with a snapshot at each (and a CSV row every series_every steps)
  const auto reports = m.report_times();
  const bool by_reports = !reports.empty();
  std::vector<double> stops;
  std::vector<char> snap_at;
  if (by_reports) {
    stops = reports;
    const std::size_t n = stops.size();
    const std::size_t every = nsnap > 0 ? (n + static_cast<std::size_t>(nsnap) - 1) / static_cast<std::size_t>(nsnap) : 0;
    for (std::size_t r = 0; r < n; ++r) snap_at.push_back(nsnap > 0 && ((r + 1) % every == 0 || r + 1 == n));
  } else {
    for (int k = 1; k <= std::max(nsnap, 1); ++k) stops.push_back(nsnap > 0 ? t_end * k / nsnap : t_end);
    snap_at.assign(stops.size(), nsnap > 0);
  }

  const bool tty = isatty(fileno(stderr));
  auto t0 = Clock::now();
  auto last_print = t0;
  double compute = 0;
  out.series();
  if (nsnap > 0) out.snapshot();
  for (std::size_t s = 0; s < stops.size(); ++s) {
    const double t_stop = stops[s];
    while (m.time() < t_stop * (1 - 1e-12)) {
      auto ts = Clock::now();
      m.step(t_stop);
      compute += seconds_since(ts);
      const bool reached = m.time() >= t_stop * (1 - 1e-12);
      if (o.enabled && (by_reports ? reached : (m.steps() % o.series_every == 0 || (reached && snap_at[s])))) out.series();
      if (reached && snap_at[s]) out.snapshot();
      if (progress && seconds_since(last_print) > 1.0) {
        last_print = Clock::now();
        double el = seconds_since(t0), frac = m.time() / t_end;
        char line[256];
        std::snprintf(line, sizeof line, "step %ld  t = %.4g / %.4g (%.0f%%)  %s  %.1f s elapsed, ~%.0f s left", m.steps(),
                      m.time(), t_end, 100 * frac, m.progress().c_str(), el, frac > 0 ? el * (1 - frac) / frac : 0.0);
        if (tty)
          std::fprintf(stderr, "\r%s\033[K", line);
        else
          spdlog::info("{}", line);
      }
    }
  }
  if (progress && tty) std::fprintf(stderr, "\r\033[K");
  RunReport r;
  r.wall_seconds = compute;
  r.steps = m.steps();
  r.sim_time = m.time();
  r.final_fields = m.fields();
  r.stats = m.final_stats();
  r.stats["wall_seconds_total"] = seconds_since(t0);
  return r;
}

}  // namespace poreflow
