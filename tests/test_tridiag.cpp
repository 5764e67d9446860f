// Batched tridiagonal solvers: every algorithm, both layouts, float and double, on every backend
// under test against the serial double Thomas solve, which is itself checked against a dense
// Gaussian elimination for small n. Outputs are poisoned with NaN first.
#include <cmath>
#include <cstdint>
#include <utility>
#include <limits>
#include <vector>

#include "core/kernels/control.hpp"
#include "core/kernels/tridiag.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

struct Systems {
  std::size_t n, batch;
  std::vector<double> a, b, c, d;  // in the layout's order
};

// Diagonally dominant random systems (the kind the models produce), random signs off the diagonal.
Systems random_systems(std::size_t n, std::size_t batch) {
  Systems s{n, batch, random_vector<double>(n * batch, -1, 1), {}, random_vector<double>(n * batch, -1, 1),
            random_vector<double>(n * batch, -1, 1)};
  auto extra = random_vector<double>(n * batch, 0.2, 1.0);
  s.b.resize(n * batch);
  for (std::size_t k = 0; k < n * batch; ++k) s.b[k] = std::fabs(s.a[k]) + std::fabs(s.c[k]) + extra[k];
  return s;
}

template <class T>
std::vector<double> solve_on(Backend& be, const Systems& s, TridiagAlgo algo, TridiagLayout layout) {
  auto fa = make_field(be, convert<T>(s.a)), fb = make_field(be, convert<T>(s.b));
  auto fc = make_field(be, convert<T>(s.c)), fd = make_field(be, convert<T>(s.d));
  Field<T> fx(be, s.n * s.batch);
  fx.fill(std::numeric_limits<T>::quiet_NaN());
  TridiagArgs args{precision_of<T>(), algo, layout, s.n, s.batch, &fa.buffer(), &fb.buffer(), &fc.buffer(),
                   &fd.buffer(), &fx.buffer()};
  be.tridiag().solve(args);
  return convert<double>(fx.download());
}

// index of unknown i of system k in a layout
std::size_t at(TridiagLayout l, std::size_t n, std::size_t batch, std::size_t k, std::size_t i) {
  return l == TridiagLayout::Contiguous ? k * n + i : i * batch + k;
}

// dense Gaussian elimination with partial pivoting of system k
std::vector<double> dense_solve(const Systems& s, TridiagLayout l, std::size_t k) {
  const std::size_t n = s.n;
  std::vector<double> m(n * (n + 1), 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    std::size_t g = at(l, n, s.batch, k, i);
    if (i > 0) m[i * (n + 1) + i - 1] = s.a[g];
    m[i * (n + 1) + i] = s.b[g];
    if (i + 1 < n) m[i * (n + 1) + i + 1] = s.c[g];
    m[i * (n + 1) + n] = s.d[g];
  }
  for (std::size_t col = 0; col < n; ++col) {
    std::size_t p = col;
    for (std::size_t r = col + 1; r < n; ++r)
      if (std::fabs(m[r * (n + 1) + col]) > std::fabs(m[p * (n + 1) + col])) p = r;
    for (std::size_t j = 0; j <= n; ++j) std::swap(m[col * (n + 1) + j], m[p * (n + 1) + j]);
    for (std::size_t r = col + 1; r < n; ++r) {
      double f = m[r * (n + 1) + col] / m[col * (n + 1) + col];
      for (std::size_t j = col; j <= n; ++j) m[r * (n + 1) + j] -= f * m[col * (n + 1) + j];
    }
  }
  std::vector<double> x(n);
  for (std::size_t i = n; i-- > 0;) {
    double v = m[i * (n + 1) + n];
    for (std::size_t j = i + 1; j < n; ++j) v -= m[i * (n + 1) + j] * x[j];
    x[i] = v / m[i * (n + 1) + i];
  }
  return x;
}

std::vector<std::pair<std::size_t, std::size_t>> shapes() {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (std::size_t n : {1, 2, 3, 4, 5, 31, 32, 33, 64, 65, 1000, 1025, 4097, 100001})
    for (std::size_t batch : {1, 7, 1025})
      if (n * batch <= (std::size_t(1) << 22)) out.emplace_back(n, batch);
  return out;
}

}  // namespace

TEST_SUITE("unit") {
TEST_CASE("tridiag: the serial Thomas reference agrees with a dense solve") {
  for (std::size_t n : {1, 2, 3, 5, 33, 65}) {
    auto s = random_systems(n, 3);
    for (auto layout : {TridiagLayout::Contiguous, TridiagLayout::Interleaved}) {
      auto x = solve_on<double>(reference(), s, TridiagAlgo::Thomas, layout);
      for (std::size_t k = 0; k < 3; ++k) {
        auto xd = dense_solve(s, layout, k);
        for (std::size_t i = 0; i < n; ++i) CHECK(x[at(layout, n, 3, k, i)] == doctest::Approx(xd[i]).epsilon(1e-12));
      }
    }
  }
}
}

TEST_SUITE("backend") {
TEST_CASE_TEMPLATE("tridiag: every algorithm and layout against the double Thomas reference", T, float, double) {
  for_each_backend([](Backend& be) {
    for (auto nb : shapes()) {
      const std::size_t n = nb.first, batch = nb.second;  // (lambdas below capture them)
      auto s = random_systems(n, batch);
      for (auto layout : {TridiagLayout::Contiguous, TridiagLayout::Interleaved}) {
        auto ref = solve_on<double>(reference(), s, TridiagAlgo::Thomas, layout);
        auto algos = tridiag_algos();
        algos.push_back(TridiagAlgo::Auto);
        for (auto algo : algos) {
          CAPTURE(n);
          CAPTURE(batch);
          INFO("layout = ", to_string(layout));
          INFO("algo = ", to_string(algo));
          auto x = solve_on<T>(be, s, algo, layout);
          CHECK(max_rel_diff(x, ref) <= (sizeof(T) == 4 ? 5e-5 : 1e-11));
        }
      }
    }
  });
}

TEST_CASE_TEMPLATE("tridiag: the vendor library's solver agrees with the reference", T, float, double) {
  for_each_backend([](Backend& be) {
    for (auto layout : {TridiagLayout::Contiguous, TridiagLayout::Interleaved}) {
      if (be.tridiag().vendor_name(layout).empty()) continue;
      for (auto nb : {std::pair<std::size_t, std::size_t>{1025, 1025}, {33, 7}, {4097, 3}}) {
        const std::size_t n = nb.first, batch = nb.second;  // (lambdas below capture them)
        auto s = random_systems(n, batch);
        auto ref = solve_on<double>(reference(), s, TridiagAlgo::Thomas, layout);
        auto fa = make_field(be, convert<T>(s.a)), fb = make_field(be, convert<T>(s.b));
        auto fc = make_field(be, convert<T>(s.c)), fd = make_field(be, convert<T>(s.d));
        Field<T> fx(be, n * batch);
        fx.fill(std::numeric_limits<T>::quiet_NaN());
        be.tridiag().vendor_solve({precision_of<T>(), TridiagAlgo::Auto, layout, n, batch, &fa.buffer(), &fb.buffer(),
                                 &fc.buffer(), &fd.buffer(), &fx.buffer()});
        INFO("layout = ", to_string(layout));
        CAPTURE(n);
        CHECK(max_rel_diff(convert<double>(fx.download()), ref) <= (sizeof(T) == 4 ? 5e-5 : 1e-11));
      }
    }
  });
}

TEST_CASE_TEMPLATE("tridiag: a guard that says stop leaves x as it was, for every algorithm", T, float, double) {
  // ADI's iterations after its control stopped: every kernel of the solve returns at once
  for_each_backend([](Backend& be) {
    for (auto nb : {std::pair<std::size_t, std::size_t>{1025, 67}, {8193, 3}, {33, 301}}) {
      const std::size_t n = nb.first, batch = nb.second;  // (lambdas below capture them)
      auto s = random_systems(n, batch);
      for (auto layout : {TridiagLayout::Contiguous, TridiagLayout::Interleaved}) {
        auto fa = make_field(be, convert<T>(s.a)), fb = make_field(be, convert<T>(s.b));
        auto fc = make_field(be, convert<T>(s.c)), fd = make_field(be, convert<T>(s.d));
        auto ctrl = be.alloc(kControlBytes);
        be.control().reset(*ctrl);
        const std::uint64_t stop = PF_CV_CONVERGED;
        be.upload(*ctrl, &stop, sizeof stop, PF_CV_STOP * sizeof(std::uint64_t));
        for (auto algo : tridiag_algos()) {
          Field<T> fx(be, n * batch);
          fx.fill(T(7));
          be.tridiag().solve({precision_of<T>(), algo, layout, n, batch, &fa.buffer(), &fb.buffer(), &fc.buffer(),
                              &fd.buffer(), &fx.buffer(), ctrl.get()});
          INFO("layout = ", to_string(layout));
          INFO("algo = ", to_string(algo));
          CAPTURE(n);
          CHECK(fx.download() == std::vector<T>(n * batch, T(7)));
        }
        // running: the guarded solve is the plain one
        be.control().reset(*ctrl);
        auto ref = solve_on<double>(reference(), s, TridiagAlgo::Thomas, layout);
        Field<T> fx(be, n * batch);
        be.tridiag().solve({precision_of<T>(), TridiagAlgo::Auto, layout, n, batch, &fa.buffer(), &fb.buffer(),
                            &fc.buffer(), &fd.buffer(), &fx.buffer(), ctrl.get()});
        CHECK(max_rel_diff(convert<double>(fx.download()), ref) <= (sizeof(T) == 4 ? 5e-5 : 1e-11));
      }
    }
  });
}

TEST_CASE_TEMPLATE("tridiag: with add, x is the solution plus add, for every algorithm", T, float, double) {
  // ADI's update q + correction, stored by the solve itself
  for_each_backend([](Backend& be) {
    for (auto nb : {std::pair<std::size_t, std::size_t>{1025, 67}, {8193, 3}, {33, 301}, {2, 5}}) {
      const std::size_t n = nb.first, batch = nb.second;  // (lambdas below capture them)
      auto s = random_systems(n, batch);
      auto q = random_vector<double>(n * batch, -2, 2);
      for (auto layout : {TridiagLayout::Contiguous, TridiagLayout::Interleaved}) {
        auto ref = solve_on<double>(reference(), s, TridiagAlgo::Thomas, layout);
        for (std::size_t i = 0; i < ref.size(); ++i) ref[i] += double(T(q[i]));
        auto fa = make_field(be, convert<T>(s.a)), fb = make_field(be, convert<T>(s.b));
        auto fc = make_field(be, convert<T>(s.c)), fd = make_field(be, convert<T>(s.d));
        auto fq = make_field(be, convert<T>(q));
        for (auto algo : tridiag_algos()) {
          Field<T> fx(be, n * batch);
          fx.fill(std::numeric_limits<T>::quiet_NaN());
          TridiagArgs args{precision_of<T>(), algo, layout, n, batch, &fa.buffer(), &fb.buffer(), &fc.buffer(),
                           &fd.buffer(), &fx.buffer()};
          args.add = &fq.buffer();
          be.tridiag().solve(args);
          INFO("layout = ", to_string(layout));
          INFO("algo = ", to_string(algo));
          CAPTURE(n);
          CHECK(max_rel_diff(convert<double>(fx.download()), ref) <= (sizeof(T) == 4 ? 5e-5 : 1e-11));
        }
      }
    }
  });
}
}
