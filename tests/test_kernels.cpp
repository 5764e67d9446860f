// Every kernel on every backend under test against the serial double reference, on fresh random
// data, with sizes that are not powers of two and larger than a block; outputs are poisoned first.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/kernels/jacobi_ctrl.h"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

const std::vector<std::size_t> kSizes = {1, 2, 31, 32, 33, 1000, 4097, 65536 + 17, (1u << 20) + 3};
const double kNaN = std::numeric_limits<double>::quiet_NaN();

template <class T>
double reduce_on(Backend& be, ReduceOp op, const ReduceConfig& cfg, const std::vector<T>& a, const std::vector<T>& b) {
  auto fa = make_field(be, a);
  auto fb = make_field(be, b);
  ReduceArgs args;
  args.prec = precision_of<T>();
  args.op = op;
  args.cfg = cfg;
  args.a = &fa.buffer();
  args.b = &fb.buffer();
  args.n = a.size();
  return be.reduce(args);
}

// every configuration a backend offers: each variant, both combines for the paper variants, and
// a few block sizes
std::vector<ReduceConfig> configs_of(const Backend& be) {
  std::vector<ReduceConfig> out;
  for (auto v : be.reduce_variants()) {
    bool paper = v <= ReduceVariant::CompleteUnroll;
    for (auto c : {Combine::Atomic, Combine::Host}) {
      if (!paper && c == Combine::Host) continue;
      for (int block : {512, 128}) {
        if (!paper && block != 512) continue;
        out.push_back({v, c, block});
      }
    }
  }
  return out;
}

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("memory: upload, download, copy and fill round trip", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65536 + 5)}) {
      auto host = random_vector<T>(n, -1, 1);
      auto f = make_field(be, host);
      CHECK(f.download() == host);
      Field<T> g(be, n);
      g.fill(T(kNaN));
      be.copy(f.buffer(), g.buffer(), n * sizeof(T));
      CHECK(g.download() == host);
      g.fill(T(2.5));
      CHECK(g.download() == std::vector<T>(n, T(2.5)));
      // partial upload/download at an offset
      std::vector<T> part = {T(7), T(8)};
      if (n >= 4) {
        be.upload(g.buffer(), part.data(), 2 * sizeof(T), sizeof(T));
        std::vector<T> back(2);
        be.download(g.buffer(), back.data(), 2 * sizeof(T), sizeof(T));
        CHECK(back == part);
      }
    }
  });
}

TEST_CASE_TEMPLATE("axpy: y += alpha x against the double reference", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : kSizes) {
      const double alpha = -0.75;
      auto x = random_vector<T>(n + 1, -1, 1);  // one past n: must stay untouched in y
      auto y = random_vector<T>(n + 1, -1, 1);
      auto fx = make_field(be, x);
      auto fy = make_field(be, y);
      be.axpy(precision_of<T>(), n, alpha, fx.buffer(), fy.buffer());
      auto got = convert<double>(fy.download());
      std::vector<double> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = double(y[i]) + alpha * double(x[i]);
      CHECK(max_rel_diff(std::vector<double>(got.begin(), got.begin() + long(n)), want, 1.0) <= tol<T>());
      CHECK(got[n] == double(y[n]));
    }
  });
}

TEST_CASE_TEMPLATE("reduce: every op, variant and combine against the double reference", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : kSizes) {
      auto a = random_vector<T>(n, -1, 1);
      auto b = random_vector<T>(n, -1, 1);
      // the extreme sits at a random place, so a reduction that skips elements fails
      std::uniform_int_distribution<std::size_t> pos(0, n - 1);
      a[pos(rng())] = T(3.5);
      a[pos(rng())] = T(-4.25);
      auto ad = convert<double>(a), bd = convert<double>(b);
      double sum_abs = 0;
      for (double x : ad) sum_abs += std::fabs(x);
      for (auto op : {ReduceOp::Sum, ReduceOp::Min, ReduceOp::Max, ReduceOp::MaxAbs, ReduceOp::MaxAbsDiff}) {
        double ref = reduce_on<double>(reference(), op, {ReduceVariant::Serial}, ad, bd);
        for (const auto& cfg : configs_of(be)) {
          CAPTURE(n);
          INFO("op = ", to_string(op));
          INFO("cfg.variant = ", to_string(cfg.variant));
          INFO("cfg.combine = ", to_string(cfg.combine));
          CAPTURE(cfg.block);
          double got = reduce_on<T>(be, op, cfg, a, b);
          // a max/min is one of the inputs (or |a-b| rounded once in T); a sum may round per add
          double scale = op == ReduceOp::Sum ? sum_abs : std::fabs(ref);
          CHECK(std::fabs(got - ref) <= tol<T>() * std::max(scale, 1e-30));
        }
      }
    }
  });
}

TEST_CASE_TEMPLATE("reduce: repeated calls reuse device state correctly", T, float, double) {
  // the atomic slots and the last-block counters must be reset between calls
  for_each_backend([](Backend& be) {
    for (const auto& cfg : configs_of(be)) {
      for (int rep = 0; rep < 3; ++rep) {
        std::size_t n = 100000 + 17 * rep;
        auto a = random_vector<T>(n, -1, 1);
        double ref = reduce_on<double>(reference(), ReduceOp::Max, {ReduceVariant::Serial}, convert<double>(a), {});
        INFO("cfg.variant = ", to_string(cfg.variant));
        CHECK(reduce_on<T>(be, ReduceOp::Max, cfg, a, a) == doctest::Approx(ref).epsilon(tol<T>()));
        double ref_sum = reduce_on<double>(reference(), ReduceOp::Sum, {ReduceVariant::Serial}, convert<double>(a), {});
        CHECK(std::fabs(reduce_on<T>(be, ReduceOp::Sum, cfg, a, a) - ref_sum) <= tol<T>() * double(n));
      }
    }
  });
}

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
  auto ctrl = be.alloc(PF_JCTRL_WORDS * sizeof(std::uint64_t));
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
  be.jacobi1d_reset(args);
  long done = 0;
  JacobiStatus st;
  while (done < iters) {
    long c = std::min(batch, iters - done);
    be.jacobi1d_iterate(args, done, c);
    done += c;
    st = be.jacobi1d_status(args, done);
    if (st.converged) break;
  }
  auto out = st.iterations % 2 == 0 ? fa.download() : fb.download();
  return {convert<double>(out), st};
}

}  // namespace

TEST_CASE_TEMPLATE("jacobi1d: fixed iterations match the reference, every variant", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : {std::size_t(3), std::size_t(31), std::size_t(1000), std::size_t(65536 + 3)}) {
      auto mf = random_vector<double>(n - 1, 0.1, 2.0);
      auto p0 = random_vector<double>(n, 0.0, 1.0);
      for (auto metric : {JacobiMetric::Dp, JacobiMetric::Residual}) {
        auto [pref, sref] = run_jacobi<double>(reference(), mf, p0, 0.5, 0.1, metric, 0.0, 1, {ReduceVariant::Serial}, 25, 25);
        REQUIRE(sref.iterations == 25);
        for (const auto& cfg : configs_of(be)) {
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
      for (const auto& cfg : configs_of(be)) {
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
    for (const auto& cfg : configs_of(be)) {
      INFO("cfg.variant = ", to_string(cfg.variant));
      auto [p, st] = run_jacobi<T>(be, mf, p0, 0.5, 0.1, JacobiMetric::Residual, 1e30, 1, cfg, 5, 5);
      CHECK_FALSE(st.converged);
      CHECK(std::isnan(st.last_metric));
    }
  });
}

TEST_CASE_TEMPLATE("bl1d: face mobility, face velocity and saturation update", T, float, double) {
  BLParams phys{0.001, 0.09, 0.3};
  for_each_backend([&](Backend& be) {
    for (std::size_t n : {std::size_t(2), std::size_t(3), std::size_t(31), std::size_t(1000), std::size_t((1u << 20) + 3)}) {
      CAPTURE(n);
      auto s = random_vector<double>(n, 0.0, 1.0);
      auto p = random_vector<double>(n, 0.0, 1.0);
      auto u = random_vector<double>(n - 1, -1.0, 1.0);  // both signs: both upwind branches
      auto run = [&](Backend& b, auto tag) {
        using U = decltype(tag);
        auto fs = make_field(b, convert<U>(s));
        auto fp = make_field(b, convert<U>(p));
        auto fu = make_field(b, convert<U>(u));
        Field<U> fm(b, n - 1), fv(b, n - 1), fq(b, n);
        fm.fill(U(kNaN));
        fv.fill(U(kNaN));
        fq.fill(U(kNaN));
        b.bl1d_face_mobility({precision_of<U>(), n, &fs.buffer(), &fm.buffer(), phys});
        b.bl1d_face_velocity({precision_of<U>(), n, &fp.buffer(), &fm.buffer(), &fv.buffer(), 7.0});
        b.bl1d_saturation({precision_of<U>(), n, &fs.buffer(), &fu.buffer(), &fq.buffer(), 0.3, 0.95, phys});
        return std::tuple{convert<double>(fm.download()), convert<double>(fv.download()), convert<double>(fq.download())};
      };
      auto [mref, vref, qref] = run(reference(), double{});
      auto [m, v, q] = run(be, T{});
      CHECK(max_rel_diff(m, mref) <= 10 * tol<T>());
      CHECK(max_rel_diff(v, vref) <= 10 * tol<T>());
      CHECK(max_rel_diff(q, qref) <= 10 * tol<T>());
      CHECK(q[0] == doctest::Approx(0.95).epsilon(tol<T>()));
    }
  });
}

TEST_CASE_TEMPLATE("bl1d: the pressure equation as one tridiagonal system", T, float, double) {
  for_each_backend([&](Backend& be) {
    for (std::size_t n : {std::size_t(1), std::size_t(2), std::size_t(3), std::size_t(1000), std::size_t((1u << 20) + 3)}) {
      CAPTURE(n);
      auto m = random_vector<double>(n > 1 ? n - 1 : 1, 0.1, 1.0);
      auto run = [&](Backend& b, auto tag) {
        using U = decltype(tag);
        auto fm = make_field(b, convert<U>(m));
        std::vector<Field<U>> abcd;
        for (int k = 0; k < 4; ++k) abcd.emplace_back(b, n).fill(U(kNaN));
        b.bl1d_pressure_system({precision_of<U>(), n, &fm.buffer(), 0.75, -0.5, &abcd[0].buffer(), &abcd[1].buffer(),
                                &abcd[2].buffer(), &abcd[3].buffer()});
        std::vector<std::vector<double>> out;
        for (auto& f : abcd) out.push_back(convert<double>(f.download()));
        return out;
      };
      auto ref = run(reference(), double{});
      auto got = run(be, T{});
      for (int k = 0; k < 4; ++k) CHECK(max_rel_diff(got[k], ref[k], 1.0) <= tol<T>());
      CHECK(got[3][0] == doctest::Approx(0.75));
      CHECK(got[3][n - 1] == doctest::Approx(n == 1 ? 0.75 : -0.5));  // one point: p_left
    }
  });
}

}  // TEST_SUITE

TEST_SUITE("backend") {
TEST_CASE_TEMPLATE("reduce: the vendor library's reduction agrees with the reference", T, float, double) {
  for_each_backend([](Backend& be) {
    if (be.vendor_reduce_name().empty()) return;
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t((1u << 20) + 3)}) {
      auto a = random_vector<T>(n, -1, 1), b = random_vector<T>(n, -1, 1);
      double ref = reduce_on<double>(reference(), ReduceOp::MaxAbsDiff, {ReduceVariant::Serial}, convert<double>(a),
                                     convert<double>(b));
      auto fa = make_field(be, a), fb = make_field(be, b);
      ReduceArgs args{precision_of<T>(), ReduceOp::MaxAbsDiff, {}, &fa.buffer(), &fb.buffer(), n};
      be.vendor_reduce_enqueue(args);
      CHECK(be.reduce_fetch() == doctest::Approx(ref).epsilon(tol<T>()));
    }
  });
}
}
