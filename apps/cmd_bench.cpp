// poreflow bench: the command, and the reduce and bl1d kinds (paper 000's tables on today's
// hardware). Every row is verified against the double reference and set against the copy
// bandwidth measured in the same run. tridiag and adi2d: bench_tridiag.cpp, bench_adi2d.cpp.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>

#include "apps/bench_common.hpp"
#include "apps/bench_kinds.hpp"
#include "apps/common.hpp"
#include "core/error.hpp"
#include "core/field.hpp"
#include "core/kernels/jacobi_ctrl.h"

namespace poreflow::app {

// Every reduction configuration of a backend: each variant, and for the paper variants both
// ways of combining the block results.
static std::vector<ReduceConfig> bench_configs(const Backend& be, const BenchOptions& o) {
  auto wanted = split_list(o.variants);
  std::vector<ReduceConfig> out;
  for (auto v : be.reduce_variants()) {
    if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), to_string(v)) == wanted.end()) continue;
    bool paper = v <= ReduceVariant::CompleteUnroll;
    out.push_back({v, Combine::Atomic, o.block});
    if (paper) out.push_back({v, Combine::Host, o.block});
  }
  return out;
}

template <class T>
void bench_reduce(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows,
                  std::vector<std::pair<std::string, double>>& bw) {
  const auto op = parse_reduce_op(o.op);
  const auto sizes = parse_sizes(o.sizes.empty() ? "2^14,2^16,2^18,2^20,2^22,2^24,2^26" : o.sizes);
  for (const auto& name : bench_backends(o)) {
    auto be = make_backend(name, bo);
    double cbw = copy_bandwidth(*be, kCopyBytes);
    bw.emplace_back(name, cbw);
    spdlog::info("bench reduce: {} on {}: copy {:.1f} GB/s", name, be->device_name(), cbw);
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
      for (const auto& cfg : bench_configs(*be, o)) {
        args.cfg = cfg;
        double got = be->reduce(args);
        Timing t = cfg.combine == Combine::Host
                       ? measure([&] { be->reduce_enqueue(args); be->reduce_fetch(); }, [] {}, o.target)
                       : measure([&] { be->reduce_enqueue(args); }, [&] { be->sync(); }, o.target);
        add_row(to_string(cfg.variant), cfg.variant <= ReduceVariant::CompleteUnroll ? to_string(cfg.combine) : "-", t,
                got);
      }
      if (!be->vendor_reduce_name().empty()) {
        be->vendor_reduce_enqueue(args);
        double got = be->reduce_fetch();
        Timing t = measure([&] { be->vendor_reduce_enqueue(args); }, [&] { be->sync(); }, o.target);
        add_row(be->vendor_reduce_name(), "-", t, got);
      }
    }
  }
}

template <class T>
void bench_bl1d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows,
                std::vector<std::pair<std::string, double>>& bw) {
  const auto sizes = parse_sizes(o.sizes.empty() ? "2^14,2^16,2^18,2^20,2^22,2^23" : o.sizes);
  const BLParams phys{0.001, 0.09, 0.3};
  const long verify_iters = 20;
  // The state of a water flood part-way: injected water behind x = 0.3, a small perturbation of
  // the linear pressure so every point changes in every iteration.
  auto make_state = [&](std::size_t n, std::vector<double>& s, std::vector<double>& p) {
    auto noise = bench_random(n, -1e-3, 1e-3, 7 * n);
    s.resize(n);
    p.resize(n);
    for (std::size_t i = 0; i < n; ++i) {
      double x = double(i) / double(n - 1);
      s[i] = x < 0.3 ? 1.0 - x : 0.001;
      p[i] = 0.5 - 0.4 * x + (i == 0 || i + 1 == n ? 0 : noise[i]);
    }
  };
  auto serial_ref = make_backend("serial");
  for (const auto& name : bench_backends(o)) {
    auto be = make_backend(name, bo);
    double cbw = copy_bandwidth(*be, kCopyBytes);
    bw.emplace_back(name, cbw);
    spdlog::info("bench bl1d: {} on {}: copy {:.1f} GB/s", name, be->device_name(), cbw);
    for (std::size_t n : sizes) {
      std::vector<double> sd, pd;
      make_state(n, sd, pd);
      // reference: verify_iters iterations in double on the serial backend
      auto run = [&](Backend& b, auto tag, const ReduceConfig& cfg, long iters, std::vector<double>* out,
                     Timing* timing) {
        using U = decltype(tag);
        Field<U> s(b, n), p0(b, n), p1(b, n), mf(b, n - 1);
        s.upload(std::vector<U>(sd.begin(), sd.end()));
        p0.upload(std::vector<U>(pd.begin(), pd.end()));
        p1.fill(U(NAN));
        b.bl1d_face_mobility({precision_of<U>(), n, &s.buffer(), &mf.buffer(), phys});
        auto ctrl = b.alloc(PF_JCTRL_WORDS * sizeof(std::uint64_t));
        Jacobi1DArgs a;
        a.prec = precision_of<U>();
        a.n = n;
        a.mface = &mf.buffer();
        a.p[0] = &p0.buffer();
        a.p[1] = &p1.buffer();
        a.p_left = 0.5;
        a.p_right = 0.1;
        a.metric = JacobiMetric::Dp;
        a.threshold = 0;  // never converges: every iteration does full work
        a.check_every = o.check_every;
        a.reduce = cfg;
        a.ctrl = ctrl.get();
        b.jacobi1d_reset(a);
        if (out) {
          b.jacobi1d_iterate(a, 0, iters);
          b.jacobi1d_status(a, iters);
          auto v = (iters % 2 == 0 ? p0 : p1).download();
          out->assign(v.begin(), v.end());
        }
        if (timing) {
          long next = 0;
          b.jacobi1d_reset(a);
          *timing = measure([&] { b.jacobi1d_iterate(a, next++, 1); }, [&] { b.sync(); }, o.target);
          auto st = b.jacobi1d_status(a, next);
          if (st.converged) throw Error("bench bl1d: the iteration converged; the timing is not of full iterations");
        }
      };
      std::vector<double> pref;
      run(*serial_ref, double{}, {ReduceVariant::Serial}, verify_iters, &pref, nullptr);
      double scale = 0;
      for (double v : pref) scale = std::max(scale, std::fabs(v));
      for (const auto& cfg : bench_configs(*be, o)) {
        std::vector<double> p;
        Timing t;
        run(*be, T{}, cfg, verify_iters, &p, &t);
        double err = 0;
        for (std::size_t i = 0; i < n; ++i) err = std::max(err, std::fabs(p[i] - pref[i]));
        if (!(err == err)) err = INFINITY;
        BenchRow r = make_row("bl1d_jacobi", name, be->device_name(), to_string(cfg.variant),
                              cfg.variant <= ReduceVariant::CompleteUnroll ? to_string(cfg.combine) : "-",
                              to_string(precision_of<T>()), n, t, 3.0 * double(n) * sizeof(T));
        r.gbps = r.bytes / t.median / 1e9;
        r.copy_gbps = cbw;
        r.ratio_copy = r.gbps / cbw;
        r.verified = err <= (sizeof(T) == 4 ? 2e-4 : 1e-11) * scale;
        r.note = fmt::format("one Jacobi iteration with its convergence check every {}; max abs diff {:.2e} after {} "
                             "iterations vs serial double",
                             o.check_every, err, verify_iters);
        if (!r.verified) spdlog::error("bench bl1d: {} {} n={} differs from the reference by {}", name, r.variant, n, err);
        rows.push_back(r);
      }
    }
  }
}

void add_bench(CLI::App& app, Common& c) {
  auto* bench = app.add_subcommand("bench", "benchmarks: reduce, bl1d, tridiag, adi2d");
  bench->require_subcommand(1);
  static BenchOptions o;
  struct Kind {
    const char* name;
    const char* help;
  };
  for (Kind kind : {Kind{"reduce", "reductions: every variant, CUB on cuda, against the copy bandwidth"},
                    Kind{"bl1d", "one fused Jacobi iteration with its convergence check (paper 000)"},
                    Kind{"tridiag", "batched tridiagonal solvers: algorithm x layout x shape, cuSPARSE on cuda"},
                    Kind{"adi2d", "the 100-step adi2d case per backend, algorithm and grid (papers 002/004)"}}) {
    const std::string k = kind.name;
    auto* sub = bench->add_subcommand(k, kind.help);
    add_common_options(*sub, c, false, true);
    sub->add_option("--backends", o.backends, "comma-separated (default: every available; serial is always added)");
    sub->add_option("--json", o.json, "write the rows to this JSON file");
    sub->add_option("--sample-seconds", o.target, "target duration of one timing sample")->capture_default_str();
    if (k == "reduce" || k == "bl1d") {
      sub->add_option("--sizes", o.sizes, "e.g. 2^14..2^26 or 16384,1048576");
      sub->add_option("--variants", o.variants, "only these reduction variants (comma-separated)");
      sub->add_option("--block", o.block, "threads per block of the paper variants")->capture_default_str();
    }
    if (k == "reduce") sub->add_option("--op", o.op, "sum | min | max | max_abs | max_abs_diff")->capture_default_str();
    if (k == "bl1d")
      sub->add_option("--check-every", o.check_every, "convergence check every K iterations")->capture_default_str();
    if (k == "tridiag") {
      sub->add_option("--shapes", o.shapes, "n x batch list, e.g. 1025x1025,33x2^19 (default: squares 65..8193 and "
                                            "large batches of small systems)");
      sub->add_option("--variants", o.variants, "only these algorithms (comma-separated)");
    }
    if (k == "adi2d") {
      sub->add_option("--sizes", o.sizes, "grid points per side (default 65,129,257,513,1025,2049,4097)");
      sub->add_option("--variants", o.variants, "only these tridiagonal algorithms (comma-separated)");
      sub->add_option("--steps", o.steps, "time steps of the case")->capture_default_str();
      sub->add_option("--cpu-budget", o.serial_budget,
                      "seconds a serial or omp run may take; longer ones are timed over fewer steps and scaled")
          ->capture_default_str();
      sub->add_option("--gpu-budget", o.device_budget, "the same for a cuda or opencl run")->capture_default_str();
    }
    sub->callback([&c, sub, k] {
      apply_logging(c);
      // benchmarks default to float, as the papers measured
      auto prec = parse_precision(sub->count("--precision") ? c.precision : "float");
      const bool f = prec == Precision::Float;
      std::vector<BenchRow> rows;
      std::vector<std::pair<std::string, double>> bw;
      if (k == "reduce") f ? bench_reduce<float>(o, c.backend_opts, rows, bw) : bench_reduce<double>(o, c.backend_opts, rows, bw);
      if (k == "bl1d") f ? bench_bl1d<float>(o, c.backend_opts, rows, bw) : bench_bl1d<double>(o, c.backend_opts, rows, bw);
      if (k == "tridiag")
        f ? bench_tridiag<float>(o, c.backend_opts, rows, bw) : bench_tridiag<double>(o, c.backend_opts, rows, bw);
      if (k == "adi2d") f ? bench_adi2d<float>(o, c.backend_opts, rows, bw) : bench_adi2d<double>(o, c.backend_opts, rows, bw);
      fill_speedups(rows, k == "tridiag" || k == "adi2d" ? "thomas" : "serial");
      if (k == "adi2d")
        print_adi2d_tables(rows);
      else
        print_rows(rows, k == "reduce" ? "us" : k == "bl1d" ? "us/it" : "us");
      for (const auto& [name, gbps] : bw) fmt::print("copy bandwidth {}: {:.1f} GB/s (read + write)\n", name, gbps);
      if (!o.json.empty()) {
        write_json(o.json, k, rows, bw);
        fmt::print("wrote {}\n", o.json);
      }
      if (std::any_of(rows.begin(), rows.end(), [](const BenchRow& r) { return !r.verified; })) {
        spdlog::error("bench: some rows failed verification (marked NO)");
        c.exit_code = 1;
      }
    });
  }
}

}  // namespace poreflow::app
