#include "apps/bench_common.hpp"

#include "apps/common.hpp"

#include <fmt/core.h>
#include <toml++/toml.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cmath>
#include <ctime>
#include <fstream>
#include <type_traits>

#include "backends/registry.hpp"
#include "core/base/error.hpp"
#include "core/base/limits.hpp"
#include "core/models/memory.hpp"

namespace poreflow::app {

using Clock = std::chrono::steady_clock;
double now_s() { return std::chrono::duration<double>(Clock::now().time_since_epoch()).count(); }
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

Timing measure(const std::function<void()>& op, const std::function<void()>& finish, double target_s, int samples,
               long max_reps) {
  op();  // warm-up: program builds, first-touch, caches
  finish();
  double t0 = now_s();
  op();
  finish();
  double one = std::max(now_s() - t0, 1e-7);
  Timing t;
  t.reps = std::clamp<long>(static_cast<long>(target_s / one), 1, max_reps);
  std::vector<double> per_op;
  for (int s = 0; s < samples; ++s) {
    double a = now_s();
    for (long r = 0; r < t.reps; ++r) op();
    finish();
    per_op.push_back((now_s() - a) / static_cast<double>(t.reps));
  }
  std::sort(per_op.begin(), per_op.end());
  t.median = per_op[per_op.size() / 2];
  t.min = per_op.front();
  return t;
}

double copy_bandwidth(Backend& be, std::size_t bytes) {
  auto src = be.alloc(bytes), dst = be.alloc(bytes);
  be.fill(*src, Precision::Float, 1.0, bytes / sizeof(float));
  be.fill(*dst, Precision::Float, 0.0, bytes / sizeof(float));
  auto t = measure([&] { be.copy(*src, *dst, bytes); }, [&] { be.sync(); }, 0.05, 7);
  return 2.0 * static_cast<double>(bytes) / t.median / 1e9;
}

std::vector<double> bench_random(std::size_t n, double lo, double hi, std::uint64_t seed) {
  std::vector<double> v(n);
  std::uint64_t x = seed * 0x9E3779B97F4A7C15ull + 1;
  for (auto& e : v) {  // splitmix64
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    e = lo + (hi - lo) * static_cast<double>(z >> 11) * 0x1.0p-53;
  }
  return v;
}

std::vector<std::string> bench_backends(const BenchOptions& o) {
  auto names = o.backends.empty() ? available_backends() : split_list(o.backends);
  names.erase(std::remove(names.begin(), names.end(), "serial"), names.end());
  names.insert(names.begin(), "serial");  // the baseline of every speedup, first
  return names;
}

bool serial_asked(const BenchOptions& o) {
  const auto given = split_list(o.backends);
  return given.empty() || std::find(given.begin(), given.end(), "serial") != given.end();
}

void fill_speedups(std::vector<BenchRow>& rows, const std::string& baseline) {
  for (auto& r : rows)
    for (const auto& s : rows)
      if (s.backend == "serial" && s.variant == baseline && s.size == r.size && s.batch == r.batch &&
          s.layout == r.layout && s.t.median > 0 && r.t.median > 0)  // 0: a failed run, no time
        r.speedup = s.t.median / r.t.median;
}

void BenchRow::set(const std::string& key, Extra v) {
  for (auto& [k, e] : extra)
    if (k == key) {
      e = std::move(v);
      return;
    }
  extra.emplace_back(key, std::move(v));
}

const BenchRow::Extra* BenchRow::get(const std::string& key) const {
  for (const auto& [k, e] : extra)
    if (k == key) return &e;
  return nullptr;
}

BenchRow make_row(std::string bench, std::string backend, std::string device, std::string variant, std::string combine,
                  std::string precision, std::size_t size, const Timing& t, double bytes) {
  BenchRow r;
  r.bench = std::move(bench);
  r.backend = std::move(backend);
  r.device = std::move(device);
  r.variant = std::move(variant);
  r.combine = std::move(combine);
  r.precision = std::move(precision);
  r.size = size;
  r.t = t;
  r.bytes = bytes;
  return r;
}

std::vector<std::size_t> parse_sizes(const std::string& s, const std::string& option) {
  // digits only, read whole (std::stoi read "2^70" as a shift past 64 bits: size 64; "2^64": size 1)
  auto digits = [&](const std::string& t, const std::string& d) -> std::uint64_t {
    std::uint64_t v = 0;
    const auto [end, ec] = std::from_chars(d.data(), d.data() + d.size(), v);
    if (d.empty() || ec == std::errc::invalid_argument || end != d.data() + d.size())
      throw ConfigError(option + ": '" + t + "' is not a size (use 16384, 2^14 or 2^14..2^20)");
    if (ec == std::errc::result_out_of_range) v = ~std::uint64_t(0);  // past any limit
    return v;
  };
  const std::string limit = " is past the limit of 2^48 = " + std::to_string(kMaxArrayValues) + " (the most values of one array)";
  auto one = [&](const std::string& t) -> std::size_t {
    if (t.rfind("2^", 0) == 0) {
      const std::uint64_t k = digits(t, t.substr(2));
      if (k > 48) throw ConfigError(option + ": '" + t + "'" + limit);
      return std::size_t(1) << k;
    }
    const std::uint64_t v = digits(t, t);
    if (v < 1) throw ConfigError(option + ": '" + t + "' is not a size: sizes are at least 1");
    if (v > kMaxArrayValues) throw ConfigError(option + ": '" + t + "'" + limit);
    return static_cast<std::size_t>(v);
  };
  std::vector<std::size_t> out;
  std::size_t start = 0;
  while (start <= s.size()) {
    auto end = s.find(',', start);
    std::string item = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!item.empty()) {
      auto dots = item.find("..");
      if (dots != std::string::npos) {
        std::size_t a = one(item.substr(0, dots)), b = one(item.substr(dots + 2));
        for (std::size_t v = a; v <= b; v *= 2) out.push_back(v);
      } else {
        out.push_back(one(item));
      }
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (out.empty()) throw ConfigError(option + " is empty");
  return out;
}

void check_bench_memory(const std::string& what, const Backend& be, Precision prec, std::size_t device_bytes,
                        std::size_t largest, std::size_t host_bytes) {
  MemoryNeed need;
  need.what = what;
  need.largest = largest;
  if (be.is_host()) {  // the arrays of the backend and the bench's own host arrays share the memory
    need.total = device_bytes + host_bytes;
    check_memory(need, prec, be);
    return;
  }
  need.total = device_bytes;
  check_memory(need, prec, be);
  need.what = what + " (its host arrays)";
  need.total = host_bytes;
  need.largest = 0;
  check_memory(need, prec, *make_backend("serial"));
}

FieldDifference field_difference(const std::vector<NamedField>& want, const std::vector<NamedField>& got) {
  FieldDifference out;
  if (want.size() != got.size()) return {INFINITY, "(the number of fields)"};
  for (std::size_t q = 0; q < want.size(); ++q) {
    const auto& w = want[q].values;
    const auto& g = got[q].values;
    if (w.size() != g.size()) return {INFINITY, want[q].name + " (its size)"};
    double scale = 0, d = 0;
    for (double x : w) scale = std::max(scale, std::fabs(x));
    for (std::size_t c = 0; c < w.size(); ++c) {
      if (!std::isfinite(g[c])) return {INFINITY, want[q].name};
      d = std::max(d, std::fabs(g[c] - w[c]));
    }
    const double rel = d / (scale > 0 ? scale : 1);
    if (rel > out.max_rel || out.field.empty()) out = {rel, want[q].name};
  }
  return out;
}

void print_rows(const std::vector<BenchRow>& rows, const char* unit) {
  const bool shaped = std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return !r.layout.empty(); });
  fmt::print("\n{:<7} {:<30} {:<11} {:>10}", "backend", "variant", shaped ? "layout" : "combine", "size");
  if (shaped) fmt::print(" {:>8}", "batch");
  fmt::print(" {:>12} {:>12} {:>9} {:>7} {:>9} {:>4}\n", std::string("median ") + unit, std::string("min ") + unit, "GB/s",
             "x copy", "speedup", "ok");
  for (const auto& r : rows) {
    fmt::print("{:<7} {:<30.30} {:<11} {:>10}", r.backend, r.variant, shaped ? r.layout : r.combine, r.size);
    if (shaped) fmt::print(" {:>8}", r.batch);
    if (!(r.t.median > 0)) {  // a row that says why it has no time
      fmt::print(" {}\n", r.note);
      continue;
    }
    fmt::print(" {:>12.3f} {:>12.3f} {:>9.1f} {:>7.3f} {:>9.1f} {:>4}\n", r.t.median * 1e6, r.t.min * 1e6, r.gbps,
               r.ratio_copy, r.speedup, r.verified ? "yes" : "NO");
  }
}

void write_json(const std::string& path, const std::string& bench, const std::vector<BenchRow>& rows,
                const std::vector<std::pair<std::string, double>>& copy_bw) {
  toml::table root;
  char date[32];
  std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  char host[256] = {};
  gethostname(host, sizeof host - 1);
  toml::table meta{{"bench", bench}, {"date", std::string(date)}, {"host", std::string(host)},
                   {"poreflow_version", POREFLOW_VERSION}, {"commit", source_commit()},
                   {"timing", "wall clock over back-to-back calls and one device sync per sample; median of 7 samples, "
                             "unless the row's own 'timing' says otherwise"}};
  toml::table bw;
  for (const auto& [name, gbps] : copy_bw) bw.insert(name, gbps);
  meta.insert("copy_gbps", bw);
  root.insert("meta", meta);
  toml::array arr;
  for (const auto& r : rows) {
    toml::table t{{"bench", r.bench},
                  {"backend", r.backend},
                  {"device", r.device},
                  {"variant", r.variant},
                  {"combine", r.combine},
                  {"precision", r.precision},
                  {"size", static_cast<int64_t>(r.size)},
                  {"batch", static_cast<int64_t>(r.batch)},
                  {"layout", r.layout},
                  {"median_s", r.t.median},
                  {"min_s", r.t.min},
                  {"reps_per_sample", static_cast<int64_t>(r.t.reps)},
                  {"bytes", r.bytes},
                  {"gbps", r.gbps},
                  {"copy_gbps", r.copy_gbps},
                  {"ratio_copy", r.ratio_copy},
                  {"speedup_vs_serial", r.speedup},
                  {"verified", r.verified},
                  {"ran", r.ran},
                  {"note", r.note}};
    if (!r.checked.empty()) t.insert_or_assign("checked", r.checked);
    if (!r.timing.empty()) t.insert_or_assign("timing", r.timing);
    for (const auto& kv : r.extra) {
      const std::string& key = kv.first;  // a name, not a structured binding: clang cannot capture those
      std::visit(
          [&](const auto& x) {
            using X = std::decay_t<decltype(x)>;
            if constexpr (std::is_same_v<X, long>) t.insert_or_assign(key, static_cast<int64_t>(x));
            else t.insert_or_assign(key, x);
          },
          kv.second);
    }
    arr.push_back(std::move(t));
  }
  root.insert("rows", arr);
  std::ofstream out(path);
  if (!out) throw ConfigError("--json: cannot write '" + path + "'");
  out << toml::json_formatter{root} << "\n";
  if (!out) throw Error("--json: writing '" + path + "' failed");
}

}  // namespace poreflow::app
