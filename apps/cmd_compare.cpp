// poreflow compare CASE --backends a,b,c: the same case on each backend, one table of times and
// of the differences of every final field against the first backend; non-zero exit when a
// difference exceeds the tolerance of the precision.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <memory>

#include "apps/case_options.hpp"
#include "apps/common.hpp"
#include "apps/options.hpp"
#include "core/base/error.hpp"
#include "core/run/registry.hpp"

namespace poreflow::app {

namespace {

struct Row {
  std::string backend, device;
  RunReport rep;
  double max_abs = 0, max_rel = 0;
  std::string worst_field;  // the field of the largest relative difference; empty: every field equal
};

// --backends: two or more, each once (compare runs a case on each and sets them against the first)
std::vector<std::string> backend_list(const std::string& option) {
  if (option.empty()) return available_backends();
  const auto names = split_list(option);
  if (names.empty()) throw UsageError("--backends '" + option + "' names no backend");
  for (std::size_t i = 0; i < names.size(); ++i)
    for (std::size_t j = 0; j < i; ++j)
      if (names[i] == names[j]) throw UsageError("--backends names " + names[i] + " twice: compare runs each backend once");
  if (names.size() == 1)
    throw UsageError("--backends names one backend (" + names[0] + "): compare needs two or more, the first being the reference");
  return names;
}

// the largest differences of a row's fields against the reference's
void differences(Row& r, const std::vector<NamedField>& ref) {
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
    const double rel = d / (scale > 0 ? scale : 1);
    if (rel > r.max_rel || (d > 0 && r.worst_field.empty())) {
      r.max_rel = rel;
      r.max_abs = d;
      r.worst_field = ref[f].name;
    }
  }
}

void print_table(const std::vector<Row>& rows) {
  std::size_t w = 6;  // the device column as wide as its longest name: none is cut
  for (const auto& r : rows) w = std::max(w, r.device.size());
  const Row* serial = nullptr;
  for (const auto& r : rows)
    if (r.backend == "serial") serial = &r;
  fmt::print("\n{:<8} {:<{}} {:>10} {:>12} {:>9} {:>12} {:>12}  {}\n", "backend", "device", w, "wall s", "ms/step", "speedup",
             "max abs", "max rel", "in field");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const Row& r = rows[i];
    const double per_step = r.rep.steps ? 1e3 * r.rep.wall_seconds / r.rep.steps : 0;
    const std::string speedup = serial ? fmt::format("{:.2f}", serial->rep.wall_seconds / r.rep.wall_seconds) : "-";
    if (i == 0)
      fmt::print("{:<8} {:<{}} {:>10.4f} {:>12.5f} {:>9} {:>12} {:>12}  {}\n", r.backend, r.device, w, r.rep.wall_seconds, per_step,
                 speedup, "-", "-", "reference");
    else
      fmt::print("{:<8} {:<{}} {:>10.4f} {:>12.5f} {:>9} {:>12.3e} {:>12.3e}  {}\n", r.backend, r.device, w, r.rep.wall_seconds,
                 per_step, speedup, r.max_abs, r.max_rel, r.worst_field.empty() ? "all equal" : r.worst_field);
  }
  std::string fields;
  for (const auto& f : rows.front().rep.final_fields) fields += (fields.empty() ? "" : ", ") + f.name;
  fmt::print("compared fields: {} (max abs and max rel: the field with the largest relative difference)\n", fields);
}

}  // namespace

void add_compare(CLI::App& app, Common& c) {
  auto* sub = app.add_subcommand("compare", "run a case on several backends and compare the results");
  static CaseOptions co;
  static std::string backends;
  static double tolerance = -1;
  add_case_options(*sub, c, co);
  sub->add_option("--backends", backends, "comma-separated list of two or more (default: every available backend)")
      ->check(not_empty());
  sub->add_option("--tolerance", tolerance,
                  "largest allowed relative difference (default 1e-8 for double, 1e-3 for float)")
      ->check(positive_number());
  add_common_options(*sub, c);
  sub->callback([&c, sub] {
    apply_logging(c);
    const auto names = backend_list(backends);
    // the backends first, their choice logged after the case is checked on the first of them
    std::vector<std::unique_ptr<Backend>> bes;
    std::vector<std::string> choices, used;
    for (const auto& name : names) {
      std::string choice;
      bes.push_back(make_backend(name, c.backend_opts, &choice));
      if (!choice.empty()) choices.push_back(choice);
      for (std::size_t j = 0; j + 1 < bes.size(); ++j)
        if (bes[j]->name() == bes.back()->name() && bes[j]->device_name() == bes.back()->device_name())
          throw UsageError("--backends: " + name + " runs on " + bes.back()->name() + " (" + bes.back()->device_name() +
                           "), as " + names[j] + " does: compare runs each backend once");
      used.push_back(bes.back()->name());
    }
    const auto prec = [&] {
      auto cf = load_case(co.path, c);
      (void)read_output_options(cf);  // validated, but compare writes no output
      const auto p = run_precision(cf, *sub, c);
      MemoryNeed need;
      (void)make_simulation(cf, *bes.front(), p, &need);
      cf.check_all_used();
      return p;
    }();
    for (const auto& line : choices) spdlog::info("{}", line);
    warn_device_options(*sub, c.backend_opts.omp_threads, used);
    const double tol = tolerance >= 0 ? tolerance : (prec == Precision::Double ? 1e-8 : 1e-3);
    std::vector<Row> rows;
    for (auto& be : bes) {
      auto cf = load_case(co.path, c);
      (void)read_output_options(cf);
      (void)run_precision(cf, *sub, c);  // read above
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
      model.reset();
      be.reset();  // its device memory and contexts, before the next backend runs
    }
    bool fail = false;
    for (std::size_t i = 1; i < rows.size(); ++i) {
      differences(rows[i], rows.front().rep.final_fields);
      if (!(rows[i].max_rel <= tol)) fail = true;
    }
    print_table(rows);
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
