// The bl1d family: every point kernel against the serial double reference, outputs poisoned first.
#include <limits>
#include <tuple>
#include <vector>

#include "core/kernels/bl1d.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {
}

TEST_SUITE("backend") {

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
        b.bl1d().face_mobility({precision_of<U>(), n, &fs.buffer(), &fm.buffer(), phys});
        b.bl1d().face_velocity({precision_of<U>(), n, &fp.buffer(), &fm.buffer(), &fv.buffer(), 7.0});
        b.bl1d().saturation({precision_of<U>(), n, &fs.buffer(), &fu.buffer(), &fq.buffer(), 0.3, 0.95, phys});
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
        b.bl1d().pressure_system({precision_of<U>(), n, &fm.buffer(), 0.75, -0.5, &abcd[0].buffer(), &abcd[1].buffer(),
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
