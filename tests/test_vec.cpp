// The vec family: every kernel on every backend against the double reference (formulas evaluated
// here in double on the same rounded inputs), outputs poisoned first, the dot products' bits the same
// twice, the guards, the one-work-item kernels' decisions, and bad arguments.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "core/kernels/control.hpp"
#include "core/kernels/vec.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {


// sizes of the reductions' tests: 1, a block and one, past the omp threshold, a persistent grid's
// many strides, not powers of two
const std::vector<std::size_t> kDotSizes = {1, 257, 4097, 65536 + 17, (1u << 20) + 3};

template <class T>
std::vector<double> down(const Field<T>& f) {
  return convert<double>(f.download());
}

// |got - want| <= tol * scale, NaN failing
bool close(double got, double want, double scale, double tol) { return std::fabs(got - want) <= tol * std::max(scale, 1e-300); }

template <class T>
double dot_tol() {
  return sizeof(T) == 4 ? 1e-5 : 1e-13;
}

// the scalars of the update tests: s[1] = 0 (a zero denominator), the others non-zero
template <class T>
std::vector<T> scalars() {
  return {T(2), T(0), T(-0.5), T(4), T(1.25), T(-3), T(9), T(0.75)};
}

double coef_value(const VecCoef& c, const std::vector<double>& s) {
  double num = c.c, den = 1;
  bool has = false;
  for (int k : {c.num0, c.num1})
    if (k >= 0) num *= s[k];
  for (int k : {c.den0, c.den1})
    if (k >= 0) den *= s[k], has = true;
  if (!has) return num;
  if (c.sqrt_den) den = std::sqrt(den);
  return den == 0 ? 0 : num / den;
}

VecCoef coef(double c, int n0 = -1, int n1 = -1, int d0 = -1, int d1 = -1, bool sq = false) {
  VecCoef k;
  k.c = c, k.num0 = n0, k.num1 = n1, k.den0 = d0, k.den1 = d1, k.sqrt_den = sq;
  return k;
}

// coefficients that cover every part of the expression
std::vector<VecCoef> coefs() {
  return {coef(1.5), coef(-2, 0), coef(1, 2, 3), coef(0.5, 0, -1, 3), coef(1, 4, -1, 3, 7), coef(2, 5, -1, 6, -1, true),
          coef(3, 0, -1, 1)};  // the last: a zero denominator gives 0
}

std::unique_ptr<Buffer> stopped_block(Backend& be) {
  auto ctrl = be.alloc(kControlBytes);
  be.control().reset(*ctrl);
  const std::uint64_t stop = PF_CV_CONVERGED;
  be.upload(*ctrl, &stop, sizeof stop, PF_CV_STOP * sizeof(std::uint64_t));
  return ctrl;
}

}  // namespace

TEST_CASE("vec: a coefficient's expression and its packing") {
  const std::vector<double> s = {2, 0, -0.5, 4, 1.25, -3, 9, 0.75};
  for (const VecCoef& c : coefs()) {
    CAPTURE(c.c);
    CHECK(phys::pf_coef_value<double>(s.data(), c.c, c.packed()) == doctest::Approx(coef_value(c, s)));
  }
  CHECK(coef_value(coef(3, 0, -1, 1), s) == 0);
  CHECK(phys::pf_coef_value<double>(s.data(), 2, coef(2, -1, -1, 6, -1, true).packed()) == doctest::Approx(2.0 / 3));
  CHECK(VecCoef::constant(0).is_zero());
  CHECK_FALSE(coef(0, 1).is_zero());
  CHECK(phys::pf_slot_of(pack_slots(7, -1, 32766), 2) == 32766);
  CHECK(phys::pf_slot_of(pack_slots(7, -1, 32766), 1) == -1);
  CHECK_THROWS_AS(coef(1, 32767).packed(), BackendError);
}

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("vec dot: one and two pairs against the double reference, the same bits twice", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : kDotSizes) {
      CAPTURE(n);
      auto x1 = random_vector<T>(n, -1, 1), y1 = random_vector<T>(n, -1, 1);
      auto x2 = random_vector<T>(n, -1, 1), y2 = random_vector<T>(n, 0, 2);
      auto f1 = make_field(be, x1), g1 = make_field(be, y1), f2 = make_field(be, x2), g2 = make_field(be, y2);
      double r1 = 0, a1 = 0, r2 = 0, a2 = 0;
      for (std::size_t i = 0; i < n; ++i) {
        r1 += double(x1[i]) * double(y1[i]), a1 += std::fabs(double(x1[i]) * double(y1[i]));
        r2 += double(x2[i]) * double(y2[i]), a2 += std::fabs(double(x2[i]) * double(y2[i]));
      }
      Field<T> s(be, 6);
      s.fill(T(kNaN));
      be.vec().dot({precision_of<T>(), n, &f1.buffer(), &g1.buffer(), 3, nullptr, nullptr, -1, &s.buffer()});
      auto got = down(s);
      CHECK(close(got[3], r1, a1, dot_tol<T>()));
      CHECK(std::isnan(got[1]));
      be.vec().dot({precision_of<T>(), n, &f1.buffer(), &g1.buffer(), 1, &f2.buffer(), &g2.buffer(), 4, &s.buffer()});
      got = down(s);
      CHECK(close(got[1], r1, a1, dot_tol<T>()));
      CHECK(close(got[4], r2, a2, dot_tol<T>()));
      CHECK(std::isnan(got[0]));
      CHECK(std::isnan(got[5]));
      // self-dot, and the bits once more
      be.vec().dot({precision_of<T>(), n, &f1.buffer(), &g1.buffer(), 0, &f2.buffer(), &g2.buffer(), 5, &s.buffer()});
      auto again = s.download();
      CHECK(again[0] == T(got[1]));
      CHECK(again[5] == T(got[4]));
    }
  });
}

TEST_CASE_TEMPLATE("vec vendor_dot: CUB's dot on cuda against the double reference; refused where there is none", T, float, double) {
  for_each_backend([](Backend& be) {
    if (!be.supports(precision_of<T>())) return;
    auto vec = be.vec();
    const std::size_t n = 65553;
    auto x = random_vector<T>(n, -1, 1), y = random_vector<T>(n, -1, 1);
    auto fx = make_field(be, x), fy = make_field(be, y);
    Field<T> s(be, 3);
    s.fill(T(kNaN));
    const VecDotArgs a{precision_of<T>(), n, &fx.buffer(), &fy.buffer(), 2, nullptr, nullptr, -1, &s.buffer()};
    if (vec.vendor_name().empty()) {
      CHECK_THROWS_AS(vec.vendor_dot(a), BackendError);
      return;
    }
    double ref = 0, abs = 0;
    for (std::size_t i = 0; i < n; ++i) ref += double(x[i]) * double(y[i]), abs += std::fabs(double(x[i]) * double(y[i]));
    vec.vendor_dot(a);
    const auto got = down(s);
    CHECK(close(got[2], ref, abs, dot_tol<T>()));
    CHECK(std::isnan(got[0]));
    CHECK(std::isnan(got[1]));
    // one pair only, and no guard
    VecDotArgs two = a;
    two.x2 = &fx.buffer(), two.y2 = &fy.buffer(), two.slot2 = 0;
    CHECK_THROWS_AS(vec.vendor_dot(two), BackendError);
  });
}

TEST_CASE_TEMPLATE("vec multi_dot: a basis against one vector, its padding never read", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : {std::size_t(1), std::size_t(33), std::size_t(4097), std::size_t(65553), std::size_t(300007)}) {
      for (int count : {1, 3, 8, 11}) {
        CAPTURE(n);
        CAPTURE(count);
        const std::size_t ldv = n + 5, at = 7;
        std::vector<T> v(at + count * ldv, T(kNaN));  // padding and lead: NaN, which must not be read
        auto vals = random_vector<T>(count * n, -1, 1);
        for (int q = 0; q < count; ++q)
          for (std::size_t i = 0; i < n; ++i) v[at + q * ldv + i] = vals[q * n + i];
        auto w = random_vector<T>(n, -1, 1);
        auto fv = make_field(be, v), fw = make_field(be, w);
        Field<T> s(be, count + 4);
        s.fill(T(kNaN));
        be.vec().multi_dot({precision_of<T>(), n, &fv.buffer(), at, ldv, count, &fw.buffer(), &s.buffer(), 2});
        auto got = down(s);
        for (int q = 0; q < count; ++q) {
          double r = 0, a = 0;
          for (std::size_t i = 0; i < n; ++i) {
            const double p = double(v[at + q * ldv + i]) * double(w[i]);
            r += p, a += std::fabs(p);
          }
          CAPTURE(q);
          CHECK(close(got[2 + q], r, a, dot_tol<T>()));
        }
        CHECK(std::isnan(got[1]));
        CHECK(std::isnan(got[2 + count]));
        be.vec().multi_dot({precision_of<T>(), n, &fv.buffer(), at, ldv, count, &fw.buffer(), &s.buffer(), 2});
        const auto again = down(s);
        CHECK(std::vector<double>(again.begin() + 2, again.begin() + 2 + count) ==
              std::vector<double>(got.begin() + 2, got.begin() + 2 + count));
      }
    }
  });
}

TEST_CASE_TEMPLATE("vec axpby, axpbypcz: coefficients of the device scalars", T, float, double) {
  for_each_backend([](Backend& be) {
    const auto sv = scalars<T>();
    const auto sd = convert<double>(sv);
    auto s = make_field(be, sv);
    for (std::size_t n : kSizes) {
      CAPTURE(n);
      auto x = random_vector<T>(n, -1, 1), y = random_vector<T>(n, -1, 1), z = random_vector<T>(n, -1, 1);
      auto fx = make_field(be, x), fy = make_field(be, y);
      const auto cs = coefs();
      for (std::size_t t = 0; t < cs.size(); ++t) {
        const VecCoef a = cs[t], b = cs[(t + 3) % cs.size()], c = cs[(t + 5) % cs.size()];
        CAPTURE(t);
        const double ca = coef_value(a, sd), cb = coef_value(b, sd), cc = coef_value(c, sd);
        auto fz = make_field(be, y);
        be.vec().axpby({precision_of<T>(), n, a, b, &fx.buffer(), &fz.buffer(), &s.buffer()});
        auto got = down(fz);
        std::vector<double> want(n);
        for (std::size_t i = 0; i < n; ++i) want[i] = ca * double(x[i]) + cb * double(y[i]);
        CHECK(max_rel_diff(got, want, 1.0) <= 10 * tol<T>());
        auto fw = make_field(be, z);
        be.vec().axpbypcz({precision_of<T>(), n, a, b, c, &fx.buffer(), &fy.buffer(), &fw.buffer(), &s.buffer()});
        got = down(fw);
        for (std::size_t i = 0; i < n; ++i) want[i] = ca * double(x[i]) + cb * double(y[i]) + cc * double(z[i]);
        CHECK(max_rel_diff(got, want, 1.0) <= 10 * tol<T>());
      }
      // a constant-zero term's vector is not read: a NaN there stays out
      auto fnan = make_field(be, std::vector<T>(n, T(kNaN)));
      be.vec().axpby({precision_of<T>(), n, coef(2, 2), VecCoef::constant(0), &fx.buffer(), &fnan.buffer(), &s.buffer()});
      auto got = down(fnan);
      std::vector<double> want(n);
      for (std::size_t i = 0; i < n; ++i) want[i] = -1.0 * double(x[i]);
      CHECK(max_rel_diff(got, want, 1.0) <= tol<T>());
      auto fnan2 = make_field(be, std::vector<T>(n, T(kNaN)));
      be.vec().axpbypcz({precision_of<T>(), n, VecCoef::constant(1), VecCoef::constant(0), VecCoef::constant(0),
                         &fx.buffer(), &fnan.buffer(), &fnan2.buffer(), nullptr});
      CHECK(max_rel_diff(down(fnan2), convert<double>(x), 1.0) == 0);
    }
  });
}

TEST_CASE_TEMPLATE("vec update2: two updates in one pass, and the dots of the second", T, float, double) {
  for_each_backend([](Backend& be) {
    const auto sd = convert<double>(scalars<T>());
    for (std::size_t n : kDotSizes) {
      CAPTURE(n);
      auto x1 = random_vector<T>(n, -1, 1), y1 = random_vector<T>(n, -1, 1);
      auto x2 = random_vector<T>(n, -1, 1), y2 = random_vector<T>(n, -1, 1), w = random_vector<T>(n, -1, 1);
      auto fx1 = make_field(be, x1), fx2 = make_field(be, x2), fw = make_field(be, w);
      for (bool dots : {false, true}) {
        CAPTURE(dots);
        auto s = make_field(be, scalars<T>());
        auto fy1 = make_field(be, y1), fy2 = make_field(be, y2);
        VecUpdate2Args u{precision_of<T>(), n, coef(1, 2, -1, 3), VecCoef::constant(1), &fx1.buffer(), &fy1.buffer(),
                         coef(-1, 2, -1, 3), coef(1, 4), &fx2.buffer(), &fy2.buffer()};
        u.s = &s.buffer();
        if (dots) u.w = &fw.buffer(), u.slot_wy = 5, u.slot_yy = 6;
        be.vec().update2(u);
        const double a1 = coef_value(u.a1, sd), a2 = coef_value(u.a2, sd), b2 = coef_value(u.b2, sd);
        std::vector<double> w1(n), w2(n);
        double wy = 0, yy = 0, awy = 0;
        for (std::size_t i = 0; i < n; ++i) {
          w1[i] = a1 * double(x1[i]) + double(y1[i]);
          w2[i] = a2 * double(x2[i]) + b2 * double(y2[i]);
          wy += double(w[i]) * w2[i], awy += std::fabs(double(w[i]) * w2[i]), yy += w2[i] * w2[i];
        }
        CHECK(max_rel_diff(down(fy1), w1, 1.0) <= 10 * tol<T>());
        CHECK(max_rel_diff(down(fy2), w2, 1.0) <= 10 * tol<T>());
        auto got = down(s);
        if (dots) {
          CHECK(close(got[5], wy, awy, 10 * dot_tol<T>()));
          CHECK(close(got[6], yy, yy, 10 * dot_tol<T>()));
        } else {
          CHECK(got[5] == sd[5]);
          CHECK(got[6] == sd[6]);
        }
      }
    }
  });
}

TEST_CASE_TEMPLATE("vec multi_axpy: a basis' combination, the device's count, the norm after", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : {std::size_t(1), std::size_t(1000), std::size_t(65553), std::size_t(300007)}) {
      for (int device_count : {-1, 0, 2, 5, 9}) {
        CAPTURE(n);
        CAPTURE(device_count);
        const int count = 5;
        const std::size_t ldv = n + 3, at = 2;
        std::vector<T> v(at + count * ldv, T(kNaN));
        const auto vals = random_vector<T>(count * n, -1, 1);
        for (int q = 0; q < count; ++q)
          for (std::size_t i = 0; i < n; ++i) v[at + q * ldv + i] = vals[q * n + i];
        auto y = random_vector<T>(n, -1, 1);
        auto sv = random_vector<T>(count + 4, -2, 2);  // coefficients at 1..5, the count at 7, the norm to 8
        sv[7] = T(device_count);
        auto fv = make_field(be, v), fy = make_field(be, y), s = make_field(be, sv);
        be.vec().multi_axpy({precision_of<T>(), n, &fv.buffer(), at, ldv, count, device_count >= 0 ? 7 : -1, -0.5, 1,
                             &fy.buffer(), &s.buffer(), 8});
        const int k = device_count < 0 ? count : std::min(count, device_count);
        std::vector<double> want(n);
        // the norm's scale: each value's terms in magnitude, squared and summed (a value whose terms
        // cancel carries their rounding, which ||y||^2 alone would not allow: n = 1 failed in float)
        double nn = 0, scale = 0;
        for (std::size_t i = 0; i < n; ++i) {
          double r = y[i], m = std::fabs(double(y[i]));
          for (int q = 0; q < k; ++q) {
            const double t = -0.5 * double(sv[1 + q]) * double(v[at + q * ldv + i]);
            r += t, m += std::fabs(t);
          }
          want[i] = r, nn += r * r, scale += m * m;
        }
        CHECK(max_rel_diff(down(fy), want, 1.0) <= 10 * tol<T>());
        CHECK(close(down(s)[8], nn, scale, 10 * dot_tol<T>()));
      }
    }
  });
}

TEST_CASE_TEMPLATE("vec store, diag, gather", T, float, double) {
  for_each_backend([](Backend& be) {
    auto s = make_field(be, scalars<T>());
    const auto sd = convert<double>(scalars<T>());
    for (std::size_t n : kSizes) {
      CAPTURE(n);
      auto w = random_vector<T>(n, -1, 1), z = random_vector<T>(n, -1, 1);
      auto fw = make_field(be, w), fz = make_field(be, z);
      // store: the basis' v at 3, z at 3 + 2n + 1; everything else stays NaN
      Field<T> basis(be, 3 * n + 5), v(be, n);
      basis.fill(T(kNaN));
      v.fill(T(kNaN));
      const VecCoef a = coef(1, -1, -1, 3, -1, true);  // 1 / sqrt(s[3]) = 0.5
      be.vec().store({precision_of<T>(), n, a, &fw.buffer(), &basis.buffer(), 3, &v.buffer(), &fz.buffer(), 2 * n + 4,
                      &s.buffer()});
      auto b = down(basis), vv = down(v);
      bool ok = std::isnan(b[2]) && std::isnan(b[3 + n]) && std::isnan(b[2 * n + 3]) && std::isnan(b[3 * n + 4]);
      for (std::size_t i = 0; i < n; ++i) {
        const double want = double(T(0.5 * double(w[i])));
        ok = ok && b[3 + i] == want && vv[i] == want && b[2 * n + 4 + i] == double(z[i]);
      }
      CHECK(ok);
      CHECK(coef_value(a, sd) == 0.5);
      // diag: blocks of 1 and 2
      for (int blk : {1, 2}) {
        CAPTURE(blk);
        auto d = random_vector<T>(n * blk * blk, -2, 2), r = random_vector<T>(n * blk, -1, 1);
        auto fd = make_field(be, d), fr = make_field(be, r);
        Field<T> out(be, n * blk);
        out.fill(T(kNaN));
        be.vec().diag({precision_of<T>(), n, blk, &fd.buffer(), &fr.buffer(), &out.buffer()});
        std::vector<double> want(n * blk);
        for (std::size_t c = 0; c < n; ++c)
          for (int i = 0; i < blk; ++i) {
            double acc = 0;
            for (int j = 0; j < blk; ++j) acc += double(d[c * blk * blk + i * blk + j]) * double(r[c * blk + j]);
            want[c * blk + i] = acc;
          }
        CHECK(max_rel_diff(down(out), want, 1.0) <= tol<T>());
      }
      // gather from a longer x
      const std::size_t nx = n + 11;
      auto x = random_vector<T>(nx, -1, 1);
      std::vector<int> map(n);
      for (auto& m : map) m = static_cast<int>(rng()() % nx);
      auto fx = make_field(be, x);
      auto fmap = be.alloc(n * sizeof(int));
      be.upload(*fmap, map.data(), n * sizeof(int));
      Field<T> y(be, n);
      y.fill(T(kNaN));
      be.vec().gather({precision_of<T>(), n, nx, fmap.get(), &fx.buffer(), &y.buffer()});
      auto got = y.download();
      bool same = true;
      for (std::size_t i = 0; i < n; ++i) same = same && got[i] == x[map[i]];
      CHECK(same);
    }
  });
}

TEST_CASE_TEMPLATE("vec narrow, widen: to float and back, rounded to nearest, guarded", T, float, double) {
  for_each_backend([](Backend& be) {
    for (std::size_t n : kSizes) {
      CAPTURE(n);
      // the largest value of T: float's own, or a double beyond float's range (an infinity)
      auto x = random_vector<T>(n, -1, 1);
      x[0] = T(std::numeric_limits<T>::max());
      auto fx = make_field(be, x);
      Field<float> f(be, n);
      f.fill(float(kNaN));
      be.vec().convert({precision_of<T>(), n, true, &fx.buffer(), &f.buffer()});
      const auto got = f.download();
      bool ok = true;
      for (std::size_t i = 0; i < n; ++i) ok = ok && got[i] == static_cast<float>(x[i]);
      CHECK(ok);
      Field<T> back(be, n);
      back.fill(T(kNaN));
      be.vec().convert({precision_of<T>(), n, false, &f.buffer(), &back.buffer()});
      const auto b = back.download();
      bool same = true;
      for (std::size_t i = 0; i < n; ++i) same = same && b[i] == static_cast<T>(got[i]);
      CHECK(same);
      // a guard that says stop writes nothing
      auto stop = stopped_block(be);
      f.fill(float(kNaN));
      be.vec().convert({precision_of<T>(), n, true, &fx.buffer(), &f.buffer(), stop.get()});
      bool untouched = true;
      for (float v : f.download()) untouched = untouched && std::isnan(v);
      CHECK(untouched);
    }
  });
}

TEST_CASE_TEMPLATE("vec: a guard that says stop leaves every output as it was", T, float, double) {
  for_each_backend([](Backend& be) {
    const std::size_t n = 70001;
    auto stop = stopped_block(be);
    const Buffer* g = stop.get();
    auto x = make_field(be, random_vector<T>(n, -1, 1)), y = make_field(be, random_vector<T>(n, -1, 1));
    auto z = make_field(be, random_vector<T>(3 * n, -1, 1));
    auto s = make_field(be, scalars<T>());
    auto before = [&] { return std::vector<std::vector<T>>{y.download(), z.download(), s.download()}; };
    const auto was = before();
    auto vec = be.vec();
    vec.dot({precision_of<T>(), n, &x.buffer(), &x.buffer(), 1, &y.buffer(), &y.buffer(), 2, &s.buffer(), g});
    vec.multi_dot({precision_of<T>(), n, &z.buffer(), 0, n, 3, &x.buffer(), &s.buffer(), 3, g});
    vec.axpby({precision_of<T>(), n, VecCoef::constant(2), VecCoef::constant(1), &x.buffer(), &y.buffer(), nullptr, g});
    vec.axpbypcz({precision_of<T>(), n, VecCoef::constant(2), VecCoef::constant(1), VecCoef::constant(1), &x.buffer(),
                  &x.buffer(), &y.buffer(), nullptr, g});
    VecUpdate2Args u{precision_of<T>(), n, VecCoef::constant(1), VecCoef::constant(1), &x.buffer(), &y.buffer(),
                     VecCoef::constant(1), VecCoef::constant(1), &x.buffer(), &z.buffer()};
    u.w = &x.buffer(), u.slot_wy = 1, u.slot_yy = 2, u.s = &s.buffer(), u.guard = g;
    vec.update2(u);
    vec.multi_axpy({precision_of<T>(), n, &z.buffer(), 0, n, 2, -1, 1.0, 0, &y.buffer(), &s.buffer(), 5, g});
    vec.store({precision_of<T>(), n, VecCoef::constant(3), &x.buffer(), &z.buffer(), n, &y.buffer(), nullptr, 0, nullptr, g});
    vec.diag({precision_of<T>(), n, 1, &x.buffer(), &x.buffer(), &y.buffer(), g});
    CHECK(before() == was);
    auto gs = make_field(be, random_vector<T>(phys::pf_gm_slots(2), 1, 2));
    const auto gs_was = gs.download();
    vec.gmres_solve({precision_of<T>(), &gs.buffer(), 2, 0, g});
    CHECK(gs.download() == gs_was);
  });
}

TEST_CASE_TEMPLATE("vec check: it = -1 takes the iteration after the control block's last check", T, float, double) {
  for_each_backend([](Backend& be) {
    auto ctrl = be.alloc(kControlBytes);
    be.control().reset(*ctrl);
    const long max_it = 6;
    Field<T> hist(be, max_it + 1);
    hist.fill(T(-1));
    auto running = make_field(be, convert<T>(std::vector<double>{1e-2, 1, 1, 1}));
    auto check = [&](long it, const Field<T>& s) {
      be.vec().check({precision_of<T>(), ctrl.get(), &s.buffer(), &hist.buffer(), it, 0, 1, 0, 1e-3, max_it});
    };
    check(2, running);  // an explicit number sets the count ...
    check(-1, running);  // ... so this is iteration 3
    check(-1, running);
    std::uint64_t w[PF_CV_WORDS];
    be.download(*ctrl, w, sizeof w);
    CHECK(w[PF_CV_STOP] == PF_CV_RUNNING);
    CHECK(w[PF_CV_NEXT_IT] == 5);
    const auto h = down(hist);
    CHECK(h[0] == -1);
    CHECK(h[1] == -1);
    for (int i : {2, 3, 4}) CHECK(h[i] == doctest::Approx(0.1).epsilon(1e-6));
    CHECK(h[5] == -1);
    check(-1, running);  // 5
    check(-1, running);  // 6: the limit
    be.download(*ctrl, w, sizeof w);
    CHECK(w[PF_CV_STOP] == PF_CV_LIMIT);
    CHECK(w[PF_CV_ITER] == std::uint64_t(max_it));
    // a count past the limit (a block not reset) is held to it: the history is never overrun
    be.control().reset(*ctrl);
    const std::uint64_t past = 100;
    be.upload(*ctrl, &past, sizeof past, PF_CV_NEXT_IT * sizeof past);
    auto converged = make_field(be, convert<T>(std::vector<double>{1e-12, 1, 1, 1}));
    check(-1, converged);
    be.download(*ctrl, w, sizeof w);
    CHECK(w[PF_CV_STOP] == PF_CV_CONVERGED);
    CHECK(w[PF_CV_ITER] == std::uint64_t(max_it));
  });
}

TEST_CASE_TEMPLATE("vec check: the relative residual, its history and every reason to stop", T, float, double) {
  for_each_backend([](Backend& be) {
    struct Case {
      std::vector<double> s;  // rr at 0, ref at 1, breakdown slots 2, 3
      long it, max_it;
      double tol;
      int reason;
    };
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<Case> cases = {
        {{1e-6, 4, 1, 1}, 3, 10, 1e-3, PF_CV_CONVERGED},   // sqrt(1e-6 / 4) = 5e-4
        {{1e-4, 4, 1, 1}, 3, 10, 1e-3, PF_CV_RUNNING},     // 5e-3
        {{1e-4, 4, 1, 1}, 10, 10, 1e-3, PF_CV_LIMIT},
        {{1e-4, 4, 0, 1}, 3, 10, 1e-3, PF_CV_BREAKDOWN},
        {{1e-8, 4, 0, 0}, 3, 10, 1e-3, PF_CV_CONVERGED},   // converged before the breakdown
        {{kNaN, 4, 1, 1}, 0, 10, 1e-3, PF_CV_NONFINITE},
        {{inf, 4, 1, 1}, 2, 10, 1e-3, PF_CV_NONFINITE},
        {{1e-10, 0, 1, 1}, 1, 10, 1e-3, PF_CV_CONVERGED},  // b = 0: the absolute residual 1e-5
        {{0, 4, 0, 0}, 0, 0, 0, PF_CV_CONVERGED},           // an exact zero passes a zero tolerance
    };
    for (const auto& c : cases) {
      CAPTURE(c.s[0]);
      CAPTURE(c.it);
      auto ctrl = be.alloc(kControlBytes);
      be.control().reset(*ctrl);
      auto s = make_field(be, convert<T>(c.s));
      Field<T> hist(be, c.max_it + 1);
      hist.fill(T(-1));
      be.vec().check({precision_of<T>(), ctrl.get(), &s.buffer(), &hist.buffer(), c.it, 0, 1, pack_slots(2, 3), c.tol,
                      c.max_it});
      std::uint64_t w[PF_CV_WORDS];
      be.download(*ctrl, w, sizeof w);
      CHECK(int(w[PF_CV_STOP]) == c.reason);
      if (c.reason != PF_CV_RUNNING) CHECK(long(w[PF_CV_ITER]) == c.it);
      const auto h = down(hist);
      const double want = std::sqrt(double(T(c.s[0])) / (c.s[1] > 0 ? double(T(c.s[1])) : 1.0));
      if (std::isfinite(want)) CHECK(h[c.it] == doctest::Approx(want).epsilon(1e-6));
      else CHECK(!std::isfinite(h[c.it]));
      // once stopped, a later check changes nothing
      if (c.reason != PF_CV_RUNNING && c.it < c.max_it) {
        be.vec().check({precision_of<T>(), ctrl.get(), &s.buffer(), &hist.buffer(), c.it + 1, 0, 1, 0, 1e30, c.max_it});
        std::uint64_t w2[PF_CV_WORDS];
        be.download(*ctrl, w2, sizeof w2);
        CHECK(int(w2[PF_CV_STOP]) == c.reason);
        CHECK(down(hist)[c.it + 1] == -1);
      }
    }
  });
}

TEST_CASE_TEMPLATE("vec gmres_column, gmres_solve: the small least-squares problem of a cycle", T, float, double) {
  for_each_backend([](Backend& be) {
    for (int two_pass : {0, 1}) {
      const int m = 7, k = 5, base = 3, ref = 1;
      CAPTURE(two_pass);
      // a random Hessenberg matrix H (k + 1 x k), fed column by column as h1 (+ h2) and ||w||^2
      std::vector<std::vector<double>> H(k + 1, std::vector<double>(k, 0.0));
      for (int j = 0; j < k; ++j)
        for (int i = 0; i <= j + 1; ++i) {
          const double r = random_vector<double>(1, -1, 1)[0];
          // the subdiagonal is a norm: the kernel gets its square
          H[i][j] = double(T(i == j + 1 ? std::fabs(r) : r + (i == j ? 3.0 : 0.0)));
        }
      const double beta = 2.5;
      std::vector<T> s0(base + phys::pf_gm_slots(m) + 2, T(kNaN));
      s0[ref] = T(1e4);  // ||b||^2
      s0[base + PF_GM_BETA2] = T(beta * beta);
      auto s = make_field(be, s0);
      auto ctrl = be.alloc(kControlBytes);
      be.control().reset(*ctrl);
      Field<T> hist(be, 40);
      hist.fill(T(-1));
      for (int j = 0; j < k; ++j) {
        // h1 + h2 = the column (split unevenly when two passes), NN = the subdiagonal squared
        std::vector<T> col(2 * m, T(0));
        for (int i = 0; i <= j; ++i) {
          col[i] = T(two_pass ? 0.75 * H[i][j] : H[i][j]);
          col[m + i] = T(two_pass ? H[i][j] - double(col[i]) : 0.0);
        }
        be.upload(s.buffer(), col.data(), (two_pass ? 2 * m : m) * sizeof(T), (base + PF_GM_H1) * sizeof(T));
        const T nn = T(H[j + 1][j] * H[j + 1][j]);
        be.upload(s.buffer(), &nn, sizeof nn, (base + PF_GM_NN) * sizeof(T));
        be.vec().gmres_column({precision_of<T>(), ctrl.get(), &s.buffer(), &hist.buffer(), 10 + j, j, m, base, ref,
                               two_pass == 1, 1e-30, 39});
      }
      be.vec().gmres_solve({precision_of<T>(), &s.buffer(), m, base});
      const auto got = down(s);
      CHECK(got[base + PF_GM_KY] == k);
      CHECK(got[base + PF_GM_K] == 0);
      // y solves min ||beta e1 - H y||: the residual is orthogonal to H's columns, its norm the estimate
      std::vector<double> y(k), res(k + 1);
      for (int i = 0; i < k; ++i) y[i] = got[base + phys::pf_gm_y(m) + i];
      double rn = 0;
      for (int i = 0; i <= k; ++i) {
        res[i] = (i == 0 ? beta : 0.0);
        for (int j = 0; j < k; ++j) res[i] -= H[i][j] * y[j];
        rn += res[i] * res[i];
      }
      double hn = 0;
      for (int j = 0; j < k; ++j) {
        double dotj = 0, nj = 0;
        for (int i = 0; i <= k; ++i) dotj += H[i][j] * res[i], nj += H[i][j] * H[i][j];
        hn = std::max(hn, std::fabs(dotj) / std::sqrt(nj));
      }
      CHECK(hn <= 50 * tol<T>() * beta);
      const auto h = down(hist);
      CHECK(h[10 + k - 1] == doctest::Approx(std::sqrt(rn) / 100).epsilon(sizeof(T) == 4 ? 1e-3 : 1e-9));
      CHECK(h[10 + k - 1] < h[10]);  // the estimate decreases (not strictly in general; here H is dominant)
      std::uint64_t w[PF_CV_WORDS];
      be.download(*ctrl, w, sizeof w);
      CHECK(w[PF_CV_STOP] == PF_CV_RUNNING);
      // a second solve without a new column: KY = 0, so an update after it adds nothing
      be.vec().gmres_solve({precision_of<T>(), &s.buffer(), m, base});
      CHECK(down(s)[base + PF_GM_KY] == 0);
    }
  });
}

TEST_CASE_TEMPLATE("vec gmres_column: a singular triangle is a breakdown, a zero estimate converges", T, float, double) {
  for_each_backend([](Backend& be) {
    const int m = 3, base = 2, ref = 0;
    for (bool singular : {true, false}) {
      std::vector<T> s0(base + phys::pf_gm_slots(m), T(0));
      s0[ref] = T(1);
      s0[base + PF_GM_BETA2] = T(4);
      s0[base + PF_GM_H1] = T(singular ? 0 : 3);  // h00
      s0[base + PF_GM_NN] = T(0);                 // the new vector is 0
      auto s = make_field(be, s0);
      auto ctrl = be.alloc(kControlBytes);
      be.control().reset(*ctrl);
      Field<T> hist(be, 5);
      be.vec().gmres_column({precision_of<T>(), ctrl.get(), &s.buffer(), &hist.buffer(), 1, 0, m, base, ref, false, 1e-6, 4});
      std::uint64_t w[PF_CV_WORDS];
      be.download(*ctrl, w, sizeof w);
      CHECK(int(w[PF_CV_STOP]) == (singular ? PF_CV_BREAKDOWN : PF_CV_CONVERGED));
    }
  });
}

TEST_CASE_TEMPLATE("vec first_nonfinite: the first NaN or infinity", T, float, double) {
  for_each_backend([](Backend& be) {
    auto word = be.alloc(8);
    for (std::size_t n : kDotSizes) {
      CAPTURE(n);
      auto x = random_vector<T>(n, -1, 1);
      auto fx = make_field(be, x);
      CHECK(be.vec().first_nonfinite({precision_of<T>(), n, &fx.buffer(), word.get()}) == -1);
      const std::size_t p = rng()() % n;
      x[p] = T(kNaN);
      if (p + 1 < n) x[n - 1] = std::numeric_limits<T>::infinity();
      auto fy = make_field(be, x);
      CHECK(be.vec().first_nonfinite({precision_of<T>(), n, &fy.buffer(), word.get()}) == long(p));
      x[p] = std::numeric_limits<T>::infinity();
      auto fz = make_field(be, x);
      CHECK(be.vec().first_nonfinite({precision_of<T>(), n, &fz.buffer(), word.get()}) == long(p));
    }
  });
}

TEST_CASE("vec: bad arguments are refused, naming the kernel") {
  Backend& be = reference();
  Field<double> x(be, 10), y(be, 10), s(be, 4);
  auto vec = be.vec();
  CHECK_THROWS_WITH_AS(vec.dot({Precision::Double, 10, &x.buffer(), &y.buffer(), 4, nullptr, nullptr, -1, &s.buffer()}),
                       doctest::Contains("vec dot: slot 1 = 4 outside the 4 scalars"), BackendError);
  CHECK_THROWS_AS(vec.dot({Precision::Double, 11, &x.buffer(), &y.buffer(), 0, nullptr, nullptr, -1, &s.buffer()}),
                  BackendError);
  CHECK_THROWS_AS(vec.axpby({Precision::Double, 10, VecCoef::constant(1), VecCoef::constant(1), &x.buffer(), &x.buffer()}),
                  BackendError);
  CHECK_THROWS_AS(vec.axpby({Precision::Double, 10, coef(1, 5), VecCoef::constant(1), &x.buffer(), &y.buffer(), &s.buffer()}),
                  BackendError);
  VecUpdate2Args u{Precision::Double, 10, coef(1, 2), VecCoef::constant(1), &x.buffer(), &y.buffer(),
                   VecCoef::constant(1), VecCoef::constant(1), &x.buffer(), &y.buffer()};
  u.s = &s.buffer();
  CHECK_THROWS_AS(vec.update2(u), BackendError);  // y1 == y2
  Field<double> z(be, 10), w(be, 10);
  u.y2 = &z.buffer(), u.w = &w.buffer(), u.slot_wy = 2;
  CHECK_THROWS_WITH_AS(vec.update2(u), doctest::Contains("reads a slot the dots write"), BackendError);
  Field<double> hist(be, 3);
  auto ctrl = be.alloc(kControlBytes);
  CHECK_THROWS_AS(vec.check({Precision::Double, ctrl.get(), &s.buffer(), &hist.buffer(), 3, 0, 1, 0, 1e-6, 3}),
                  BackendError);  // a history of 3 for a limit of 3
  Field<double> hist4(be, 4);
  CHECK_THROWS_AS(vec.check({Precision::Double, ctrl.get(), &s.buffer(), &hist4.buffer(), -2, 0, 1, 0, 1e-6, 3}),
                  BackendError);  // -1 is the block's count; below it, nothing
  CHECK_THROWS_AS(vec.multi_dot({Precision::Double, 6, &x.buffer(), 0, 5, 2, &y.buffer(), &s.buffer(), 0}), BackendError);
  Field<float> f5(be, 5), f10(be, 10);
  CHECK_THROWS_WITH_AS(vec.convert({Precision::Double, 10, true, &x.buffer(), &f5.buffer()}),
                       doctest::Contains("vec narrow"), BackendError);  // y holds 5 floats
  CHECK_THROWS_WITH_AS(vec.convert({Precision::Float, 10, false, &f10.buffer(), &f10.buffer()}),
                       doctest::Contains("vec widen: x and y"), BackendError);  // x as y
}

}  // TEST_SUITE
