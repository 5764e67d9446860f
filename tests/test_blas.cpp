// The blas family: axpy against the double reference, and its guard.
#include <cstdint>
#include <vector>

#include "core/kernels/blas.hpp"
#include "core/kernels/control.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("axpy: y += alpha x against the double reference", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : kSizes) {
      CAPTURE(n);
      const double alpha = -0.75;
      auto x = random_vector<T>(n + 1, -1, 1);  // one past n: must stay untouched in y
      auto y = random_vector<T>(n + 1, -1, 1);
      auto fx = make_field(be, x);
      auto fy = make_field(be, y);
      be.blas().axpy({precision_of<T>(), n, alpha, &fx.buffer(), &fy.buffer()});
      auto got = convert<double>(fy.download());
      std::vector<double> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = double(y[i]) + alpha * double(x[i]);
      CHECK(max_rel_diff(std::vector<double>(got.begin(), got.begin() + long(n)), want, 1.0) <= tol<T>());
      CHECK(got[n] == double(y[n]));
    }
  });
}

TEST_CASE_TEMPLATE("axpy: a guard that says stop leaves y as it was", T, float, double) {
  for_each_backend([](Backend& be) {
    const std::size_t n = 70001;
    auto x = random_vector<T>(n, -1, 1), y = random_vector<T>(n, -1, 1);
    auto fx = make_field(be, x), fy = make_field(be, y);
    auto ctrl = be.alloc(kControlBytes);
    be.control().reset(*ctrl);
    be.blas().axpy({precision_of<T>(), n, 2.0, &fx.buffer(), &fy.buffer(), ctrl.get()});  // running: updates
    auto once = fy.download();
    for (std::size_t i = 0; i < n; i += 977) CHECK(once[i] == T(y[i] + T(2) * x[i]));
    const std::uint64_t stop = PF_CV_CONVERGED;
    be.upload(*ctrl, &stop, sizeof stop, PF_CV_STOP * sizeof(std::uint64_t));
    be.blas().axpy({precision_of<T>(), n, 2.0, &fx.buffer(), &fy.buffer(), ctrl.get()});
    CHECK(fy.download() == once);
  });
}

}  // TEST_SUITE
