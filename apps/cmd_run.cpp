// poreflow run CASE: one case on one backend, with VTK, CSV and PNG output.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include "apps/case_options.hpp"
#include "apps/common.hpp"
#include "core/models/driver.hpp"
#include "core/error.hpp"
#include "core/models/memory.hpp"
#include "core/models/model.hpp"

namespace poreflow::app {

void add_run(CLI::App& app, Common& c) {
  auto* sub = app.add_subcommand("run", "run a case (TOML) and write its output");
  static CaseOptions co;
  add_case_options(*sub, c, co);
  add_common_options(*sub, c);
  static std::string out_dir;
  static bool no_output = false, dry_run = false;
  sub->add_option("--out,-o", out_dir, "output folder (default: the case's output.dir)");
  sub->add_flag("--no-output", no_output, "write nothing, only run and report");
  sub->add_flag("--dry-run", dry_run, "read and check the case, print the memory it needs on the backend, run nothing");
  sub->callback([&c, sub] {
    apply_logging(c);
    auto cf = load_case(co.path, c);
    const auto prec = run_precision(cf, *sub, c);
    auto out = read_output_options(cf);
    if (!out_dir.empty()) out.dir = out_dir;
    out.enabled = !no_output;
    auto be = make_backend(c.backend, c.backend_opts);
    spdlog::info("backend {} on {}, precision {}", be->name(), be->device_name(), to_string(prec));
    if (dry_run) {
      MemoryNeed need;
      (void)make_model(cf, *be, prec, &need);
      cf.check_all_used();
      fmt::print("{}\n", describe_memory(need, prec, *be));
      try {
        check_memory(need, prec, *be);
      } catch (const ConfigError&) {
        c.exit_code = 1;  // does not fit: the line above says why
      }
      return;
    }
    auto model = make_model(cf, *be, prec);
    cf.check_all_used();
    if (auto hint = model->backend_hint(); !hint.empty()) spdlog::warn("hint: {}", hint);
    auto rep = run_model(*model, out, !c.quiet);
    fmt::print("{}: {} steps to t = {:.6g} in {:.3f} s on {} ({})\n", model->name(), rep.steps, rep.sim_time,
               rep.wall_seconds, be->name(), be->device_name());
    for (const auto& [k, v] : rep.stats) fmt::print("  {:<28} {:.6g}\n", k, v);
    if (out.enabled) fmt::print("output in {}\n", out.dir.string());
  });
}

}  // namespace poreflow::app
