// poreflow bench reduce: paper 000's reduction table on today's hardware (every variant, CUB on
// cuda), each row verified against the double reference and set against the copy bandwidth
// measured in the same run.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "apps/bench_common.hpp"
#include "apps/bench_kinds.hpp"
#include "apps/common.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/reduce.hpp"

namespace poreflow::app {

// Every reduction configuration of a backend: each variant, and for the paper variants both
// ways of combining the block results.
std::vector<ReduceConfig> bench_reduce_configs(Backend& be, const BenchOptions& o) {
  auto wanted = split_list(o.variants);
  for (const auto& w : wanted) {
    const ReduceVariant v = parse_reduce_variant(w);  // ConfigError naming an unknown one
    const auto have = be.reduce().variants();
    if (std::find(have.begin(), have.end(), v) == have.end())
      spdlog::warn("bench: reduction variant '{}' is not timed on {}: that backend does not have it", w, be.name());
  }
  std::vector<ReduceConfig> out;
  for (auto v : be.reduce().variants()) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), to_string(v)) == wanted.end()) continue;
    bool paper = is_paper_variant(v);
    out.push_back({v, Combine::Atomic, o.block});
    if (paper) out.push_back({v, Combine::Host, o.block});
  }
  return out;
}

template <class T>
void bench_reduce(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows,
                  BandwidthList& bw) {
  const auto op = parse_reduce_op(o.op);
  const auto sizes = parse_sizes(o.sizes.empty() ? "2^14,2^16,2^18,2^20,2^22,2^24,2^26" : o.sizes);
  for (const auto& name : bench_backends(o)) {
    auto be = make_backend(name, bo);
    double cbw = copy_bandwidth(*be, kCopyBytes);
    bw.emplace_back(name, cbw);
    spdlog::info("bench reduce: {} on {}: copy {:.1f} GB/s", name, be->device_name(), cbw);
    // every size's arrays before any is allocated: a and b on the backend; on the host their
    // values in double (the generator) and in T
    for (std::size_t n : sizes)
      check_bench_memory(fmt::format("bench reduce at size {}", n), *be, precision_of<T>(), 2 * n * sizeof(T), n * sizeof(T),
                         2 * n * (sizeof(double) + sizeof(T)));
    for (std::size_t n : sizes) {
      auto ad = bench_random(n, -1, 1, n), bd = bench_random(n, -1, 1, n + 1);
      std::vector<T> a(ad.begin(), ad.end()), b(bd.begin(), bd.end());
      // the reference from the values as stored in T
      double ref = 0, sum_abs = 0;
      {
        double mx = -INFINITY, mn = INFINITY, mabs = 0, mad = 0, s = 0;
        for (std::size_t i = 0; i < n; ++i) {
          double x = a[i], y = b[i];
          s += x;
          sum_abs += std::fabs(x);
          mx = std::max(mx, x);
          mn = std::min(mn, x);
          mabs = std::max(mabs, std::fabs(x));
          mad = std::max(mad, std::fabs(x - y));
        }
        ref = op == ReduceOp::Sum ? s : op == ReduceOp::Min ? mn : op == ReduceOp::Max ? mx : op == ReduceOp::MaxAbs ? mabs : mad;
      }
      Field<T> fa(*be, n), fb(*be, n);
      fa.upload(a);
      fb.upload(b);
      ReduceArgs args{precision_of<T>(), op, {}, &fa.buffer(), &fb.buffer(), n};
      const double bytes = double(n) * sizeof(T) * (op == ReduceOp::MaxAbsDiff ? 2 : 1);
      const double scale = op == ReduceOp::Sum ? sum_abs : std::fabs(ref);
      const double tol = sizeof(T) == 4 ? 2e-5 : 1e-12;
      auto add_row = [&](const std::string& variant, const std::string& combine, const Timing& t, double got) {
        BenchRow r = make_row("reduce", name, be->device_name(), variant, combine, to_string(precision_of<T>()), n, t, bytes);
        r.gbps = bytes / t.median / 1e9;
        r.copy_gbps = cbw;
        r.ratio_copy = r.gbps / cbw;
        r.verified = std::fabs(got - ref) <= tol * std::max(scale, 1e-30);
        r.note = std::string("op ") + to_string(op);
        if (!r.verified) spdlog::error("bench reduce: {} {} n={} gave {} instead of {}", name, variant, n, got, ref);
        rows.push_back(r);
      };
      auto red = be->reduce();
      for (const auto& cfg : bench_reduce_configs(*be, o)) {
        args.cfg = cfg;
        double got = red.run(args);
        Timing t = cfg.combine == Combine::Host
                       ? measure([&] { red.enqueue(args); red.fetch(); }, [] {}, o.target)
                       : measure([&] { red.enqueue(args); }, [&] { be->sync(); }, o.target);
        add_row(to_string(cfg.variant), is_paper_variant(cfg.variant) ? to_string(cfg.combine) : "-", t, got);
      }
      if (!red.vendor_name().empty()) {
        red.vendor_enqueue(args);
        double got = red.fetch();
        Timing t = measure([&] { red.vendor_enqueue(args); }, [&] { be->sync(); }, o.target);
        add_row(red.vendor_name(), "-", t, got);
      }
    }
  }
}

template void bench_reduce<float>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);
template void bench_reduce<double>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);

}  // namespace poreflow::app
