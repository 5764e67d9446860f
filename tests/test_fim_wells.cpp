// The fim family's wells and Newton update: every kernel on every backend against the serial double
// reference (fresh random problems with rate- and BHP-controlled and shut wells, poisoned outputs),
// and the Schur-reduced system the solver sees against finite differences of the cells' and wells'
// residuals: (A - B D^-1 C) v, the right-hand side r - B D^-1 r_w and D.
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "core/linalg/stencil7.hpp"
#include "tests/fim_problem.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

constexpr double kDt = 2.0;

// the entries q of each well's FIM_NWS values (or each completion's FIM_NCQ)
std::vector<double> column(const std::vector<double>& v, std::size_t stride, std::size_t q) {
  std::vector<double> c;
  for (std::size_t i = q; i < v.size(); i += stride) c.push_back(v[i]);
  return c;
}

// a random direction over the active cells: pressures of order 1 bar, saturations of order 0.01
std::vector<double> direction(const FimProblem& P, std::mt19937_64& g) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> v(P.x.size(), 0.0);
  for (long k = 0; k < P.box.nz; ++k)
    for (long j = 0; j < P.box.ny; ++j)
      for (long i = 0; i < P.box.nx; ++i) {
        const long L = P.box.at(i, j, k);
        if (!(P.pv0[std::size_t(L)] > 0)) continue;
        v[2 * L] = u(g);
        v[2 * L + 1] = 0.01 * u(g);
      }
  return v;
}

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("fim: the wells' kernels, the Schur term and the Newton update equal the serial double reference", T, float,
                   double) {
  const FimProblem P = fim_problem(19, 13, 6, static_cast<unsigned>(rng()()), true);
  std::mt19937_64 g(rng()());
  const auto v = direction(P, g), dx = direction(P, g), dw = direction(P, g);
  const auto y0 = random_vector<double>(P.x.size(), -1, 1);
  struct Out {
    std::vector<double> ws_start, cq, ws, coef, res, cnv, mbw, mbo, viol, y, ws_upd, x_upd, p, sw, dp, ds, packed;
  };
  double cnv_tol = 0.01;  // viol's tolerance: below, the median CNV of the random problem
  // mode: the update takes dx (0), dx in the cells and dw for the wells' steps (1), or dw (2);
  // dbhp: a rate well's largest BHP step
  auto run = [&](Backend& be, auto tag, int mode = 1, double dbhp = 3.0) {
    using U = decltype(tag);
    FimOnDevice<U> d(be, P);
    d.cnv_tol = cnv_tol;
    const std::size_t E = P.box.extent();
    Out o;
    // poison: every value a kernel owns must be written
    d.cq.fill(U(std::nan("")));
    d.well_start(be);
    o.ws_start = convert<double>(d.ws.download());
    {
      auto q = d.cq.download();  // keep the heads, poison the rest
      for (long c = 0; c < P.completions; ++c)
        for (int e = 0; e < FIM_NCQ; ++e)
          if (e != FIM_CQ_HEAD) q[std::size_t(c * FIM_NCQ + e)] = U(std::nan(""));
      d.cq.upload(q);
    }
    d.assemble(be, kDt);
    o.cnv = convert<double>(d.cnv.download());
    o.mbw = convert<double>(d.mbw.download());
    o.mbo = convert<double>(d.mbo.download());
    o.viol = convert<double>(d.viol.download());
    d.well_equation(be, kDt);
    o.cq = convert<double>(d.cq.download());
    o.ws = convert<double>(d.ws.download());
    o.coef = convert<double>(d.coef.download());
    o.res = convert<double>(d.res.download());
    auto dv = make_field(be, convert<U>(v)), dy = make_field(be, convert<U>(y0)), ddx = make_field(be, convert<U>(dx)),
         ddw = make_field(be, convert<U>(dw));
    be.fim().schur({precision_of<U>(), d.well_arrays(), kDt, E, -0.7, &dv.buffer(), &dy.buffer(), nullptr});
    o.y = convert<double>(dy.download());
    be.fim().update({precision_of<U>(), d.grid(), d.well_arrays(), mode == 2 ? &ddw.buffer() : &ddx.buffer(), &d.x.buffer(), 0.5,
                     0.004, dbhp, mode == 1 ? &ddw.buffer() : nullptr});
    o.ws_upd = convert<double>(d.ws.download());
    o.x_upd = convert<double>(d.x.download());
    Field<U> p(be, E), sw(be, E), dp(be, E), ds(be, E), packed(be, 2 * E);
    // unpack over the start's state: the changes are the update's
    std::vector<double> p0(E, 0.0), s0(E, 0.0);
    for (std::size_t L = 0; L < E; ++L) p0[L] = P.x[2 * L], s0[L] = P.x[2 * L + 1];
    p.upload(convert<U>(p0));
    sw.upload(convert<U>(s0));
    dp.fill(U(std::nan("")));
    ds.fill(U(std::nan("")));
    be.fim().unpack({precision_of<U>(), d.grid(), &d.x.buffer(), &p.buffer(), &sw.buffer(), &dp.buffer(), &ds.buffer()});
    o.p = convert<double>(p.download());
    o.sw = convert<double>(sw.download());
    o.dp = convert<double>(dp.download());
    o.ds = convert<double>(ds.download());
    packed.fill(U(std::nan("")));
    be.fim().pack({precision_of<U>(), d.grid(), &p.buffer(), &sw.buffer(), &packed.buffer()});
    o.packed = convert<double>(packed.download());
    return o;
  };
  // viol's tolerance at the median of the active cells' worse CNV, so that cells lie on both sides
  // of it (at 0.01, seed 4209730182 gave none below)
  {
    const Out first = run(reference(), double{});
    const long E = long(P.box.extent());
    std::vector<double> worst;
    for (long L = 0; L < E; ++L)
      if (P.pv0[L] > 0) worst.push_back(std::max(first.cnv[L], first.cnv[E + L]));
    REQUIRE(worst.size() > 2);
    std::sort(worst.begin(), worst.end());
    const std::size_t m = worst.size() / 2;
    // between two cells' values, and a float, so that a float run compares with it exactly
    cnv_tol = double(float(0.5 * (worst[m - 1] + worst[m])));
  }
  const Out ref = run(reference(), double{});
  // the reference itself: the rate wells run at their targets' equation, the BHP well at its BHP
  REQUIRE(P.wells == 4);
  CHECK(std::lround(ref.ws[FIM_WS_CTRL]) == IMP_CTRL_RATE);
  CHECK(ref.ws[FIM_WS_QO] < 0);  // the producer produces
  CHECK(ref.ws[FIM_NWS + FIM_WS_QW] > 0);  // the injector injects
  CHECK(ref.ws[FIM_NWS + FIM_WS_QO] == 0.0);
  CHECK(ref.ws[FIM_WS_RES] == doctest::Approx(ref.ws[FIM_WS_QO] + ref.ws[FIM_WS_QW] + 150).epsilon(1e-12));
  CHECK(ref.ws[2 * FIM_NWS + FIM_WS_RES] == 0.0);  // the BHP well sits at its target
  CHECK(ref.ws[3 * FIM_NWS + FIM_WS_QW] == 0.0);   // the shut well
  for (double x : ref.cq) REQUIRE(std::isfinite(x));
  // the update's two steps: the cells' from dx, the wells' from dw, each as with that step alone
  // (the rate wells' BHP steps unlimited, or both would stop at the limit)
  const double free = 1e9;
  const Out both = run(reference(), double{}, 1, free);
  {
    const Out cells = run(reference(), double{}, 0, free), wells = run(reference(), double{}, 2, free);
    CHECK(both.x_upd == cells.x_upd);
    CHECK(both.ws_upd == wells.ws_upd);
    CHECK(both.ws_upd != cells.ws_upd);  // dw moved the wells elsewhere than dx would
  }
  // the update moved the chopped cells by at most the limits
  for (std::size_t L = 0; L < P.pv0.size(); ++L) {
    CHECK(std::fabs(ref.x_upd[2 * L] - P.x[2 * L]) <= 0.5 + 1e-12);
    CHECK(std::fabs(ref.x_upd[2 * L + 1] - P.x[2 * L + 1]) <= 0.004 + 1e-12);
  }
  for_each_backend([&](Backend& be) {
    if (!be.supports(precision_of<T>())) return;
    const Out got = run(be, T{});
    const double t = sizeof(T) == 4 ? 2e-4 : 1e-11;
    for (std::size_t q = 0; q < FIM_NWS; ++q) {
      CAPTURE(q);
      CHECK(max_rel_diff(column(got.ws_start, FIM_NWS, q), column(ref.ws_start, FIM_NWS, q)) <= t);
      CHECK(max_rel_diff(column(got.ws, FIM_NWS, q), column(ref.ws, FIM_NWS, q)) <= t);
      CHECK(max_rel_diff(column(got.ws_upd, FIM_NWS, q), column(ref.ws_upd, FIM_NWS, q)) <= t);
    }
    for (std::size_t q = 0; q < FIM_NCQ; ++q) {
      CAPTURE(q);
      CHECK(max_rel_diff(column(got.cq, FIM_NCQ, q), column(ref.cq, FIM_NCQ, q)) <= t);
    }
    CHECK(max_rel_diff(got.coef, ref.coef) <= (sizeof(T) == 4 ? 1e-4 : 1e-11));
    double mscale = 0;
    for (double m : P.mw_n) mscale = std::max(mscale, m);
    CHECK(max_rel_diff(got.res, ref.res, mscale) <= (sizeof(T) == 4 ? 1e-5 : 1e-12));
    CHECK(max_rel_diff(got.cnv, ref.cnv, 1e-3) <= t);
    {
      // viol: each active cell's V_p0 where either of its own CNVs is above the tolerance, else 0
      // (against the run's own CNV: float may put a cell at the tolerance on the other side)
      const long E = long(P.box.extent());
      long over = 0, under = 0;
      for (long L = 0; L < E; ++L) {
        const bool above = got.cnv[L] > cnv_tol || got.cnv[E + L] > cnv_tol;
        const double expect = P.pv0[L] > 0 && above ? double(convert<T>(std::vector<double>{P.pv0[L]})[0]) : 0.0;
        CHECK(got.viol[L] == expect);
        if (P.pv0[L] > 0) (above ? over : under) += 1;
      }
      CHECK(over > 0);   // the problem has cells on both sides of the tolerance
      CHECK(under > 0);
    }
    CHECK(max_rel_diff(got.mbw, ref.mbw, mscale) <= t);
    CHECK(max_rel_diff(got.mbo, ref.mbo, mscale) <= t);
    CHECK(max_rel_diff(got.y, ref.y) <= t);
    CHECK(max_rel_diff(got.x_upd, ref.x_upd) <= t);
    {  // the two steps unlimited, where a backend that took the wells' step from dx would differ
      const Out got_free = run(be, T{}, 1, free);
      for (std::size_t q = 0; q < FIM_NWS; ++q) {
        CAPTURE(q);
        CHECK(max_rel_diff(column(got_free.ws_upd, FIM_NWS, q), column(both.ws_upd, FIM_NWS, q)) <= t);
      }
      CHECK(max_rel_diff(got_free.x_upd, both.x_upd) <= t);
    }
    CHECK(max_rel_diff(got.p, ref.p) <= t);
    CHECK(max_rel_diff(got.sw, ref.sw) <= t);
    CHECK(max_rel_diff(got.dp, ref.dp, 0.5) <= 10 * t);
    CHECK(max_rel_diff(got.ds, ref.ds, 0.004) <= 10 * t);
    CHECK(max_rel_diff(got.packed, ref.packed) <= t);
  });
}

}  // TEST_SUITE

TEST_CASE("fim: the Schur-reduced system equals finite differences of the cells' and wells' residuals") {
  const FimProblem P = fim_problem(11, 9, 5, 23, true);
  Backend& be = reference();
  FimOnDevice<double> d(be, P);
  const std::size_t E = P.box.extent();
  d.well_start(be);  // the heads, fixed from here on
  const auto ws0 = d.ws.download();
  // F(x, bhp): the cells' residuals (before the Schur terms) and the wells' equations
  auto F = [&](const std::vector<double>& x, const std::vector<double>& bhp, std::vector<double>* rc, std::vector<double>* rw) {
    auto ws = ws0;
    for (long w = 0; w < P.wells; ++w) ws[std::size_t(w * FIM_NWS + FIM_WS_BHP)] = bhp[std::size_t(w)];
    d.ws.upload(ws);
    d.x.upload(x);
    d.assemble(be, kDt);
    *rc = d.res.download();
    d.well_equation(be, kDt);
    const auto s = d.ws.download();
    rw->assign(std::size_t(P.wells), 0.0);
    for (long w = 0; w < P.wells; ++w) (*rw)[std::size_t(w)] = s[std::size_t(w * FIM_NWS + FIM_WS_RES)];
  };
  std::vector<double> bhp0(std::size_t(P.wells));
  for (long w = 0; w < P.wells; ++w) bhp0[std::size_t(w)] = ws0[std::size_t(w * FIM_NWS + FIM_WS_BHP)];
  std::vector<double> r0, rw0;
  F(P.x, bhp0, &r0, &rw0);
  // the analytic system at the state: A' (coef after the wells' equations), C and B (cq), D, R_w (ws), the Schur right-hand side
  const auto coef = d.coef.download(), rhs = d.res.download(), cq = d.cq.download(), ws = d.ws.download();
  linalg::Stencil7Matrix<double> m(be, P.box, 2);
  m.coef.upload(coef);
  std::vector<int> active(E, 0);
  for (std::size_t L = 0; L < E; ++L) active[L] = P.pv0[L] > 0 ? 1 : 0;
  be.upload(*m.active, active.data(), E * sizeof(int));
  linalg::Stencil7Operator<double> A(m);

  std::mt19937_64 g(7);
  const double h = 1e-6;
  int compared = 0, kinked = 0;
  for (int trial = 0; trial < 3; ++trial) {
    const auto v = direction(P, g);
    // u = -D^-1 C v: the wells' part of the direction that makes their equations' change vanish
    std::vector<double> u(std::size_t(P.wells), 0.0);
    for (long w = 0; w < P.wells; ++w) {
      const long first = long(P.wp[std::size_t(w * IMP_NWP + IMP_W_FIRST)]), count = long(P.wp[std::size_t(w * IMP_NWP + IMP_W_COUNT)]);
      double cv = 0;
      for (long c = first; c < first + count; ++c) {
        const long L = P.cidx[std::size_t(2 * c)];
        cv += cq[std::size_t(c * FIM_NCQ + FIM_CQ_CP)] * v[std::size_t(2 * L)] + cq[std::size_t(c * FIM_NCQ + FIM_CQ_CS)] * v[std::size_t(2 * L + 1)];
      }
      u[std::size_t(w)] = -cv / ws[std::size_t(w * FIM_NWS + FIM_WS_D)];
    }
    // S v by the operator at the state: A' v, then the wells' coupling (cq and ws of the state)
    d.cq.upload(cq);
    d.ws.upload(ws);
    auto dv = make_field(be, v);
    Field<double> y(be, 2 * E);
    A.apply(dv, y, {});
    be.fim().schur({Precision::Double, d.well_arrays(), kDt, E, 1.0, &dv.buffer(), &y.buffer(), nullptr});
    const auto sv = y.download();
    auto xp = P.x, xm = P.x;
    auto bp = bhp0, bm = bhp0;
    for (std::size_t i = 0; i < xp.size(); ++i) xp[i] += h * v[i], xm[i] -= h * v[i];
    for (std::size_t w = 0; w < bp.size(); ++w) bp[w] += h * u[w], bm[w] -= h * u[w];
    std::vector<double> rp, rm, wp, wm;
    F(xp, bp, &rp, &wp);
    F(xm, bm, &rm, &wm);
    double scale = 0;
    for (std::size_t i = 0; i < sv.size(); ++i) scale = std::max(scale, std::fabs(sv[i]));
    REQUIRE(scale > 0);
    for (std::size_t i = 0; i < sv.size(); ++i) {
      const double fd = (rp[i] - rm[i]) / (2 * h);
      if (std::fabs(rp[i] + rm[i] - 2 * r0[i]) > 1e-7 * std::max(1.0, std::fabs(r0[i]))) {
        ++kinked;  // an upstream switch between the two points: no derivative there
        continue;
      }
      CAPTURE(i);
      CHECK(std::fabs(sv[i] - fd) <= 1e-6 * scale);
      ++compared;
    }
    // the wells' equations do not move along (v, u)
    for (long w = 0; w < P.wells; ++w) {
      CAPTURE(w);
      CHECK(std::fabs(wp[std::size_t(w)] - wm[std::size_t(w)]) / (2 * h) <= 1e-6 * std::max(1.0, scale));
    }
  }
  CHECK(compared > 1000);
  CHECK(kinked < compared / 100);
  // D and B by the BHP alone, and the right-hand side r - B D^-1 R_w
  for (long w = 0; w < P.wells; ++w) {
    CAPTURE(w);
    auto bp = bhp0, bm = bhp0;
    bp[std::size_t(w)] += 1e-4;
    bm[std::size_t(w)] -= 1e-4;
    std::vector<double> rp, rm, wp, wm;
    F(P.x, bp, &rp, &wp);
    F(P.x, bm, &rm, &wm);
    const double D = (wp[std::size_t(w)] - wm[std::size_t(w)]) / 2e-4;
    const int ctrl = int(std::lround(ws[std::size_t(w * FIM_NWS + FIM_WS_CTRL)]));
    if (ctrl != IMP_CTRL_SHUT) CHECK(ws[std::size_t(w * FIM_NWS + FIM_WS_D)] == doctest::Approx(D).epsilon(1e-6));
    if (ctrl != IMP_CTRL_RATE) continue;
    const double Dw = ws[std::size_t(w * FIM_NWS + FIM_WS_D)], Rw = rw0[std::size_t(w)];
    const long first = long(P.wp[std::size_t(w * IMP_NWP + IMP_W_FIRST)]), count = long(P.wp[std::size_t(w * IMP_NWP + IMP_W_COUNT)]);
    for (long c = first; c < first + count; ++c) {
      const std::size_t L = std::size_t(P.cidx[std::size_t(2 * c)]);
      for (int r = 0; r < 2; ++r) {
        const double B = (rp[2 * L + r] - rm[2 * L + r]) / 2e-4;
        CHECK(rhs[2 * L + r] == doctest::Approx(r0[2 * L + r] - B * Rw / Dw).epsilon(1e-7).scale(std::fabs(r0[2 * L + r]) + 1));
      }
    }
  }
}
