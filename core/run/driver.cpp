#include "core/run/driver.hpp"

#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <algorithm>
#include <memory>
#include <sstream>
#include <vector>

#include "core/base/error.hpp"
#include "core/base/format.hpp"
#include "core/io/case_file.hpp"
#include "core/kernels/launch_tally.hpp"
#include "core/kernels/program_builds.hpp"
#include "core/run/interrupt.hpp"
#include "core/models/state.hpp"

namespace poreflow {

OutputOptions read_output_options(io::CaseFile& cf) {
  OutputOptions o;
  o.dir = cf.get_string("output.dir", o.dir.string());
  o.snapshots = static_cast<int>(cf.int_at_least("output.snapshots", o.snapshots, 0));
  o.series_every = cf.int_at_least("output.series_every", o.series_every, 1);
  o.vtk = cf.get_bool("output.vtk", o.vtk);
  o.csv = cf.get_bool("output.csv", o.csv);
  o.png = cf.get_bool("output.png", o.png);
  const std::string range = "output.range.";
  for (const auto& key : cf.keys()) {
    if (key.rfind(range, 0) != 0) continue;
    const auto v = cf.get_numbers(key);
    if (v.size() != 2 || !std::isfinite(v[0]) || !std::isfinite(v[1]) || !(v[0] < v[1]))
      cf.fail(key, "must be [low, high], two finite numbers with low < high (a map's colour range)");
    o.ranges[key.substr(range.size())] = {v[0], v[1]};
  }
  return o;
}

namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// "key = value" lines of a canonical case text, by key
std::map<std::string, std::string> case_lines(const std::string& text) {
  std::map<std::string, std::string> m;
  std::size_t from = 0;
  while (from < text.size()) {
    std::size_t to = text.find('\n', from);
    if (to == std::string::npos) to = text.size();
    const std::string line = text.substr(from, to - from);
    const std::size_t eq = line.find(" = ");
    if (eq != std::string::npos) m[line.substr(0, eq)] = line.substr(eq + 3);
    from = to + 1;
  }
  return m;
}

// the keys in which two case texts differ, at most `max` of them
std::string case_differences(const std::string& was, const std::string& now, int max = 3) {
  const auto a = case_lines(was), b = case_lines(now);
  std::vector<std::string> diffs;
  for (const auto& [k, v] : a) {
    auto it = b.find(k);
    if (it == b.end()) diffs.push_back(k + " = " + v + " there, absent here");
    else if (it->second != v) diffs.push_back(k + " = " + v + " there, " + it->second + " here");
  }
  for (const auto& [k, v] : b)
    if (!a.count(k)) diffs.push_back(k + " absent there, " + v + " here");
  std::string out;
  for (int i = 0; i < static_cast<int>(diffs.size()) && i < max; ++i) out += (i ? "; " : "") + diffs[std::size_t(i)];
  if (static_cast<int>(diffs.size()) > max) out += "; and " + std::to_string(diffs.size() - std::size_t(max)) + " more";
  return out;
}

// Every conservation law the model keeps must close to its precision's rounding: a lost flux, an
// overflow or a value past what the arithmetic holds stops the run here, named.
void check_balance(const Model& m) {
  for (const auto& b : m.balance()) {
    const double e = b.rel_error();
    if (e <= b.tolerance) continue;
    std::ostringstream o;
    o << "step " << m.steps() << " (t = " << m.time() << "): the " << b.what << " balance does not close: in place now - at the start = "
      << b.change << ", injected - produced = " << b.net_in << ", off by " << e << " of the largest term (" << b.scale
      << "; the rounding allows " << b.tolerance << ")";
    throw NumericalError(o.str());
  }
}

}  // namespace

void check_restart(const io::Checkpoint& ck, const io::Checkpoint& id, const std::filesystem::path& file) {
  const std::string f = "checkpoint '" + file.string() + "'";
  if (ck.case_text != id.case_text)
    throw ConfigError(f + " was written for a different case (" + ck.case_source + "): " +
                      case_differences(ck.case_text, id.case_text) + "; restart with the case and --set options of that run");
  if (ck.precision != id.precision)
    throw ConfigError(f + " was written in precision " + ck.precision + ", this run computes in " + id.precision +
                      "; restart with --precision " + ck.precision);
  if (ck.processes != id.processes)
    throw ConfigError(f + " was written by a run over " + std::to_string(ck.processes) + " process" + (ck.processes == 1 ? "" : "es") +
                      ", this run has " + std::to_string(id.processes) + ": each process restarts its own box; restart with " +
                      (ck.processes == 1 ? std::string("one process") : "mpirun -n " + std::to_string(ck.processes)) + " (docs/mpi.md)");
  if (ck.rank != id.rank)
    throw ConfigError(f + " holds process " + std::to_string(ck.rank) + "'s part, not process " + std::to_string(id.rank) + "'s");
  if (ck.poreflow_version != id.poreflow_version)
    spdlog::warn("{} was written by poreflow {}, this is {}: the continuation may differ from an uninterrupted run", f,
                 ck.poreflow_version, id.poreflow_version);
  if (ck.backend != id.backend || ck.device != id.device)
    spdlog::warn("{} was written on {} ({}), this run is on {} ({}): it continues, but not bit-identical to a run on one "
                 "backend", f, ck.backend, ck.device, id.backend, id.device);
}

RunReport run_model(Model& m, Observers& observers, const OutputOptions& o, bool progress, const CheckpointOptions& ck) {
  spdlog::info("{}", m.summary());
  const ModelState* resume = ck.restart ? &ck.restart->driver_state : nullptr;
  if (ck.restart) {
    if (ck.restart->model != m.name())
      throw ConfigError("the checkpoint holds a " + ck.restart->model + " run, this case is " + m.name());
    m.state().load(ck.restart->model_state);
    spdlog::info("restarted at t = {:g}, step {}", m.time(), m.steps());
  }
  int snapshot_index = 0;
  if (o.enabled) {
    // every process of a decomposed run may write its piece of a snapshot; process 0 reports
    std::error_code ec;
    std::filesystem::create_directories(o.dir, ec);
    if (ec && o.writer) throw ConfigError("cannot create the output folder '" + o.dir.string() + "': " + ec.message());
    if (resume) snapshot_index = static_cast<int>(resume->integer("snapshot_index"));
  }
  for (auto& ob : observers)
    if (resume) ob->resume(*resume);
  for (auto& ob : observers) ob->begin(m, resume != nullptr);
  auto series = [&] {
    if (o.enabled) m.before_output(false);
    for (auto& ob : observers) ob->series(m);
  };
  auto snapshot = [&] {
    if (!o.enabled) return;
    // the maps read their planes on process 0; the snapshots are pieces
    m.before_output(true, o.png ? Model::Gather::Maps : Model::Gather::Pieces);
    for (auto& ob : observers) ob->snapshot(m, snapshot_index);
    ++snapshot_index;
  };
  // the cadence a restart continues from: the next snapshot's number, and what each observer keeps
  // (the CSV's rows, the collection's entries)
  auto save_cadence = [&](ModelState& s) {
    if (!o.enabled && resume) {  // a restart without output keeps the cadence of the files it did not touch
      for (const auto& [k, a] : resume->arrays())
        if (k != "stop_index") s.insert(k, a);
      return;
    }
    s.set_int("snapshot_index", snapshot_index);
    s.set_int("csv_rows", 0);
    s.put("pvd_times", std::vector<double>{});
    s.set_text("pvd_files", "");
    for (const auto& ob : observers) ob->save(s);
  };

  const double t_end = m.end_time();
  const int nsnap = o.enabled ? o.snapshots : 0;
  // where the loop stops: the model's report times (a CSV row at every series_every-th and the
  // last, snapshots spread over them), part of the case whether or not output is written; or only
  // the end, with snapshots at equal intervals written after the first step that reaches each (and
  // a CSV row every series_every steps). The steps never depend on the output: output times that
  // cut the steps made --no-output change bl1d's answer (issue 24).
  const auto reports = m.report_times();
  const bool by_reports = !reports.empty();
  std::vector<double> stops;
  std::vector<char> snap_at;
  std::vector<double> snap_times;  // without report times: the snapshots' times
  if (by_reports) {
    stops = reports;
    const std::size_t n = stops.size();
    const std::size_t every = nsnap > 0 ? (n + static_cast<std::size_t>(nsnap) - 1) / static_cast<std::size_t>(nsnap) : 0;
    for (std::size_t r = 0; r < n; ++r) snap_at.push_back(nsnap > 0 && ((r + 1) % every == 0 || r + 1 == n));
  } else {
    stops = {t_end};
    snap_at = {0};
    for (int k = 1; k <= nsnap; ++k) snap_times.push_back(t_end * k / nsnap);
  }
  // the next snapshot time not yet passed (a restart continues after those its time has passed)
  std::size_t next_snap = 0;
  auto passed = [&](double t) { return m.time() >= t * (1 - 1e-12); };
  while (next_snap < snap_times.size() && m.time() > 0 && passed(snap_times[next_snap])) ++next_snap;
  std::size_t first_stop = 0;
  if (resume) {
    const long s = resume->integer("stop_index");
    if (s < 0 || static_cast<std::size_t>(s) > stops.size()) throw ConfigError("the checkpoint's output position does not fit this case");
    first_stop = static_cast<std::size_t>(s);
  }

  RunReport r;
  // checkpoints: at each multiple of ck.every the simulated time passes (the steps are not
  // shortened to meet them, so a run with checkpoints steps as one without)
  auto next_multiple = [&](double t) { return ck.every * (std::floor(t / ck.every * (1 + 1e-12)) + 1); };
  double next_checkpoint = ck.every > 0 ? next_multiple(m.time()) : HUGE_VAL;
  auto write_checkpoint = [&](std::size_t stop) {
    if (ck.file.empty()) return;
    const auto t0 = Clock::now();
    io::Checkpoint c = ck.identity;
    c.model = m.name();
    c.time = m.time();
    c.steps = m.steps();
    m.state().save(c.model_state);
    save_cadence(c.driver_state);
    c.driver_state.set_int("stop_index", static_cast<long>(stop));
    r.checkpoint_bytes = io::write_checkpoint(ck.file, c);
    r.checkpoint_seconds = seconds_since(t0);
    r.checkpoint = ck.file;
    spdlog::info("checkpoint at t = {:g}, step {}: {} ({:.2f} MB in {:.3f} s)", c.time, c.steps, ck.file.string(),
                 double(r.checkpoint_bytes) / 1e6, r.checkpoint_seconds);
  };
  std::unique_ptr<InterruptGuard> guard;
  if (ck.handle_signals) guard = std::make_unique<InterruptGuard>();

  const bool tty = isatty(fileno(stderr));
  const ProgramBuilds builds0 = program_builds();
  const LaunchTally tally0 = launch_tally();
  auto t0 = Clock::now();
  auto last_print = t0;
  double compute = 0;
  if (!resume) {
    series();
    if (nsnap > 0) snapshot();
  }
  for (std::size_t s = first_stop; s < stops.size() && !r.interrupted; ++s) {
    const double t_stop = stops[s];
    while (m.time() < t_stop * (1 - 1e-12)) {
      // a signal: the last step's outputs are written; checkpoint here and stop
      // over several processes every one stops at the same step, whichever saw the signal first
      const int sig = guard ? (ck.comm ? static_cast<int>(ck.comm->max(static_cast<long>(interrupt_signal()))) : interrupt_signal()) : 0;
      if (sig) {
        r.interrupted = sig;
        write_checkpoint(s);
        break;
      }
      auto ts = Clock::now();
      const double built = program_builds().seconds;
      m.step(t_stop);
      compute += seconds_since(ts) - (program_builds().seconds - built);  // building device code is not stepping
      for (auto& ob : observers) ob->step(m);
      const bool reached = m.time() >= t_stop * (1 - 1e-12);
      if (reached) check_balance(m);
      // a snapshot after the step that passes its time (one, however many times the step passed)
      bool snap = reached && snap_at[s];
      for (; next_snap < snap_times.size() && passed(snap_times[next_snap]); ++next_snap) snap = true;
      // by reports: a row at every series_every-th report time and at the last
      const bool row = by_reports ? reached && ((s + 1) % std::size_t(o.series_every) == 0 || s + 1 == stops.size())
                                  : m.steps() % o.series_every == 0 || snap;
      if (o.enabled && row) series();
      if (snap) snapshot();
      if (m.time() >= next_checkpoint * (1 - 1e-12) && m.time() < t_end * (1 - 1e-12)) {
        write_checkpoint(s);
        next_checkpoint = next_multiple(m.time());
      }
      if (progress && seconds_since(last_print) > 1.0) {
        last_print = Clock::now();
        // the estimate of what is left in words: a run at t = 3e-307 of 60 would otherwise print 150 digits
        const double el = seconds_since(t0), frac = m.time() / t_end;
        const std::string left = frac > 0 ? duration_text(el * (1 - frac) / frac) : "unknown";
        char line[512];
        std::snprintf(line, sizeof line, "step %ld  t = %.4g / %.4g (%.0f%%)  %s  %s elapsed, ~%s left", m.steps(), m.time(),
                      t_end, 100 * frac, m.progress().c_str(), duration_text(el).c_str(), left.c_str());
        if (tty)
          std::fprintf(stderr, "\r%s\033[K", line);
        else
          spdlog::info("{}", line);
      }
    }
  }
  if (progress && tty) std::fprintf(stderr, "\r\033[K");
  if (!r.interrupted && ck.every > 0) write_checkpoint(stops.size());  // the end: a later run may read it
  for (auto& ob : observers) ob->end(m);
  r.wall_seconds = compute;
  r.steps = m.steps();
  r.sim_time = m.time();
  // a decomposed run gathers no final fields: a whole field on one process is what the pieces avoid
  // (a comparison of runs runs them on one process)
  if (o.enabled) m.before_output(true, Model::Gather::Pieces);
  r.final_fields = m.fields();
  r.stats = m.final_stats();
  r.stats["wall_seconds_total"] = seconds_since(t0);
  const ProgramBuilds builds = program_builds();
  r.build_seconds = builds.seconds - builds0.seconds;
  // where the host's time went on OpenCL (core/kernels/launch_tally.hpp): the run's share
  const LaunchTally tally = launch_tally();
  if (tally.launches > tally0.launches) {
    r.stats["opencl_launches"] = static_cast<double>(tally.launches - tally0.launches);
    r.stats["seconds_opencl_enqueue"] = tally.enqueue_seconds - tally0.enqueue_seconds;
    r.stats["seconds_opencl_wait"] = tally.wait_seconds - tally0.wait_seconds;
  }
  if (builds.programs > 0 || builds.first_launches > 0) {
    r.stats["seconds_opencl_build"] = builds.seconds;
    spdlog::info("OpenCL: {} programs built and {} kernels compiled at their first launch in {:.3f} s ({:.3f} s during "
                 "the run), not counted in the step timings; a later run on this device hits the driver's cache "
                 "(docs/opencl.md)", builds.programs, builds.first_launches, builds.seconds, r.build_seconds);
  }
  return r;
}

RunReport run_model(Model& m, const OutputOptions& out, bool progress, const CheckpointOptions& ck) {
  if (out.enabled) throw Error("run_model: a run with output needs its observers (run_simulation)");
  Observers none;
  return run_model(m, none, out, progress, ck);
}

}  // namespace poreflow
