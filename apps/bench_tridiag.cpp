// poreflow bench tridiag: every algorithm and layout over square shapes (the ADI sweeps of an
// N x N grid) and large batches of small systems; cuSPARSE rows on cuda. Bandwidth counts the
// minimal bytes: read a, b, c, d and write x.
#include <fmt/core.h>
#include <functional>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "apps/bench_common.hpp"
#include "apps/bench_kinds.hpp"
#include "apps/common.hpp"
#include "core/base/error.hpp"
#include "core/base/limits.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/tridiag.hpp"

namespace poreflow::app {

namespace {

std::vector<std::pair<std::size_t, std::size_t>> parse_shapes(const std::string& s) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  if (s.empty()) {
    for (std::size_t n : {65, 129, 257, 513, 1025, 2049, 4097, 8193}) out.emplace_back(n, n);
    out.emplace_back(33, std::size_t(1) << 19);
    out.emplace_back(129, std::size_t(1) << 17);
    return out;
  }
  for (const auto& item : split_list(s)) {
    auto x = item.find('x');
    if (x == std::string::npos) throw ConfigError("--shapes: '" + item + "' is not NxBATCH (e.g. 1025x1025)");
    auto n = parse_sizes(item.substr(0, x), "--shapes"), b = parse_sizes(item.substr(x + 1), "--shapes");
    if (!product_within({n.front(), b.front()}))
      throw ConfigError("--shapes: '" + item + "': n x batch is past the limit of 2^48 = " + std::to_string(kMaxArrayValues) +
                        " (the most values of one array)");
    out.emplace_back(n.front(), b.front());
  }
  return out;
}

}  // namespace

template <class T>
void bench_tridiag(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw) {
  const auto shapes = parse_shapes(o.shapes);
  auto wanted = split_list(o.variants);
  for (const auto& w : wanted) (void)parse_tridiag_algo(w);  // ConfigError naming an unknown one
  auto reference = make_backend("serial");
  std::vector<std::unique_ptr<Backend>> bes;
  for (const auto& name : bench_backends(o)) {
    bes.push_back(make_backend(name, bo));
    bw.emplace_back(name, copy_bandwidth(*bes.back(), kCopyBytes));
    spdlog::info("bench tridiag: {} on {}: copy {:.1f} GB/s", name, bes.back()->device_name(), bw.back().second);
    // every shape's arrays before any is allocated: a, b, c, d and x on the backend; on the host
    // the systems and the reference in double (6 arrays), the serial reference's 5 arrays, the
    // upload in T and the result
    for (const auto& shape : shapes) {
      const std::size_t total = shape.first * shape.second;
      check_bench_memory(fmt::format("bench tridiag at {}x{}", shape.first, shape.second), *bes.back(), precision_of<T>(),
                         5 * total * sizeof(T), total * sizeof(T), total * (11 * sizeof(double) + 2 * sizeof(T)));
    }
  }
  for (const auto& shape : shapes) {
    const auto n = shape.first, batch = shape.second;  // (lambdas capture these; clang 14 cannot capture bindings)
    const std::size_t total = n * batch;
    // diagonally dominant systems, as the ADI sweeps produce
    auto ad = bench_random(total, -1, 1, total), cd = bench_random(total, -1, 1, total + 1);
    auto dd = bench_random(total, -1, 1, total + 2), ed = bench_random(total, 0.2, 1, total + 3);
    std::vector<double> bd(total);
    for (std::size_t k = 0; k < total; ++k) bd[k] = std::fabs(ad[k]) + std::fabs(cd[k]) + ed[k];
    ed.clear();
    ed.shrink_to_fit();
    for (auto layout : {TridiagLayout::Contiguous, TridiagLayout::Interleaved}) {
      // the reference: Thomas in double on the serial backend
      std::vector<double> xref(total);
      {
        Field<double> a(*reference, total), b(*reference, total), c(*reference, total), d(*reference, total),
            x(*reference, total);
        a.upload(ad);
        b.upload(bd);
        c.upload(cd);
        d.upload(dd);
        reference->tridiag().solve({Precision::Double, TridiagAlgo::Thomas, layout, n, batch, &a.buffer(), &b.buffer(),
                                  &c.buffer(), &d.buffer(), &x.buffer()});
        xref = x.download();
      }
      double scale = 0;
      for (double v : xref) scale = std::max(scale, std::fabs(v));
      for (std::size_t bi = 0; bi < bes.size(); ++bi) {
        Backend& be = *bes[bi];
        const double cbw = bw[bi].second;
        Field<T> a(be, total), b(be, total), c(be, total), d(be, total), x(be, total);
        a.upload(std::vector<T>(ad.begin(), ad.end()));
        b.upload(std::vector<T>(bd.begin(), bd.end()));
        c.upload(std::vector<T>(cd.begin(), cd.end()));
        d.upload(std::vector<T>(dd.begin(), dd.end()));
        TridiagArgs args{precision_of<T>(), TridiagAlgo::Auto, layout, n, batch, &a.buffer(), &b.buffer(), &c.buffer(),
                         &d.buffer(), &x.buffer()};
        auto add = [&](const std::string& variant, const std::function<void()>& solve) {
          x.fill(T(NAN));
          solve();
          auto got = x.download();
          double err = 0;
          for (std::size_t k = 0; k < total; ++k) err = std::max(err, std::fabs(double(got[k]) - xref[k]));
          if (!(err == err)) err = INFINITY;
          Timing t = measure(solve, [&] { be.sync(); }, o.target);
          BenchRow r = make_row("tridiag", be.name(), be.device_name(), variant, "-", to_string(precision_of<T>()), n, t,
                                5.0 * double(total) * sizeof(T));
          r.batch = batch;
          r.layout = to_string(layout);
          r.gbps = r.bytes / t.median / 1e9;
          r.copy_gbps = cbw;
          r.ratio_copy = r.gbps / cbw;
          r.verified = err <= (sizeof(T) == 4 ? 5e-5 : 1e-11) * std::max(scale, 1e-300);
          r.note = fmt::format("max abs diff {:.2e} vs serial double Thomas", err);
          if (variant == "auto") r.note += std::string(", auto = ") + to_string(be.tridiag().resolve(args));
          if (!r.verified) spdlog::error("bench tridiag: {} {} {} {}x{}: error {}", be.name(), variant, r.layout, n, batch, err);
          rows.push_back(r);
        };
        auto algos = tridiag_algos();
        algos.push_back(TridiagAlgo::Auto);
        for (auto algo : algos) {
          if (!wanted.empty() && std::find(wanted.begin(), wanted.end(), to_string(algo)) == wanted.end()) continue;
          // CPU backends: Thomas (the papers' sequential program); their other algorithms are host
          // versions kept for correctness, far slower by design
          if ((be.name() == "serial" || be.name() == "omp") && algo != TridiagAlgo::Thomas) {
            if (!wanted.empty()) {  // asked for by name: a row that says why it has no time
              BenchRow r = make_row("tridiag", be.name(), be.device_name(), to_string(algo), "-",
                                    to_string(precision_of<T>()), n, Timing{}, 0);
              r.batch = batch;
              r.layout = to_string(layout);
              r.ran = false;
              r.note = "not timed on " + be.name() + ": its host version of " + to_string(algo) +
                       " exists for correctness only (the CPU backends time thomas, the papers' program)";
              spdlog::warn("bench tridiag: {} {}", to_string(algo), r.note);
              rows.push_back(r);
            }
            continue;
          }
          add(to_string(algo), [&, algo] {
            auto t = args;
            t.algo = algo;
            be.tridiag().solve(t);
          });
        }
        if (!be.tridiag().vendor_name(layout).empty())
          add(be.tridiag().vendor_name(layout), [&] { be.tridiag().vendor_solve(args); });
      }
    }
  }
}

template void bench_tridiag<float>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);
template void bench_tridiag<double>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);

}  // namespace poreflow::app
