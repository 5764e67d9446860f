// poreflow compare CASE --backends a,b,c: the same case on each backend, one table of times and
// of the differences of every final field against the first backend; non-zero exit when a
// difference exceeds the tolerance of the precision.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "apps/case_options.hpp"
#include "apps/common.hpp"
#include "core/base/error.hpp"
#include "core/run/registry.hpp"

namespace poreflow::app {

namespace {

struct Row {
  std::string backend, device;
  RunReport rep;
  double max_abs = 0, max_rel = 0;
  std::string worst_field;
};

}  // namespace

void add_compare(CLI::App& app, Common& c) {
  auto* sub = app.add_subcommand("compare", "run a case on several backends and compare the results");
  static CaseOptions co;
  static std::string backends;
  static double tolerance = -1;
  add_case_options(*sub, c, co);
  sub->add_option("--backends", backends, "comma-separated list (default: every available backend)");
  sub->add_option("--tolerance", tolerance,
                  "largest allowed relative difference (default 1e-8 for double, 1e-3 for float)")
      ->check(CLI::PositiveNumber);
  add_common_options(*sub, c);
  sub->callback([&c, sub] {
    apply_logging(c);
    const auto prec = [&] {
      auto cf = load_case(co.path, c);
      return run_precision(cf, *sub, c);
    }();
    auto names = backends.empty() ? available_backends() : split_list(backends);
    if (names.empty()) throw ConfigError("--backends is empty");
    double tol = tolerance >= 0 ? tolerance : (prec == Precision::Double ? 1e-8 : 1e-3);
    std::vector<Row> rows;
    for (const auto& name : names) {
      auto cf = load_case(co.path, c);
      (void)read_output_options(cf);  // validated, but compare writes no output
      (void)run_precision(cf, *sub, c);  // read above
      auto be = make_backend(name, c.backend_opts);
      spdlog::info("compare: running on {} ({})", be->name(), be->device_name());
      auto model = make_model(cf, *be, prec);
      cf.check_all_used();
      OutputOptions off;
      off.enabled = false;
      Row row;
      row.backend = be->name();
      row.device = be->device_name();
      row.rep = run_model(*model, off, !c.quiet);
      rows.push_back(std::move(row));
    }
    // differences against the first backend
    const auto& ref = rows.front().rep.final_fields;
    bool fail = false;
    for (auto& r : rows) {
      for (std::size_t f = 0; f < ref.size(); ++f) {
        const auto& a = r.rep.final_fields[f].values;
        const auto& b = ref[f].values;
        double scale = 0, d = 0;
        for (double x : b) scale = std::max(scale, std::fabs(x));
        for (std::size_t i = 0; i < a.size(); ++i) {
          double e = std::fabs(a[i] - b[i]);
          if (!(e == e)) e = INFINITY;
          d = std::max(d, e);
        }
        double rel = d / (scale > 0 ? scale : 1);
        if (rel >= r.max_rel) {
          r.max_rel = rel;
          r.max_abs = d;
          r.worst_field = ref[f].name;
        }
      }
      if (!(r.max_rel <= tol)) fail = true;
    }
    const Row* serial = nullptr;
    for (const auto& r : rows)
      if (r.backend == "serial") serial = &r;
    fmt::print("\n{:<8} {:<44} {:>10} {:>12} {:>9} {:>12} {:>12}  {}\n", "backend", "device", "wall s", "ms/step",
               "speedup", "max abs", "max rel", "field");
    for (const auto& r : rows) {
      double per_step = r.rep.steps ? 1e3 * r.rep.wall_seconds / r.rep.steps : 0;
      std::string speedup = serial ? fmt::format("{:.2f}", serial->rep.wall_seconds / r.rep.wall_seconds) : "-";
      fmt::print("{:<8} {:<44.44} {:>10.4f} {:>12.5f} {:>9} {:>12.3e} {:>12.3e}  {}\n", r.backend, r.device,
                 r.rep.wall_seconds, per_step, speedup, r.max_abs, r.max_rel, r.worst_field);
    }
    for (const auto& r : rows)
      if (r.rep.build_seconds > 0)
        fmt::print("{}: OpenCL programs built in {:.3f} s, not in its wall s (a first run on a device builds them, later "
                   "runs hit the driver's cache: docs/opencl.md)\n", r.backend, r.rep.build_seconds);
    fmt::print("differences against {}; tolerance {:.1e} ({}): {}\n", rows.front().backend, tol, to_string(prec),
               fail ? "EXCEEDED" : "ok");
    if (fail) {
      spdlog::error("compare: a backend differs from {} by more than {:.1e}", rows.front().backend, tol);
      c.exit_code = 1;
    }
  });
}

}  // namespace poreflow::app
