// The fully implicit scheme's physics (core/physics/fim.h) against central finite differences: the
// cell's masses and properties, a face's fluxes (both upstream directions, gravity and capillary
// pressure on), a completion's rates (producer and injector), at random states inside the table
// segments. And the conservation rule: a face computed from either side gives opposite fluxes.
#include <cmath>
#include <random>
#include <vector>

#include "core/models/impes3d_input.hpp"
#include "core/models/impes3d_setup.hpp"
#include "core/physics/fim.h"
#include "tests/fim_fluid.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;
using Cell = phys::fim_cell<double>;

namespace {

// a state well inside a table segment, so the central difference sees one linear piece
double inside_segment(std::mt19937_64& g, const std::vector<double>& x) {
  std::uniform_int_distribution<std::size_t> seg(0, x.size() - 2);
  std::uniform_real_distribution<double> u(0.1, 0.9);
  const std::size_t k = seg(g);
  return x[k] + u(g) * (x[k + 1] - x[k]);
}

double rel(double got, double want, double scale) { return std::fabs(got - want) / std::max(std::fabs(want), scale); }

}  // namespace

TEST_CASE("fim: a cell's masses, mobilities, capillary pressure and densities have their analytic derivatives") {
  const auto f = fim_fluid();
  const auto prm = build_prm(f);
  auto& g = rng();
  for (int t = 0; t < 200; ++t) {
    const double p = inside_segment(g, f.pvdo.p), s = inside_segment(g, f.swof.sw), pv = 1e3 * (1 + t % 7);
    const Cell c = phys::fim_cell_at<double>(prm.data(), pv, p, s);
    const double hp = 1e-4, hs = 1e-7;
    const Cell pp = phys::fim_cell_at<double>(prm.data(), pv, p + hp, s), pm = phys::fim_cell_at<double>(prm.data(), pv, p - hp, s);
    const Cell sp = phys::fim_cell_at<double>(prm.data(), pv, p, s + hs), sm = phys::fim_cell_at<double>(prm.data(), pv, p, s - hs);
    auto dp = [&](double Cell::*m) { return (pp.*m - pm.*m) / (2 * hp); };
    auto ds = [&](double Cell::*m) { return (sp.*m - sm.*m) / (2 * hs); };
    CAPTURE(p);
    CAPTURE(s);
    CHECK(rel(c.dmw_dp, dp(&Cell::mw), 1e-6 * pv) < 1e-6);
    CHECK(rel(c.dmw_ds, ds(&Cell::mw), 1e-6 * pv) < 1e-6);
    CHECK(rel(c.dmo_dp, dp(&Cell::mo), 1e-6 * pv) < 1e-6);
    CHECK(rel(c.dmo_ds, ds(&Cell::mo), 1e-6 * pv) < 1e-6);
    CHECK(rel(c.dlw_dp, dp(&Cell::lw), 1e-9) < 1e-6);
    CHECK(rel(c.dlw_ds, ds(&Cell::lw), 1e-6) < 1e-6);
    CHECK(rel(c.dlo_dp, dp(&Cell::lo), 1e-9) < 1e-6);
    CHECK(rel(c.dlo_ds, ds(&Cell::lo), 1e-6) < 1e-6);
    CHECK(rel(c.dpc_ds, ds(&Cell::pc), 1e-6) < 1e-6);
    CHECK(rel(c.dgw_dp, dp(&Cell::gw), 1e-12) < 1e-6);
    CHECK(rel(c.dgo_dp, dp(&Cell::go), 1e-12) < 1e-6);
    // the masses are the model's: S_w of (m_w, m_o) at p is s again
    CHECK(phys::imp_sw<double>(c.mw, c.mo, 1 / c.ibw, 1 / c.ibo) == doctest::Approx(s).epsilon(1e-12));
  }
}

TEST_CASE("fim: a face's fluxes have their analytic derivatives in both directions, and cancel from the two sides") {
  const auto f = fim_fluid();
  const auto prm = build_prm(f);
  auto& g = rng();
  std::uniform_real_distribution<double> u(0, 1);
  int b_up = 0, a_up = 0;
  for (int t = 0; t < 400; ++t) {
    const double pa = inside_segment(g, f.pvdo.p), pb = pa + 20 * (u(g) - 0.5);
    const double sa = inside_segment(g, f.swof.sw), sb = inside_segment(g, f.swof.sw);
    const double T = 0.5 + 5 * u(g), da = 2000 + 10 * u(g), db = da + 20 * (u(g) - 0.5);
    const double x[4] = {pa, sa, pb, sb};
    auto flux = [&](const double* y, double out[2], double d[8]) {
      const Cell ca = phys::fim_cell_at<double>(prm.data(), 1e3, y[0], y[1]);
      const Cell cb = phys::fim_cell_at<double>(prm.data(), 1e3, y[2], y[3]);
      phys::fim_face<double>(ca, cb, y[0], y[2], T, da, db, 1, out, d);
    };
    double F[2], D[8];
    flux(x, F, D);
    (F[1] > 0 ? b_up : a_up)++;
    const double h[4] = {1e-5, 1e-8, 1e-5, 1e-8};
    for (int v = 0; v < 4; ++v) {
      double xp[4], xm[4], fp[2], fm[2], dd[8];
      for (int k = 0; k < 4; ++k) xp[k] = xm[k] = x[k];
      xp[v] += h[v];
      xm[v] -= h[v];
      flux(xp, fp, dd);
      flux(xm, fm, dd);
      // a difference across a switch of upstream is not a derivative: skip those
      if ((fp[0] > 0) != (fm[0] > 0) || (fp[1] > 0) != (fm[1] > 0)) continue;
      for (int r = 0; r < 2; ++r) {
        const double fd = (fp[r] - fm[r]) / (2 * h[v]);
        CAPTURE(r);
        CAPTURE(v);
        CHECK(rel(D[r * 4 + v], fd, 1e-6 * T) < 1e-5);
      }
    }
    // from b's side (b first now: the same tie rule) the fluxes are the negatives
    const Cell ca = phys::fim_cell_at<double>(prm.data(), 1e3, pa, sa), cb = phys::fim_cell_at<double>(prm.data(), 1e3, pb, sb);
    double Fb[2], Db[8];
    phys::fim_face<double>(cb, ca, pb, pa, T, db, da, 0, Fb, Db);
    CHECK(Fb[0] == -F[0]);
    CHECK(Fb[1] == -F[1]);
  }
  CHECK(b_up > 50);  // both directions were exercised
  CHECK(a_up > 50);
}

TEST_CASE("fim: a completion's rates have their analytic derivatives; flow the wrong way is closed") {
  const auto f = fim_fluid();
  const auto prm = build_prm(f);
  auto& g = rng();
  std::uniform_real_distribution<double> u(0, 1);
  for (int inj = 0; inj < 2; ++inj)
    for (int t = 0; t < 100; ++t) {
      const double p = inside_segment(g, f.pvdo.p), s = inside_segment(g, f.swof.sw), WI = 1 + 10 * u(g);
      const double pw = inj ? p + 1 + 30 * u(g) : p - 1 - 30 * u(g);
      const double x[3] = {p, s, pw};
      auto rate = [&](const double* y, double q[2], double d[6]) {
        const Cell c = phys::fim_cell_at<double>(prm.data(), 1e3, y[0], y[1]);
        return phys::fim_completion<double>(c, y[0], WI, y[2], inj, q, d);
      };
      double q[2], d[6];
      REQUIRE(rate(x, q, d) == 0);
      if (inj) CHECK((q[0] > 0 && q[1] == 0));
      else CHECK((q[0] <= 0 && q[1] < 0));
      const double h[3] = {1e-5, 1e-8, 1e-5};
      for (int v = 0; v < 3; ++v) {
        double xp[3] = {x[0], x[1], x[2]}, xm[3] = {x[0], x[1], x[2]}, qp[2], qm[2], dd[6];
        xp[v] += h[v];
        xm[v] -= h[v];
        rate(xp, qp, dd);
        rate(xm, qm, dd);
        for (int r = 0; r < 2; ++r) {
          CAPTURE(inj);
          CAPTURE(r);
          CAPTURE(v);
          CHECK(rel(d[r * 3 + v], (qp[r] - qm[r]) / (2 * h[v]), 1e-6 * WI) < 1e-5);
        }
      }
      // the wrong way: closed, zero rates
      const double back[3] = {p, s, inj ? p - 5 : p + 5};
      CHECK(rate(back, q, d) == 1);
      CHECK(q[0] == 0);
      CHECK(q[1] == 0);
    }
}
