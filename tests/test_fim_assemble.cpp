// The fim family on every backend: the masses and each cell's residual and Jacobian rows against
// the serial backend in double (fresh random states, inactive cells, poisoned outputs, an odd grid
// larger than a block), and the assembled Jacobian against finite differences of the assembled
// residual (every column of a sample of cells: its own block and its neighbours' blocks that point
// back at it). And each phase's fluxes cancel over the grid: the residuals sum to the mass change.
#include <cmath>
#include <random>
#include <vector>

#include "tests/fim_problem.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

constexpr double kAssembleDt = 3.0;

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("fim: masses, residual and Jacobian rows on every backend equal the serial double reference", T, float,
                   double) {
  const FimProblem P = fim_problem(17, 11, 7, rng()(), false);
  FimOnDevice<double> ref(reference(), P);
  ref.coef.fill(0.0);
  ref.res.fill(0.0);
  ref.assemble(reference(), kAssembleDt);
  const auto rc = ref.coef.download(), rr = ref.res.download();
  for_each_backend([&](Backend& be) {
    if (!be.supports(precision_of<T>())) return;
    FimOnDevice<T> d(be, P);
    d.coef.fill(T(0));  // outside the cells the arrays keep what they held: 0, as the reference's
    d.res.fill(T(0));
    Field<T> mw(be, P.box.extent()), mo(be, P.box.extent());
    mw.fill(std::nan(""));
    mo.fill(std::nan(""));
    be.fim().masses({precision_of<T>(), d.grid(), &d.prm.buffer(), d.prm.size(), &d.x.buffer(), &mw.buffer(), &mo.buffer()});
    // the masses of the state, as the physics computes them in double
    std::vector<double> want_w(P.box.extent(), 0.0);
    for (std::size_t L = 0; L < want_w.size(); ++L)
      if (P.pv0[L] > 0) want_w[L] = phys::fim_cell_at<double>(P.prm.data(), P.pv0[L], P.x[2 * L], P.x[2 * L + 1]).mw;
    CHECK(max_rel_diff(convert<double>(mw.download()), want_w) <= 10 * tol<T>());
    // poison the cells' entries: every one must be written
    {
      auto c = d.coef.download();
      auto r = d.res.download();
      for (long k = 0; k < P.box.nz; ++k)
        for (long j = 0; j < P.box.ny; ++j)
          for (long i = 0; i < P.box.nx; ++i) {
            const long L = P.box.at(i, j, k);
            for (int q = 0; q < 7; ++q)
              for (int e = 0; e < 4; ++e) c[(q * P.box.extent() + L) * 4 + e] = T(std::nan(""));
            r[2 * L] = r[2 * L + 1] = T(std::nan(""));
          }
      d.coef.upload(c);
      d.res.upload(r);
    }
    d.assemble(be, kAssembleDt);
    // a float Jacobian's entries carry the rounding of dt x fluxes of ~1e3: relative to the largest
    CHECK(max_rel_diff(convert<double>(d.coef.download()), rc) <= (sizeof(T) == 4 ? 1e-4 : 1e-11));
    // the residual is a difference of masses: relative to the masses' size, not its own
    double mscale = 0;
    for (double m : P.mw_n) mscale = std::max(mscale, m);
    CHECK(max_rel_diff(convert<double>(d.res.download()), rr, mscale) <= (sizeof(T) == 4 ? 1e-5 : 1e-12));
  });
}

}  // TEST_SUITE

TEST_CASE("fim: the assembled Jacobian equals finite differences of the assembled residual") {
  const FimProblem P = fim_problem(9, 7, 5, 17, false);
  Backend& be = reference();
  FimOnDevice<double> d(be, P);
  d.coef.fill(0.0);
  d.res.fill(0.0);
  d.assemble(be, kAssembleDt);
  const auto J = d.coef.download(), R0 = d.res.download();
  const Box3& b = P.box;
  const std::size_t E = b.extent();
  const long off[7] = {0, -1, 1, -b.sy, b.sy, -b.sz, b.sz};
  const int back[7] = {0, 2, 1, 4, 3, 6, 5};  // the plane of the neighbour that points back
  std::mt19937_64 g(3);
  int columns = 0, upstream_switches = 0;
  for (int t = 0; t < 60; ++t) {
    const long L = b.at(long(g() % b.nx), long(g() % b.ny), long(g() % b.nz));
    if (!(P.pv0[L] > 0)) continue;
    for (int u = 0; u < 2; ++u) {
      const double h = u == 0 ? 1e-5 : 1e-8;
      auto xp = P.x, xm = P.x;
      xp[2 * L + u] += h;
      xm[2 * L + u] -= h;
      d.x.upload(xp);
      d.assemble(be, kAssembleDt);
      const auto Rp = d.res.download();
      d.x.upload(xm);
      d.assemble(be, kAssembleDt);
      const auto Rm = d.res.download();
      for (int q = 0; q < 7; ++q) {
        const long N = L + off[q];  // the row whose block depends on x_L: L itself, or a neighbour
        if (!(P.pv0[N] > 0)) continue;
        const int plane = q == 0 ? 0 : back[q];
        for (int r = 0; r < 2; ++r) {
          const double fd = (Rp[2 * N + r] - Rm[2 * N + r]) / (2 * h);
          const double an = J[(plane * E + N) * 4 + r * 2 + u];
          // across a switch of upstream the difference is no derivative; the fluxes are kinked there
          const double lin = std::fabs(Rp[2 * N + r] + Rm[2 * N + r] - 2 * R0[2 * N + r]);
          if (lin > 1e-6 * std::max(1.0, std::fabs(R0[2 * N + r]))) {
            ++upstream_switches;
            continue;
          }
          CAPTURE(L);
          CAPTURE(q);
          CAPTURE(r);
          CAPTURE(u);
          CHECK(std::fabs(an - fd) <= 1e-5 * std::max(1.0, std::fabs(an)));
        }
      }
      ++columns;
    }
  }
  CHECK(columns > 60);
  CHECK(upstream_switches < columns);
}

TEST_CASE("fim: each phase's fluxes cancel: the residuals sum to the change of the masses in place") {
  const FimProblem P = fim_problem(13, 8, 6, 5, false);
  Backend& be = reference();
  FimOnDevice<double> d(be, P);
  d.coef.fill(0.0);
  d.res.fill(0.0);
  d.assemble(be, kAssembleDt);
  const auto R = d.res.download();
  double sw = 0, so = 0, dw = 0, dO = 0, scale = 0;
  for (std::size_t L = 0; L < P.pv0.size(); ++L) {
    if (!(P.pv0[L] > 0)) continue;
    const auto c = phys::fim_cell_at<double>(P.prm.data(), P.pv0[L], P.x[2 * L], P.x[2 * L + 1]);
    sw += R[2 * L];
    so += R[2 * L + 1];
    dw += c.mw - P.mw_n[L];
    dO += c.mo - P.mo_n[L];
    scale = std::max(scale, c.mw + c.mo);
  }
  CHECK(std::fabs(sw - dw) <= 1e-12 * scale * double(P.pv0.size()));
  CHECK(std::fabs(so - dO) <= 1e-12 * scale * double(P.pv0.size()));
}
