// The jacobi1d family: fused iterations with the device-side convergence decision, every reduction
// variant and combine, against the serial double reference.
#include <cmath>
#include <limits>
#include <utility>
#include <vector>

#include "core/kernels/control.hpp"
#include "core/kernels/jacobi1d.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {


// Runs `iters` Jacobi iterations in batches of `batch` launches and returns the final pressure
// (from whichever buffer the last iteration wrote) and the status.
template <class T>
std::pair<std::vector<double>, JacobiStatus> run_jacobi(Backend& be, const std::vector<T>& mface, const std::vector<T>& p0,
                                                        double pl, double pr, JacobiMetric metric, double threshold,
                                                        int check_every, const ReduceConfig& cfg, long iters, long batch) {
  const std::size_t n = p0.size();
  auto fm = make_field(be, mface);
  auto fa = make_field(be, p0);
  Field<T> fb(be, n);
  fb.fill(T(kNaN));  // poison: every point of the output must be written
  auto ctrl = be.alloc(kControlBytes);
  Jacobi1DArgs args;
  args.prec = precision_of<T>();
  args.n = n;
  args.mface = &fm.buffer();
  args.p[0] = &fa.buffer();
  args.p[1] = &fb.buffer();
  args.p_left = pl;
  args.p_right = pr;
  args.metric = metric;
  args.threshold = threshold;
  args.check_every = check_every;
  args.reduce = cfg;
  args.ctrl = ctrl.get();
  auto jac = be.jacobi1d();
  jac.reset(args);
  long done = 0;
  JacobiStatus st;
  while (done < iters) {
    long c = std::min(batch, iters - done);
    jac.iterate(args, done, c);
    done += c;
    st = jac.status(args, done);
    if (st.converged) break;
  }
  auto out = st.iterations % 2 == 0 ? fa.download() : fb.download();
  return {convert<double>(out), st};
}

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("jacobi1d: fixed iterations match the reference, every variant", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : {std::size_t(3), std::size_t(31), std::size_t(1000), std::size_t(65536 + 3)}) {
      auto mf = random_vector<double>(n - 1, 0.1, 2.0);
      auto p0 = random_vector<double>(n, 0.0, 1.0);
      for (auto metric : {JacobiMetric::Dp, JacobiMetric::Residual}) {
        auto [pref, sref] = run_jacobi<double>(reference(), mf, p0, 0.5, 0.1, metric, 0.0, 1, {ReduceVariant::Serial}, 25, 25);
        REQUIRE(sref.iterations == 25);
        for (const auto& cfg : reduce_configs(be)) {
          CAPTURE(n);
          INFO("metric = ", to_string(metric));
          INFO("cfg.variant = ", to_string(cfg.variant));
          INFO("cfg.combine = ", to_string(cfg.combine));
          CAPTURE(cfg.block);
          auto [p, st] = run_jacobi<T>(be, convert<T>(mf), convert<T>(p0), 0.5, 0.1, metric, 0.0, 1, cfg, 25, 10);
          CHECK(st.iterations == 25);
          CHECK_FALSE(st.converged);
          CHECK(max_rel_diff(p, pref) <= 10 * tol<T>());
          CHECK(st.last_metric == doctest::Approx(sref.last_metric).epsilon(sizeof(T) == 4 ? 1e-3 : 1e-9));
        }
      }
    }
  });
}

TEST_CASE_TEMPLATE("jacobi1d: the device stops at the same iteration as the reference", T, float, double) {
  for_each_backend([](Backend& be) {
    const std::size_t n = 2000 + 7;
    auto mf = random_vector<double>(n - 1, 0.5, 1.5);
    auto p0 = random_vector<double>(n, 0.0, 1.0);
    for (int check_every : {1, 3, 8}) {
      // threshold halfway between the metric at two checks, so rounding cannot move the stop
      auto [p60, s60] = run_jacobi<double>(reference(), mf, p0, 0.5, 0.1, JacobiMetric::Dp, 0.0, check_every,
                                           {ReduceVariant::Serial}, 60L / check_every * check_every, 1000);
      auto [p61, s61] = run_jacobi<double>(reference(), mf, p0, 0.5, 0.1, JacobiMetric::Dp, 0.0, check_every,
                                           {ReduceVariant::Serial}, (60L / check_every + 1) * check_every, 1000);
      double thr = 0.5 * (s60.last_metric + s61.last_metric);
      auto [pref, sref] = run_jacobi<double>(reference(), mf, p0, 0.5, 0.1, JacobiMetric::Dp, thr, check_every,
                                             {ReduceVariant::Serial}, 100000, 1000);
      REQUIRE(sref.converged);
      REQUIRE(sref.iterations == s61.iterations);
      for (const auto& cfg : reduce_configs(be)) {
        for (long batch : {1L, 7L, 64L}) {
          CAPTURE(check_every);
          CAPTURE(batch);
          INFO("cfg.variant = ", to_string(cfg.variant));
          INFO("cfg.combine = ", to_string(cfg.combine));
          auto [p, st] = run_jacobi<T>(be, convert<T>(mf), convert<T>(p0), 0.5, 0.1, JacobiMetric::Dp, thr, check_every,
                                       cfg, 100000, batch);
          CHECK(st.converged);
          CHECK(st.iterations == sref.iterations);
          CHECK(max_rel_diff(p, pref) <= 10 * tol<T>());
        }
      }
    }
  });
}

TEST_CASE_TEMPLATE("jacobi1d: NaN in the input is never reported as converged", T, float, double) {
  for_each_backend([](Backend& be) {
    const std::size_t n = 5000;
    auto mf = random_vector<T>(n - 1, 0.5, 1.5);
    auto p0 = random_vector<T>(n, 0.0, 1.0);
    p0[1234] = T(kNaN);
    for (const auto& cfg : reduce_configs(be)) {
      INFO("cfg.variant = ", to_string(cfg.variant));
      auto [p, st] = run_jacobi<T>(be, mf, p0, 0.5, 0.1, JacobiMetric::Residual, 1e30, 1, cfg, 5, 5);
      CHECK_FALSE(st.converged);
      CHECK(std::isnan(st.last_metric));
    }
  });
}

}  // TEST_SUITE
