// poreflow bench bl1d: one fused Jacobi iteration with its convergence check (paper 000), verified
// against serial double after a few iterations and set against the copy bandwidth.
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include "apps/bench_common.hpp"
#include "apps/bench_kinds.hpp"
#include "apps/common.hpp"
#include "core/base/error.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/bl1d.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/jacobi1d.hpp"

namespace poreflow::app {

template <class T>
void bench_bl1d(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows,
                BandwidthList& bw) {
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
    // every size's arrays before any is allocated: s, p0, p1 and the face mobilities on the
    // backend; on the host the state in double (s, p, the noise), the serial double reference's
    // four arrays, the two results and the state in T
    for (std::size_t n : sizes)
      check_bench_memory(fmt::format("bench bl1d at size {}", n), *be, precision_of<T>(), 4 * n * sizeof(T), n * sizeof(T),
                         n * (9 * sizeof(double) + 2 * sizeof(T)));
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
        b.bl1d().face_mobility({precision_of<U>(), n, &s.buffer(), &mf.buffer(), phys});
        auto ctrl = b.alloc(kControlBytes);
        auto jac = b.jacobi1d();
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
        jac.reset(a);
        if (out) {
          jac.iterate(a, 0, iters);
          jac.status(a, iters);
          auto v = (iters % 2 == 0 ? p0 : p1).download();
          out->assign(v.begin(), v.end());
        }
        if (timing) {
          long next = 0;
          jac.reset(a);
          *timing = measure([&] { jac.iterate(a, next++, 1); }, [&] { b.sync(); }, o.target);
          auto st = jac.status(a, next);
          if (st.converged) throw Error("bench bl1d: the iteration converged; the timing is not of full iterations");
        }
      };
      std::vector<double> pref;
      run(*serial_ref, double{}, {ReduceVariant::Serial}, verify_iters, &pref, nullptr);
      double scale = 0;
      for (double v : pref) scale = std::max(scale, std::fabs(v));
      for (const auto& cfg : bench_reduce_configs(*be, o)) {
        std::vector<double> p;
        Timing t;
        run(*be, T{}, cfg, verify_iters, &p, &t);
        double err = 0;
        for (std::size_t i = 0; i < n; ++i) err = std::max(err, std::fabs(p[i] - pref[i]));
        if (!(err == err)) err = INFINITY;
        BenchRow r = make_row("bl1d_jacobi", name, be->device_name(), to_string(cfg.variant),
                              is_paper_variant(cfg.variant) ? to_string(cfg.combine) : "-",
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

template void bench_bl1d<float>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);
template void bench_bl1d<double>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);

}  // namespace poreflow::app
