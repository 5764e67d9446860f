// poreflow run CASE: one case on one backend, with VTK, CSV and PNG output, checkpoints and restart.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <toml++/toml.h>

#include <cmath>
#include <csignal>
#include <cstdio>
#include <fstream>

#include "apps/case_options.hpp"
#include "apps/common.hpp"
#include "apps/options.hpp"
#include "core/base/error.hpp"
#include "core/comm/mpi.hpp"
#include "core/io/checkpoint.hpp"
#include "core/run/driver.hpp"
#include "core/models/memory.hpp"
#include "core/run/registry.hpp"

namespace poreflow::app {

namespace {

// a word as the shell reads it back
std::string shell_quote(const std::string& a) {
  if (!a.empty() && a.find_first_not_of("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_./=:,+-@%") == std::string::npos)
    return a;
  std::string q = "'";
  for (char ch : a) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
  return q + "'";
}

// the command that continues this run: the same arguments with --restart FILE instead of any
// earlier --restart
std::string restart_command(const std::vector<std::string>& args, const std::filesystem::path& file) {
  std::string cmd = "poreflow";
  for (std::size_t i = 0; i < args.size(); ++i) {
    if (args[i] == "--restart") {
      ++i;
      continue;
    }
    if (args[i].rfind("--restart=", 0) == 0) continue;
    cmd += " " + shell_quote(args[i]);
  }
  return cmd + " --restart " + shell_quote(file.string());
}

// <dir>/statistics.json: what the run printed at its end (none for a run stopped by a signal), for scripts (validation/compare.py
// reads the steps and Newton iterations): the model, scheme, backend, device, precision, steps,
// simulated time, the steps' wall seconds, and every statistic (a non-finite one as text)
void write_statistics(const std::filesystem::path& dir, const Model& m, const Backend& be, Precision prec, const RunReport& rep) {
  toml::table stats;
  for (const auto& [k, v] : rep.stats) {
    if (std::isfinite(v)) stats.insert(k, v);
    else stats.insert(k, std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
  }
  toml::table root{{"model", m.name()},
                   {"scheme", m.scheme_name()},
                   {"backend", be.name()},
                   {"device", be.device_name()},
                   {"precision", std::string(to_string(prec))},
                   {"commit", source_commit()},
                   {"steps", static_cast<int64_t>(rep.steps)},
                   {"time", rep.sim_time},
                   {"wall_seconds", rep.wall_seconds},
                   {"statistics", stats}};
  const auto file = dir / "statistics.json";
  std::ofstream out(file);
  out << toml::json_formatter{root} << "\n";
  if (!out) throw Error("cannot write '" + file.string() + "'");
}

}  // namespace

void add_run(CLI::App& app, Common& c) {
  auto* sub = app.add_subcommand("run", "run a case (TOML) and write its output");
  static CaseOptions co;
  add_case_options(*sub, c, co);
  add_common_options(*sub, c);
  static std::string out_dir, checkpoint_file, restart_file;
  static double checkpoint_every = 0;
  static bool no_output = false, dry_run = false;
  sub->add_option("--out,-o", out_dir, "output folder (default: the case's output.dir)")->check(not_empty());
  sub->add_flag("--no-output", no_output, "write nothing, only run and report");
  sub->add_flag("--dry-run", dry_run, "read and check the case, print the memory it needs on the backend, run nothing");
  sub->add_option("--checkpoint-every", checkpoint_every,
                  "write a checkpoint each time the simulated time passes a multiple of T (the model's time unit), "
                  "and one at the end")
      ->check(positive_number());
  sub->add_option("--checkpoint", checkpoint_file, "the checkpoint file (default: OUT/checkpoint.h5)")->check(not_empty());
  // (over several processes each reads its own file of the checkpoint: io::process_file)
  sub->add_option("--restart", restart_file, "continue the run a checkpoint was written by (same case and --set options)")
      ->check(CLI::Validator(
          [&c](std::string& f) {
            const auto mine = io::process_file(f, c.rank, c.processes);
            std::error_code ec;
            if (std::filesystem::is_regular_file(mine, ec)) return std::string();
            const std::string hint = io::process_count_hint(f, c.processes);
            return "File does not exist: " + mine.string() + (hint.empty() ? "" : " (" + hint + ")");
          },
          "FILE"));
  sub->callback([&c, sub] {
    apply_logging(c);
    // over several MPI processes (docs/mpi.md): every process reads the case and runs its box;
    // process 0 logs, reports and writes the output
    const mpi::Session* session = mpi::Session::current();
    const int rank = c.rank;
    if (rank != 0) spdlog::set_level(spdlog::level::warn);
    auto cf = load_case(co.path, c);
    const auto prec = run_precision(cf, *sub, c);
    auto out = read_output_options(cf);
    if (!out_dir.empty()) out.dir = out_dir;
    out.enabled = !no_output;
    // checkpoints need HDF5: asked for without it, say so before anything runs
    if (!io::checkpoints_supported() && (checkpoint_every > 0 || !restart_file.empty() || !checkpoint_file.empty()))
      throw ConfigError("built without checkpoint support (HDF5): --checkpoint-every, --checkpoint and --restart need "
                        "poreflow built with libhdf5-dev");
    CheckpointOptions ck;
    ck.every = checkpoint_every;
    ck.handle_signals = true;
    out.writer = rank == 0;
    // over several processes one file a process, each its box's state
    const std::filesystem::path ck_base = checkpoint_file.empty() ? out.dir / "checkpoint.h5" : std::filesystem::path(checkpoint_file);
    if (io::checkpoints_supported()) ck.file = io::process_file(ck_base, rank, c.processes);
    ck.identity.processes = c.processes;
    ck.identity.rank = rank;
    ck.identity.case_source = co.path;
    ck.identity.case_text = cf.canonical_text();
    ck.identity.precision = to_string(prec);
    // read and check a checkpoint before the backend starts: a wrong one is refused at once
    io::Checkpoint restart;
    const std::filesystem::path restart_mine = io::process_file(restart_file, rank, c.processes);
    if (!restart_file.empty()) restart = io::read_checkpoint(restart_mine);

    // the backend's choice is logged once the case is read and checked: errors about the case
    // come first. The first line names the model's scheme (impes3d: IMPES or fully implicit).
    std::string choice;
    auto be = make_backend(c.backend, c.backend_opts, &choice);
    // (a dry run builds no model: its line names the backend alone)
    auto chosen = [&](const Model* m) {
      const std::string scheme = m ? m->scheme_name() : "";
      spdlog::info("{}backend {} on {}, precision {}", m ? m->name() + (scheme.empty() ? "" : ", scheme " + scheme) + ": " : "",
                   be->name(), be->device_name(), to_string(prec));
      if (!choice.empty()) spdlog::info("{}", choice);
      warn_device_options(*sub, c.backend_opts.omp_threads, {be->name()});
    };
    ck.identity.backend = be->name();
    ck.identity.device = be->device_name();
    if (!restart_file.empty()) {
      check_restart(restart, ck.identity, restart_mine);
      ck.restart = &restart;
    }
    auto comm = session ? session->world(*be) : std::unique_ptr<Communicator>();
    ck.comm = comm.get();
    if (dry_run) {
      MemoryNeed need;
      (void)make_simulation(cf, *be, prec, &need, comm ? *comm : self_communicator());
      cf.check_all_used();
      chosen(nullptr);
      fmt::print("{}\n", describe_memory(need, prec, *be));
      try {
        check_memory(need, prec, *be);
      } catch (const ConfigError&) {
        c.exit_code = 1;  // does not fit: the line above says why
      }
      return;
    }
    auto sim = make_simulation(cf, *be, prec, nullptr, comm ? *comm : self_communicator());
    cf.check_all_used();
    chosen(sim.model.get());
    const Model& model = *sim.model;
    if (auto hint = model.backend_hint(); !hint.empty() && rank == 0) spdlog::warn("hint: {}", hint);
    // an earlier run's statistics in this folder would pass for this run's until it ends
    if (out.enabled && out.writer) {
      std::error_code ec;
      std::filesystem::remove(out.dir / "statistics.json", ec);
    }
    auto rep = run_simulation(sim, out, !c.quiet && rank == 0, ck);
    if (rep.interrupted) c.exit_code = 128 + rep.interrupted;  // as a shell reports a process ended by the signal
    if (rank != 0) return;  // process 0 reports
    // over several processes: every process wrote its file, and all restart from the base name
    const std::string files = c.processes > 1 ? " (one file a process: " + rep.checkpoint.filename().string() + " and the others)" : "";
    const std::string launch = c.processes > 1 ? "mpirun -n " + std::to_string(c.processes) + " " : "";
    if (rep.interrupted) {
      const char* sig = rep.interrupted == SIGINT ? "SIGINT" : rep.interrupted == SIGTERM ? "SIGTERM" : "a signal";
      if (!rep.checkpoint.empty())
        std::fprintf(stderr, "poreflow: interrupted by %s at t = %.6g, step %ld; checkpoint written to %s%s; continue with: %s%s\n",
                     sig, rep.sim_time, rep.steps, (c.processes > 1 ? ck_base : rep.checkpoint).string().c_str(), files.c_str(),
                     launch.c_str(), restart_command(c.args, c.processes > 1 ? ck_base : rep.checkpoint).c_str());
      else
        std::fprintf(stderr, "poreflow: interrupted by %s at t = %.6g, step %ld; no checkpoint (built without HDF5)\n", sig,
                     rep.sim_time, rep.steps);
      return;
    }
    fmt::print("{}: {} steps to t = {:.6g} in {:.3f} s on {} ({})\n", model.name(), rep.steps, rep.sim_time,
               rep.wall_seconds, be->name(), be->device_name());
    for (const auto& [k, v] : rep.stats) fmt::print("  {:<28} {:.6g}\n", k, v);
    if (!rep.checkpoint.empty())
      fmt::print("checkpoint {}{} ({:.2f} MB, written in {:.3f} s)\n", (c.processes > 1 ? ck_base : rep.checkpoint).string(), files,
                 double(rep.checkpoint_bytes) / 1e6, rep.checkpoint_seconds);
    if (out.enabled) {
      write_statistics(out.dir, model, *be, prec, rep);
      fmt::print("output in {}\n", out.dir.string());
    }
  });
}

}  // namespace poreflow::app
