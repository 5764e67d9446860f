// The stencil7 family: apply, residual and the inverse diagonal on every backend against the double
// reference, scalar and 2 x 2 blocks, halos of 1 and 2, a box inside a larger array, inactive cells;
// the fused Chebyshev step; every entry that is no unknown comes out 0; the first singular diagonal
// is found.
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/kernels/control.hpp"
#include "core/kernels/stencil7.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {


struct Layout {
  Box3 box;
  std::size_t extent;
};

std::vector<Layout> layouts() {
  std::vector<Layout> v;
  for (long h : {1L, 2L})
    // 37 x 23 x 11 is past the omp threshold; 1 x 1 x 1 has one cell
    for (auto [nx, ny, nz] : {std::array<long, 3>{17, 9, 5}, {37, 23, 11}, {65, 3, 2}, {1, 1, 1}}) {
      const Box3 a = Box3::standalone(nx, ny, nz, h);
      v.push_back({a, a.extent()});
      const Box3 b = Box3::inside(nx, ny, nz, h, nx + 2 * h + 3, ny + 2 * h + 1, nz + 2 * h + 2, h + 1, h, h + 2);
      v.push_back({b, b.extent()});
    }
  return v;
}

// a mask: the box's cells active but for about one in `holes`
std::vector<int> mask(const Box3& b, std::size_t extent, unsigned holes) {
  std::vector<int> a(extent, 0);
  for (long k = 0; k < b.nz; ++k)
    for (long j = 0; j < b.ny; ++j)
      for (long i = 0; i < b.nx; ++i) a[b.at(i, j, k)] = holes == 0 || rng()() % holes != 0;
  return a;
}

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("stencil7 apply and residual against the double reference", T, float, double) {
  for_each_backend([](Backend& be) {
    for (const auto& L : layouts()) {
      for (int blk : {1, 2}) {
        CAPTURE(L.box.describe());
        CAPTURE(blk);
        const std::size_t e = L.extent, b2 = static_cast<std::size_t>(blk * blk);
        const auto act = mask(L.box, e, 7);
        auto coef = random_vector<T>(7 * b2 * e, -1, 1);
        auto x = random_vector<T>(blk * e, -1, 1), b = random_vector<T>(blk * e, -1, 1);
        auto fc = make_field(be, coef), fx = make_field(be, x), fb = make_field(be, b);
        auto fa = be.alloc(e * sizeof(int));
        be.upload(*fa, act.data(), e * sizeof(int));
        std::vector<double> want(blk * e, 0.0);
        const long off[7] = {0, -1, 1, -L.box.sy, L.box.sy, -L.box.sz, L.box.sz};
        for (std::size_t l = 0; l < e; ++l) {
          if (!act[l]) continue;
          for (int r = 0; r < blk; ++r) {
            double v = 0;
            for (int q = 0; q < 7; ++q)
              for (int c = 0; c < blk; ++c)
                v += double(coef[(q * e + l) * b2 + r * blk + c]) * double(x[(l + off[q]) * blk + c]);
            want[l * blk + r] = v;
          }
        }
        for (bool residual : {false, true}) {
          CAPTURE(residual);
          Field<T> y(be, blk * e);
          y.fill(T(kNaN));
          be.stencil7().apply({precision_of<T>(), L.box, blk, &fc.buffer(), fa.get(), &fx.buffer(),
                               residual ? &fb.buffer() : nullptr, &y.buffer()});
          auto got = convert<double>(y.download());
          std::vector<double> w = want;
          bool zeros = true;
          for (std::size_t l = 0; l < e; ++l)
            for (int r = 0; r < blk; ++r) {
              if (!act[l]) zeros = zeros && got[l * blk + r] == 0;  // exactly 0, not merely small
              else if (residual) w[l * blk + r] = double(b[l * blk + r]) - want[l * blk + r];
            }
          CHECK(zeros);
          CHECK(max_rel_diff(got, w, 1.0) <= 20 * tol<T>());
        }
      }
    }
  });
}

TEST_CASE_TEMPLATE("stencil7 apply: a guard that says stop leaves y as it was", T, float, double) {
  for_each_backend([](Backend& be) {
    const Box3 box = Box3::standalone(31, 17, 19, 1);
    const std::size_t e = box.extent();
    auto fc = make_field(be, random_vector<T>(7 * e, -1, 1)), fx = make_field(be, random_vector<T>(e, -1, 1));
    auto fa = be.alloc(e * sizeof(int));
    const auto act = mask(box, e, 0);
    be.upload(*fa, act.data(), e * sizeof(int));
    auto y = make_field(be, random_vector<T>(e, -1, 1));
    const auto was = y.download();
    auto ctrl = be.alloc(kControlBytes);
    be.control().reset(*ctrl);
    const std::uint64_t stop = PF_CV_LIMIT;
    be.upload(*ctrl, &stop, sizeof stop, PF_CV_STOP * sizeof(std::uint64_t));
    be.stencil7().apply({precision_of<T>(), box, 1, &fc.buffer(), fa.get(), &fx.buffer(), nullptr, &y.buffer(), ctrl.get()});
    CHECK(y.download() == was);
  });
}

TEST_CASE_TEMPLATE("stencil7 chebyshev: one fused step against the double reference", T, float, double) {
  for_each_backend([](Backend& be) {
    for (const auto& L : layouts()) {
      CAPTURE(L.box.describe());
      const std::size_t e = L.extent;
      const auto act = mask(L.box, e, 7);
      const auto coef = random_vector<T>(7 * e, -1, 1);
      const auto dinv = random_vector<T>(e, 0.2, 2), b = random_vector<T>(e, -1, 1), x = random_vector<T>(e, -1, 1);
      const auto d0 = random_vector<T>(e, -1, 1);
      const double alpha = 0.37, beta = 1.9;
      auto fc = make_field(be, coef), fdi = make_field(be, dinv), fb = make_field(be, b), fx = make_field(be, x);
      auto fd = make_field(be, d0);
      auto fa = be.alloc(e * sizeof(int));
      be.upload(*fa, act.data(), e * sizeof(int));
      Field<T> xo(be, e);
      xo.fill(T(kNaN));
      Stencil7ChebyshevArgs a;
      a.prec = precision_of<T>();
      a.box = L.box;
      a.coef = &fc.buffer();
      a.active = fa.get();
      a.dinv = &fdi.buffer();
      a.b = &fb.buffer();
      a.x = &fx.buffer();
      a.d = &fd.buffer();
      a.x_out = &xo.buffer();
      a.alpha = alpha;
      a.beta = beta;
      be.stencil7().chebyshev(a);
      std::vector<double> want_d(e, 0.0), want_x(e, 0.0);
      const long off[7] = {0, -1, 1, -L.box.sy, L.box.sy, -L.box.sz, L.box.sz};
      for (std::size_t l = 0; l < e; ++l) {
        if (!act[l]) continue;
        double r = double(b[l]);
        for (int q = 0; q < 7; ++q) r -= double(coef[q * e + l]) * double(x[l + off[q]]);
        want_d[l] = alpha * double(d0[l]) + beta * double(dinv[l]) * r;
        want_x[l] = double(x[l]) + want_d[l];
      }
      const auto got_d = convert<double>(fd.download()), got_x = convert<double>(xo.download());
      bool zeros = true;
      for (std::size_t l = 0; l < e; ++l)
        if (!act[l]) zeros = zeros && got_d[l] == 0 && got_x[l] == 0;  // exactly 0, not merely small
      CHECK(zeros);
      // the residual's rounding scaled by beta dinv (up to 4) and the sums' size
      CHECK(max_rel_diff(got_d, want_d, 1.0) <= 100 * tol<T>());
      CHECK(max_rel_diff(got_x, want_x, 1.0) <= 100 * tol<T>());
      // a guard that says stop leaves d and x_out as they were
      auto ctrl = be.alloc(kControlBytes);
      be.control().reset(*ctrl);
      const std::uint64_t stop = PF_CV_LIMIT;
      be.upload(*ctrl, &stop, sizeof stop, PF_CV_STOP * sizeof(std::uint64_t));
      a.guard = ctrl.get();
      const auto was_d = fd.download(), was_x = xo.download();
      be.stencil7().chebyshev(a);
      CHECK(fd.download() == was_d);
      CHECK(xo.download() == was_x);
    }
  });
}

TEST_CASE_TEMPLATE("stencil7 chebyshev from zero: the first two steps, or the first and its residual, in one pass", T, float,
                   double) {
  for_each_backend([](Backend& be) {
    for (const auto& L : layouts()) {
      for (bool residual : {false, true}) {
        CAPTURE(L.box.describe());
        CAPTURE(residual);
        const std::size_t e = L.extent;
        const auto act = mask(L.box, e, 7);
        const auto coef = random_vector<T>(7 * e, -1, 1);
        const auto dinv = random_vector<T>(e, 0.2, 2), b = random_vector<T>(e, -1, 1);
        const double start = 0.61, alpha = 0.37, beta = 1.9;
        auto fc = make_field(be, coef), fdi = make_field(be, dinv), fb = make_field(be, b);
        auto fa = be.alloc(e * sizeof(int));
        be.upload(*fa, act.data(), e * sizeof(int));
        Field<T> xo(be, e), fd(be, e), fr(be, e);  // every output poisoned; d is not read from zero
        for (Field<T>* f : {&xo, &fd, &fr}) f->fill(T(kNaN));
        Stencil7ChebyshevArgs a;
        a.prec = precision_of<T>();
        a.box = L.box;
        a.coef = &fc.buffer();
        a.active = fa.get();
        a.dinv = &fdi.buffer();
        a.b = &fb.buffer();
        a.d = &fd.buffer();
        a.x_out = &xo.buffer();
        a.r = residual ? &fr.buffer() : nullptr;
        a.alpha = alpha;
        a.beta = beta;
        a.start = start;
        be.stencil7().chebyshev(a);
        // x0 = start dinv b (every entry, as the kernel reads it); r = b - A x0; then either r with
        // d = x_out = x0, or d = alpha x0 + beta dinv r and x_out = x0 + d
        std::vector<double> x0(e), want_d(e, 0.0), want_x(e, 0.0), want_r(e, 0.0);
        for (std::size_t l = 0; l < e; ++l) x0[l] = start * double(dinv[l]) * double(b[l]);
        const long off[7] = {0, -1, 1, -L.box.sy, L.box.sy, -L.box.sz, L.box.sz};
        for (std::size_t l = 0; l < e; ++l) {
          if (!act[l]) continue;
          double r = double(b[l]);
          for (int q = 0; q < 7; ++q) r -= double(coef[q * e + l]) * x0[l + off[q]];
          want_r[l] = r;
          want_d[l] = residual ? x0[l] : alpha * x0[l] + beta * double(dinv[l]) * r;
          want_x[l] = residual ? x0[l] : x0[l] + want_d[l];
        }
        const auto got_d = convert<double>(fd.download()), got_x = convert<double>(xo.download());
        const auto got_r = convert<double>(fr.download());
        bool zeros = true, untouched = true;
        for (std::size_t l = 0; l < e; ++l) {
          if (!act[l]) zeros = zeros && got_d[l] == 0 && got_x[l] == 0 && (!residual || got_r[l] == 0);
          if (!residual) untouched = untouched && std::isnan(got_r[l]);
        }
        CHECK(zeros);
        CHECK(untouched);
        CHECK(max_rel_diff(got_d, want_d, 1.0) <= 100 * tol<T>());
        CHECK(max_rel_diff(got_x, want_x, 1.0) <= 100 * tol<T>());
        if (residual) CHECK(max_rel_diff(got_r, want_r, 1.0) <= 100 * tol<T>());
      }
    }
  });
}

TEST_CASE_TEMPLATE("stencil7 invert: the inverse diagonal (blocks) and the first singular row", T, float, double) {
  for_each_backend([](Backend& be) {
    for (const auto& L : layouts()) {
      for (int blk : {1, 2}) {
        CAPTURE(L.box.describe());
        CAPTURE(blk);
        const std::size_t e = L.extent, b2 = static_cast<std::size_t>(blk * blk);
        const auto act = mask(L.box, e, 5);
        auto coef = random_vector<T>(7 * b2 * e, -1, 1);
        for (std::size_t l = 0; l < e; ++l)  // diagonally dominant blocks; inactive ones may be anything
          for (int r = 0; r < blk; ++r) coef[l * b2 + r * blk + r] += T(r == 0 ? 3 : -4);
        auto fa = be.alloc(e * sizeof(int));
        be.upload(*fa, act.data(), e * sizeof(int));
        auto status = be.alloc(8);
        auto run = [&](const std::vector<T>& c, Field<T>& d) {
          auto fc = make_field(be, c);
          return be.stencil7().invert({precision_of<T>(), L.box, blk, &fc.buffer(), fa.get(), &d.buffer(), status.get()});
        };
        Field<T> d(be, b2 * e);
        d.fill(T(kNaN));
        CHECK(run(coef, d) == -1);
        auto got = convert<double>(d.download());
        std::vector<double> want(b2 * e, 0.0);
        for (std::size_t l = 0; l < e; ++l) {
          if (!act[l]) continue;
          if (blk == 1) {
            want[l] = 1.0 / double(coef[l]);
          } else {
            const double a = coef[4 * l], b = coef[4 * l + 1], c = coef[4 * l + 2], dd = coef[4 * l + 3];
            const double det = a * dd - b * c;
            want[4 * l] = dd / det, want[4 * l + 1] = -b / det, want[4 * l + 2] = -c / det, want[4 * l + 3] = a / det;
          }
        }
        CHECK(max_rel_diff(got, want, 1.0) <= 20 * tol<T>());
        // singular diagonals: a zero (block) at two active entries and a NaN at a later one; the first
        // is named; inactive entries never are
        std::vector<std::size_t> on;
        for (std::size_t l = 0; l < e; ++l)
          if (act[l]) on.push_back(l);
        if (on.size() < 3) continue;
        const std::size_t l1 = on[on.size() / 3], l2 = on[on.size() / 2], l3 = on.back();
        auto bad = coef;
        auto zero_row = [&](std::size_t l, int r) {
          for (int c = 0; c < blk; ++c) bad[l * b2 + r * blk + c] = 0;
        };
        zero_row(l1, blk - 1);  // block 2: row 1 zero -> unknown 1
        zero_row(l2, 0);
        bad[l3 * b2] = T(kNaN);
        for (std::size_t l = 0; l < e; ++l)
          if (!act[l]) bad[l * b2] = 0;  // inactive: ignored
        CHECK(run(bad, d) == long(l1 * 4 + (blk - 1) * 2 + PF_S7_SINGULAR));
        auto only_nan = coef;
        only_nan[l3 * b2] = T(kNaN);
        CHECK(run(only_nan, d) == long(l3 * 4 + PF_S7_NONFINITE));
        if (blk == 2) {  // dependent rows: unknown 1
          auto dep = coef;
          for (int c = 0; c < 2; ++c) dep[l2 * 4 + 2 + c] = T(2) * dep[l2 * 4 + c];
          CHECK(run(dep, d) == long(l2 * 4 + 2 + PF_S7_SINGULAR));
        }
      }
    }
  });
}

}  // TEST_SUITE

TEST_CASE("stencil7: bad arguments are refused") {
  Backend& be = reference();
  const Box3 box = Box3::standalone(4, 3, 2, 1), flat = Box3::standalone(4, 3, 2, 0);
  const std::size_t e = box.extent();
  Field<double> c(be, 7 * e), x(be, e), y(be, e);
  auto a = be.alloc(e * sizeof(int));
  CHECK_THROWS_AS(be.stencil7().apply({Precision::Double, box, 1, &c.buffer(), a.get(), &x.buffer(), nullptr, &x.buffer()}),
                  BackendError);
  CHECK_THROWS_AS(be.stencil7().apply({Precision::Double, box, 2, &c.buffer(), a.get(), &x.buffer(), nullptr, &y.buffer()}),
                  BackendError);
  CHECK_THROWS_AS(be.stencil7().apply({Precision::Double, flat, 1, &c.buffer(), a.get(), &x.buffer(), nullptr, &y.buffer()}),
                  BackendError);
  CHECK_THROWS_AS(be.stencil7().apply({Precision::Double, box, 3, &c.buffer(), a.get(), &x.buffer(), nullptr, &y.buffer()}),
                  BackendError);
  // chebyshev: x_out may be neither x nor the direction, the direction no input
  Field<double> d(be, e), di(be, e), b(be, e);
  auto cheb = [&](const Box3& bx, Field<double>& xi, Field<double>& dd, Field<double>& xo) {
    Stencil7ChebyshevArgs s;
    s.box = bx;
    s.coef = &c.buffer();
    s.active = a.get();
    s.dinv = &di.buffer();
    s.b = &b.buffer();
    s.x = &xi.buffer();
    s.d = &dd.buffer();
    s.x_out = &xo.buffer();
    be.stencil7().chebyshev(s);
  };
  CHECK_THROWS_AS(cheb(box, x, d, x), BackendError);
  CHECK_THROWS_AS(cheb(box, x, d, d), BackendError);
  CHECK_THROWS_AS(cheb(box, x, b, y), BackendError);
  CHECK_THROWS_AS(cheb(flat, x, d, y), BackendError);
  x.fill(0);
  b.fill(0);
  di.fill(0);
  d.fill(0);
  c.fill(0);
  be.fill(*a, Precision::Float, 0.0, e);  // an int 0 has float 0's bits
  CHECK_NOTHROW(cheb(box, x, d, y));
}
