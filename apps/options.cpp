#include "apps/options.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <thread>

namespace poreflow::app {

namespace {

std::string num(double x) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", x);
  return b;
}

bool parse_int(const std::string& s, long& v) {
  const char* end = s.data() + s.size();
  auto r = std::from_chars(s.data() + (s.size() > 1 && s[0] == '+' ? 1 : 0), end, v);
  return r.ec == std::errc() && r.ptr == end;
}

bool parse_number(const std::string& s, double& v) {
  if (s.empty()) return false;
  char* end = nullptr;
  v = std::strtod(s.c_str(), &end);
  return end == s.c_str() + s.size() && std::isfinite(v);
}

std::string in_quotes(const std::string& s) { return "'" + s + "'"; }

// "a, b or c"
std::string one_of(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size(); ++i) out += (i == 0 ? "" : i + 1 == names.size() ? " or " : ", ") + names[i];
  return out;
}

std::vector<std::string> subcommand_names(const CLI::App& app) {
  std::vector<std::string> names;
  for (const CLI::App* s : app.get_subcommands(std::function<bool(const CLI::App*)>())) names.push_back(s->get_name());
  return names;
}

}  // namespace

CLI::Validator int_in(long lo, long hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        long v = 0;
        if (!parse_int(s, v)) return in_quotes(s) + " is not an integer";
        if (v < lo || v > hi) return s + " is not in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        return {};
      },
      "in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
}

CLI::Validator int_at_least(long lo) {
  return CLI::Validator(
      [lo](std::string& s) -> std::string {
        long v = 0;
        if (!parse_int(s, v)) return in_quotes(s) + " is not an integer";
        if (v < lo) return s + " must be an integer >= " + std::to_string(lo);
        return {};
      },
      std::to_string(lo) + " or more");
}

CLI::Validator number_in(double lo, double hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        double v = 0;
        if (!parse_number(s, v)) return in_quotes(s) + " is not a finite number";
        if (v < lo || v > hi) return s + " is not in [" + num(lo) + ", " + num(hi) + "]";
        return {};
      },
      "in [" + num(lo) + ", " + num(hi) + "]");
}

CLI::Validator positive_number() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        double v = 0;
        if (!parse_number(s, v)) return in_quotes(s) + " is not a finite number";
        if (!(v > 0)) return s + " must be a number > 0";
        return {};
      },
      "positive");
}

CLI::Validator not_empty() {
  return CLI::Validator([](std::string& s) -> std::string { return s.empty() ? "the value is empty" : ""; }, "");
}

void check_subcommands(const CLI::App& app, int argc, char** argv) {
  const CLI::App* cur = &app;
  std::string path = app.get_name();
  for (int i = 1; i < argc && cur->get_require_subcommand_min() > 0; ++i) {
    const std::string a = argv[i];
    if (!a.empty() && a[0] == '-') return;  // an option (--help, --version): CLI11 takes it
    const CLI::App* next = nullptr;
    for (const CLI::App* s : cur->get_subcommands(std::function<bool(const CLI::App*)>()))
      if (s->get_name() == a) next = s;
    if (!next)
      throw UsageError("unknown subcommand " + in_quotes(a) + (cur == &app ? "" : " of " + path) + " (expected " +
                       one_of(subcommand_names(*cur)) + ")");
    cur = next;
    path += " " + a;
  }
  if (cur->get_require_subcommand_min() > 0) throw UsageError(path + " needs a subcommand: " + one_of(subcommand_names(*cur)));
}

std::string usage_message(const CLI::App& app, const CLI::ParseError& e) {
  const CLI::App* cur = &app;
  std::string path = app.get_name();
  while (!cur->get_subcommands().empty()) {
    cur = cur->get_subcommands().front();
    path += " " + cur->get_name();
  }
  return std::string(e.what()) + " (" + path + " --help lists the options)";
}

void warn_device_options(const CLI::App& sub, int omp_threads, const std::vector<std::string>& used) {
  auto given = [&sub](const char* name) {
    const CLI::Option* o = sub.get_option_no_throw(name);
    return o && o->count() > 0;
  };
  auto uses = [&used](const char* b) { return std::find(used.begin(), used.end(), b) != used.end(); };
  std::string on;
  for (const auto& b : used) on += (on.empty() ? "" : ", ") + b;
  on = (used.size() == 1 ? "this run is on " : "the runs are on ") + on;
  if (given("--threads")) {
    const unsigned hw = std::thread::hardware_concurrency();
    if (!uses("omp"))
      spdlog::warn("--threads applies to the omp backend; {}: ignored", on);
    else if (hw > 0 && omp_threads > static_cast<int>(hw))
      spdlog::warn("--threads {} is more than the {} hardware threads: the threads share the cores, which is slower, not faster",
                   omp_threads, hw);
  }
  for (const char* cl : {"--cl-platform", "--cl-device"})
    if (given(cl) && !uses("opencl")) spdlog::warn("{} applies to the opencl backend; {}: ignored", cl, on);
  if (given("--device") && !uses("cuda")) spdlog::warn("--device applies to the cuda backend; {}: ignored", on);
}

}  // namespace poreflow::app
