// The reduce family: every op, variant and combine against the serial double reference, on sizes
// that are not powers of two and larger than a block, with the extremes at random places.
#include <cmath>
#include <vector>

#include "core/kernels/reduce.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

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
  return be.reduce().run(args);
}

// The bound a sum in T may be off from the double reference: float, log2(n + 1) u sum|a| (u =
// 2^-24), the worst case of a summation tree of depth log2 n; the kernels' partial sums in float
// measured at most 8e-9 sum|a| at 2^20 + 3 values on PoCL (a tenth of the bound there), the host
// backends add in double. Double: 1e-12 sum|a|, the reference's own sequential rounding.
template <class T>
double sum_tolerance(std::size_t n, double sum_abs) {
  return sizeof(T) == 4 ? std::log2(double(n) + 1) * 0x1p-24 * sum_abs : 1e-12 * sum_abs;
}

}  // namespace

TEST_SUITE("backend") {

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
        for (const auto& cfg : reduce_configs(be)) {
          CAPTURE(n);
          INFO("op = ", to_string(op));
          INFO("cfg.variant = ", to_string(cfg.variant));
          INFO("cfg.combine = ", to_string(cfg.combine));
          CAPTURE(cfg.block);
          double got = reduce_on<T>(be, op, cfg, a, b);
          // a max/min is one of the inputs (or |a-b| rounded once in T); a sum may round per add
          if (op == ReduceOp::Sum)
            CHECK(std::fabs(got - ref) <= std::max(sum_tolerance<T>(n, sum_abs), 1e-30));
          else
            CHECK(std::fabs(got - ref) <= tol<T>() * std::max(std::fabs(ref), 1e-30));
        }
      }
    }
  });
}

TEST_CASE_TEMPLATE("reduce: a sum of small integers is exact in every variant, so a dropped element fails", T, float,
                   double) {
  // integers in [1, 8]: every partial sum is an integer below 8 (2^20 + 3) < 2^24, exact in float
  // in any order of additions, so the arithmetic allows no difference at all; a kernel that skips
  // an element (a tail, a block) is off by at least 1
  for_each_backend([](Backend& be) {
    std::uniform_int_distribution<int> v(1, 8);
    for (std::size_t n : kSizes) {
      std::vector<T> a(n);
      long exact = 0;
      for (auto& x : a) {
        const int k = v(rng());
        x = T(k);
        exact += k;
      }
      for (const auto& cfg : reduce_configs(be)) {
        CAPTURE(n);
        INFO("cfg.variant = ", to_string(cfg.variant));
        INFO("cfg.combine = ", to_string(cfg.combine));
        CAPTURE(cfg.block);
        CHECK(reduce_on<T>(be, ReduceOp::Sum, cfg, a, a) == double(exact));
      }
    }
  });
}

TEST_CASE_TEMPLATE("reduce: repeated calls reuse device state correctly", T, float, double) {
  // the atomic slots and the last-block counters must be reset between calls
  for_each_backend([](Backend& be) {
    for (const auto& cfg : reduce_configs(be)) {
      for (int rep = 0; rep < 3; ++rep) {
        std::size_t n = 100000 + 17 * rep;
        auto a = random_vector<T>(n, -1, 1);
        double ref = reduce_on<double>(reference(), ReduceOp::Max, {ReduceVariant::Serial}, convert<double>(a), {});
        INFO("cfg.variant = ", to_string(cfg.variant));
        CHECK(reduce_on<T>(be, ReduceOp::Max, cfg, a, a) == doctest::Approx(ref).epsilon(tol<T>()));
        double ref_sum = reduce_on<double>(reference(), ReduceOp::Sum, {ReduceVariant::Serial}, convert<double>(a), {});
        double sum_abs = 0;
        for (T x : a) sum_abs += std::fabs(double(x));
        CHECK(std::fabs(reduce_on<T>(be, ReduceOp::Sum, cfg, a, a) - ref_sum) <= sum_tolerance<T>(n, sum_abs));
      }
    }
  });
}

TEST_CASE_TEMPLATE("reduce: the vendor library's reduction agrees with the reference", T, float, double) {
  for_each_backend([](Backend& be) {
    if (be.reduce().vendor_name().empty()) return;
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t((1u << 20) + 3)}) {
      auto a = random_vector<T>(n, -1, 1), b = random_vector<T>(n, -1, 1);
      double ref = reduce_on<double>(reference(), ReduceOp::MaxAbsDiff, {ReduceVariant::Serial}, convert<double>(a),
                                     convert<double>(b));
      auto fa = make_field(be, a), fb = make_field(be, b);
      ReduceArgs args{precision_of<T>(), ReduceOp::MaxAbsDiff, {}, &fa.buffer(), &fb.buffer(), n};
      be.reduce().vendor_enqueue(args);
      CHECK(be.reduce().fetch() == doctest::Approx(ref).epsilon(tol<T>()));
    }
  });
}

}  // TEST_SUITE
