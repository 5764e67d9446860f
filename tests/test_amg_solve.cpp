// AMG as a preconditioner on every backend: alone it converges on Poisson at a rate that does not
// grow with the grid; with CG it solves heterogeneous diffusion in few iterations; a refresh with
// new values of the same pattern keeps the hierarchy (a partial one: the finest level alone); the
// stencil and the CSR form of one matrix are preconditioned alike; a matrix it cannot coarsen is
// refused, or smoothed alone when asked; a coarsest level too large to invert is smoothed; the
// fused steps (every level) and the fourth-kind polynomial. AMG (and ILU(0)) in float under a
// double solve.
#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <type_traits>
#include <vector>

#include "core/base/error.hpp"
#include "core/kernels/blas.hpp"
#include "core/linalg/amg.hpp"
#include "core/linalg/float_preconditioner.hpp"
#include "core/linalg/ilu.hpp"
#include "core/linalg/krylov.hpp"
#include "tests/diffusion_problem.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::linalg;
using namespace poreflow::test;

namespace {

// The convergence factor of x += M (b - A x) from 0 over `its` iterations, on the device.
template <class T>
double stationary_factor(Backend& be, const Diffusion& d, int its) {
  OnDevice<T> dev(be, d);
  Amg<T> M;
  M.update(dev.op);
  auto b = make_field(be, convert<T>(random_rhs<T>(d)));
  Field<T> x(be, dev.op.size()), r(be, dev.op.size()), z(be, dev.op.size());
  x.fill(T(0));
  dev.op.residual(b, x, r, {});
  const double r0 = norm2(convert<double>(r.download()));
  for (int k = 0; k < its; ++k) {
    M.apply(r, z, {});
    be.blas().axpy({precision_of<T>(), x.size(), 1.0, &z.buffer(), &x.buffer()});
    dev.op.residual(b, x, r, {});
  }
  return std::pow(norm2(convert<double>(r.download())) / r0, 1.0 / its);
}

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("amg: alone it converges on Poisson at a rate that does not grow with the grid", T, double) {
  for_each_backend([](Backend& be) {
    const double f1 = stationary_factor<T>(be, diffusion(15, 15, 15, 0), 6);
    const double f2 = stationary_factor<T>(be, diffusion(31, 31, 31, 0), 6);
    INFO("convergence factors: 15^3 ", f1, ", 31^3 ", f2);
    // a V(3,3) cycle of Chebyshev smoothing reduces the residual about 3.5-fold an iteration (0.29
    // measured at both sizes on serial); what must not happen is growth with the grid
    CHECK(f1 < 0.35);
    CHECK(f2 < 0.35);
    CHECK(f2 < f1 + 0.08);
  });
}

TEST_CASE_TEMPLATE("amg: CG + AMG solves heterogeneous anisotropic diffusion in few iterations", T, float, double) {
  for_each_backend([](Backend& be) {
    if (!be.supports(precision_of<T>())) return;
    const auto d = diffusion(33, 27, 19, 5, 0.1, 1e-4, 3);
    OnDevice<T> dev(be, d);
    Amg<T> M;
    M.update(dev.op);
    INFO(M.describe());
    CHECK(M.levels() >= 3);
    const double tol = sizeof(T) == 4 ? 1e-5 : 1e-8;
    const auto res = cg_amg(be, d, dev, M, tol, 100);
    INFO(res.describe());
    CHECK(res.converged);
    CHECK(res.iterations <= 25);
    CHECK(res.true_relative_residual <= 10 * tol);
  });
}

TEST_CASE_TEMPLATE("amg: new values of the same pattern refresh the hierarchy on the device", T, double) {
  for_each_backend([](Backend& be) {
    const auto d = diffusion(21, 19, 17, 3, 1, 1e-3, 5);
    OnDevice<T> dev(be, d);
    Amg<T> M;
    M.update(dev.op);
    const auto b = make_field(be, convert<T>(random_rhs<T>(d)));
    Field<T> z1(be, dev.op.size()), z3(be, dev.op.size());
    M.apply(b, z1, {});
    const std::string levels = M.hierarchy().describe();
    // every value times 3: the prolongators keep their values, every level scales by 3, so the
    // preconditioner's output scales by 1/3 (only if the refresh ran through every level)
    auto c = d.coef;
    for (auto& v : c) v *= 3;
    dev.m.coef.upload(convert<T>(c));
    M.update(dev.op);
    CHECK(M.refreshes() == 2);
    CHECK(M.hierarchy().describe() == levels);
    M.apply(b, z3, {});
    auto a = convert<double>(z1.download()), r = convert<double>(z3.download());
    for (auto& v : r) v *= 3;
    CHECK(max_rel_diff(r, a) <= 1e-10);
  });
}

TEST_CASE_TEMPLATE("amg: a partial update refreshes the finest level and keeps the coarse levels", T, double) {
  for_each_backend([](Backend& be) {
    // one pattern, values moved as a time step moves them: the vertical couplings 1.3 times and the
    // accumulation twice what they were
    const auto d1 = diffusion(23, 19, 17, 3, 1, 1e-3, 5), d2 = diffusion(23, 19, 17, 3, 1.3, 2e-3, 5);
    // a launch a step, and the coarse levels in one launch (the tail holds copies of their values)
    for (const long tail : {0L, 1L << 20}) {
      CAPTURE(tail);
      AmgConfig c;
      c.tail_rows = tail;
      OnDevice<T> dev(be, d1);
      Amg<T> M(c), W(c);  // M: updated partly; W: updated whole
      M.update(dev.op);
      W.update(dev.op);
      REQUIRE(M.levels() >= 3);
      CHECK((M.tail_level() < M.levels()) == (tail > 0));
      const auto before = M.bounds();
      dev.m.coef.upload(convert<T>(d2.coef));
      M.update_partly(dev.op);
      W.update(dev.op);
      CHECK(M.refreshes() == 1);
      CHECK(M.partial_refreshes() == 1);
      CHECK(W.refreshes() == 2);
      // the finest level's bound is the whole update's, to the bit; the coarse levels' stay as they
      // were, where the whole update moved them
      CHECK(M.bounds()[0] == W.bounds()[0]);
      CHECK(M.bounds()[0] != before[0]);
      for (std::size_t l = 1; l < M.levels(); ++l) {
        CAPTURE(l);
        CHECK(M.bounds()[l] == before[l]);
      }
      CHECK(W.bounds()[1] != before[1]);
      // with the coarse levels of the earlier values, CG + AMG still converges, in a few more iterations
      const auto whole = cg_amg(be, d2, dev, W, 1e-10, 200), partly = cg_amg(be, d2, dev, M, 1e-10, 200);
      INFO("whole: ", whole.describe(), "; partly: ", partly.describe());
      CHECK(partly.converged);
      CHECK(partly.true_relative_residual <= 1e-9);
      CHECK(partly.iterations <= whole.iterations + 3);
    }
    OnDevice<T> dev(be, d1);
    // a partial update of an operator not set up for is the whole set-up
    Amg<T> N;
    N.update_partly(dev.op);
    CHECK(N.refreshes() == 1);
    CHECK(N.partial_refreshes() == 0);
    // in float under a double solve: the values narrowed again, the float AMG updated partly
    if constexpr (std::is_same_v<T, double>) {
      if (be.supports(Precision::Float)) {
        FloatPreconditioner F(std::make_unique<Amg<float>>());
        F.update(dev.op);
        F.update_partly(dev.op);
        const auto& inner = dynamic_cast<const Amg<float>&>(F.inner());
        CHECK(inner.refreshes() == 1);
        CHECK(inner.partial_refreshes() == 1);
      }
    }
  });
}

TEST_CASE_TEMPLATE("amg: the stencil and the CSR form of one matrix are preconditioned alike", T, double) {
  for_each_backend([](Backend& be) {
    const auto d = diffusion(19, 17, 13, 2, 0.5, 1e-3, 9);
    OnDevice<T> dev(be, d);
    const auto pat = csr_pattern_of_stencil7(d.box, d.active);
    const auto map = stencil7_to_csr_map(d.box, d.active);
    std::vector<double> vals(map.size());
    for (std::size_t k = 0; k < map.size(); ++k) vals[k] = d.coef[static_cast<std::size_t>(map[k])];
    CsrMatrix<T> m(be, pat, 1);
    m.val.upload(convert<T>(vals));
    CsrOperator<T> op(m);
    Amg<T> Ms, Mc;
    Ms.update(dev.op);
    Mc.update(op);
    CHECK(Ms.hierarchy().describe() == Mc.hierarchy().describe());
    // the smoothers' bound: the device's Gershgorin bound of the values times the setup's ratio
    CHECK(Ms.bounds()[0] == doctest::Approx(gershgorin_dinv_a(pat, vals) * Ms.hierarchy().spectrum_ratio[0]).epsilon(1e-12));
    for (std::size_t l = 0; l < Ms.bounds().size(); ++l) CHECK(Ms.bounds()[l] == doctest::Approx(Mc.bounds()[l]).epsilon(1e-12));
    const auto b = make_field(be, convert<T>(random_rhs<T>(d)));
    Field<T> zs(be, dev.op.size()), zc(be, op.size());
    Ms.apply(b, zs, {});
    Mc.apply(b, zc, {});
    CHECK(max_rel_diff(convert<double>(zs.download()), convert<double>(zc.download())) <= 1e-12);
  });
}

TEST_CASE_TEMPLATE("amg: a matrix it cannot coarsen is refused, or smoothed alone when the case says so", T, double) {
  for_each_backend([](Backend& be) {
    Diffusion d;  // the diagonal alone: no strong connections
    d.box = Box3::standalone(23, 21, 19, 1);
    d.coef.assign(7 * d.box.extent(), 0.0);
    d.active.assign(d.box.extent(), 0);
    for (long z = 0; z < 19; ++z)
      for (long y = 0; y < 21; ++y)
        for (long x = 0; x < 23; ++x) {
          d.active[d.box.at(x, y, z)] = 1;
          d.coef[d.box.at(x, y, z)] = 2.0 + 0.01 * double(x);
        }
    OnDevice<T> dev(be, d);
    Amg<T> strict;
    CHECK_THROWS_WITH_AS(strict.update(dev.op), doctest::Contains("AMG cannot coarsen"), ConfigError);
    AmgConfig c;
    c.setup.fallback = true;
    Amg<T> lenient(c);
    lenient.update(dev.op);
    CHECK(lenient.levels() == 1);
    CHECK_FALSE(lenient.coarsest_inverted());  // one level smooths alone: no dense inverse of the whole matrix
    const auto b = make_field(be, convert<T>(random_rhs<T>(d)));
    Field<T> z(be, dev.op.size());
    lenient.apply(b, z, {});
    // a diagonal matrix: Chebyshev on D^-1 A = I from its interval [lo, hi] around 1 inverts it
    // nearly: z close to D^-1 b
    const auto zb = convert<double>(z.download()), bb = convert<double>(b.download());
    double worst = 0;
    for (std::size_t l = 0; l < zb.size(); ++l)
      if (d.active[l]) worst = std::max(worst, std::fabs(zb[l] * d.coef[l] - bb[l]));
    CHECK(worst < 0.5);
  });
}

TEST_CASE_TEMPLATE("amg: a coarsest level too large to invert is smoothed, and CG + AMG still converges", T, double) {
  for_each_backend([](Backend& be) {
    const auto d = diffusion(37, 41, 43, 2, 1, 1e-4, 5);  // 65 231 rows; two levels leave a coarsest of thousands
    OnDevice<T> dev(be, d);
    AmgConfig c;
    c.setup.max_levels = 2;
    Amg<T> M(c);
    M.update(dev.op);
    INFO(M.describe());
    REQUIRE(M.levels() == 2);
    CHECK(M.hierarchy().coarsest.rows > 2000);
    CHECK_FALSE(M.coarsest_inverted());
    const auto res = cg_amg(be, d, dev, M, 1e-8, 200);
    INFO(res.describe());
    CHECK(res.converged);
    CHECK(res.true_relative_residual <= 1e-7);
  });
}

TEST_CASE("amg: the coarse levels' own smoother degree: the same bits when it equals the finest's, another cycle when not") {
  for_each_backend([](Backend& be) {
    const auto d = diffusion(23, 21, 19, 2, 0.5, 1e-3, 13);
    OnDevice<double> dev(be, d);
    auto cycle = [&](int degree, int coarse) {
      AmgConfig c;
      c.degree = degree;
      c.coarse_degree = coarse;
      Amg<double> M(c);
      M.update(dev.op);
      REQUIRE(M.levels() >= 3);
      const auto b = make_field(be, random_rhs<double>(d));
      Field<double> z(be, dev.op.size());
      z.fill(std::numeric_limits<double>::quiet_NaN());
      M.apply(b, z, {});
      return std::pair{z.download(), M.describe()};
    };
    const auto [z30, d30] = cycle(3, 0);
    const auto [z33, d33] = cycle(3, 3);
    const auto [z31, d31] = cycle(3, 1);
    CHECK(z33 == z30);
    CHECK(z31 != z30);
    CHECK(d31.find("(1 below the finest)") != std::string::npos);
    CHECK(d33.find("below the finest") == std::string::npos);
    CHECK(d30 == d33);
    // the V-cycle with one coarse step still preconditions CG to 1e-8
    AmgConfig c;
    c.coarse_degree = 1;
    Amg<double> M(c);
    M.update(dev.op);
    const auto res = cg_amg(be, d, dev, M, 1e-8, 100);
    CHECK(res.converged);
    AmgConfig bad;
    bad.coarse_degree = -1;
    CHECK_THROWS_WITH_AS(Amg<double>{bad}, doctest::Contains("coarse levels' smoother degree"), ConfigError);
  });
}

TEST_CASE("amg: every level's fused Chebyshev steps give the cycle of a residual and an update; the fourth kind") {
  for_each_backend([](Backend& be) {
    auto d = diffusion(29, 23, 17, 2, 0.5, 1e-3, 7);
    punch_holes(d, 5, 9);
    const std::size_t e = d.box.extent();
    OnDevice<double> dev(be, d);
    // the same matrix as CSR: its finest level's steps are csr chebyshev's, as the coarse levels' are
    const auto pat = csr_pattern_of_stencil7(d.box, d.active);
    const auto map = stencil7_to_csr_map(d.box, d.active);
    std::vector<double> vals(map.size());
    for (std::size_t k = 0; k < map.size(); ++k) vals[k] = d.coef[static_cast<std::size_t>(map[k])];
    CsrMatrix<double> m(be, pat, 1);
    m.val.upload(vals);
    CsrOperator<double> csr_op(m);
    const auto b = make_field(be, random_rhs<double>(d));
    auto cycle = [&](Chebyshev kind, int degree, int coarse_degree, bool fused, bool csr, bool w = false) {
      AmgConfig c;
      c.w_cycle = w;
      c.kind = kind;
      c.degree = degree;
      c.coarse_degree = coarse_degree;
      c.fused = fused;
      Amg<double> M(c);
      if (csr) M.update(csr_op);
      else M.update(dev.op);
      REQUIRE(M.levels() >= 3);
      Field<double> z(be, dev.op.size());
      z.fill(std::numeric_limits<double>::quiet_NaN());
      M.apply(b, z, {});
      return z.download();
    };
    // From zero the first two steps share a pass, and degree 1's step its residual: degree 2 takes
    // one pass before the coarse correction and two after; degree 3 two (the first into r) and three
    // (after a prolongation into r); degree 1 one and one, on every level or on the coarse levels. Both kinds on the
    // 7-point form; the CSR finest level, the coarse degree and the W-cycle (a coarse level visited
    // twice) with the first kind (the kind changes coefficients, not the steps' path).
    struct Variant {
      Chebyshev kind;
      int degree, coarse_degree;
      bool csr, w;
    };
    const Variant variants[] = {
        {Chebyshev::First, 2, 0, false, false},  {Chebyshev::First, 3, 0, false, false}, {Chebyshev::Fourth, 2, 0, false, false},
        {Chebyshev::Fourth, 3, 0, false, false}, {Chebyshev::First, 3, 1, false, false}, {Chebyshev::First, 2, 0, true, false},
        {Chebyshev::First, 3, 1, true, false},   {Chebyshev::First, 3, 0, false, true},  {Chebyshev::First, 1, 0, false, false},
        {Chebyshev::First, 1, 0, true, false},
    };
    for (const Variant& v : variants) {
      CAPTURE(v.csr);
      CAPTURE(v.w);
      CAPTURE(int(v.kind));
      CAPTURE(v.degree);
      CAPTURE(v.coarse_degree);
      const auto fused = cycle(v.kind, v.degree, v.coarse_degree, true, v.csr, v.w);
      const auto apart = cycle(v.kind, v.degree, v.coarse_degree, false, v.csr, v.w);
      double big = 0, diff = 0;
      bool zeros = true;
      for (std::size_t L = 0; L < e; ++L) {
        big = std::max(big, std::abs(apart[L]));
        diff = std::max(diff, std::abs(fused[L] - apart[L]));
        if (!d.active[L]) zeros = zeros && fused[L] == 0;
      }
      CHECK(zeros);
      CHECK(big > 0);
      CHECK(diff <= 1e-12 * big);
    }
    // the two kinds are different cycles, and the fourth preconditions CG to 1e-8
    CHECK(cycle(Chebyshev::First, 3, 0, true, false) != cycle(Chebyshev::Fourth, 3, 0, true, false));
    AmgConfig c;
    c.kind = Chebyshev::Fourth;
    Amg<double> M(c);
    M.update(dev.op);
    CHECK(M.describe().find("fourth kind") != std::string::npos);
    const auto res = cg_amg(be, d, dev, M, 1e-8, 100);
    INFO(res.describe());
    CHECK(res.converged);
    CHECK(res.true_relative_residual <= 1e-7);
  });
}

TEST_CASE("float preconditioner: AMG in float is AMG<float> of the rounded operator, and CG in double still reaches 1e-10") {
  for_each_backend([](Backend& be) {
    if (!be.supports(Precision::Float)) return;
    const auto d = diffusion(33, 27, 19, 5, 0.1, 1e-4, 3);
    OnDevice<double> dev(be, d);
    FloatPreconditioner F(std::make_unique<Amg<float>>());
    F.update(dev.op);
    INFO(F.describe());
    CHECK(F.describe().find("in float") != std::string::npos);
    // the same cycle as AMG<float> set up from the host-rounded values: the same bits
    OnDevice<float> devf(be, d);
    Amg<float> Mf;
    Mf.update(devf.op);
    const auto r = random_rhs<double>(d);
    auto rd = make_field(be, r);
    auto rf = make_field(be, convert<float>(r));
    Field<double> z(be, dev.op.size());
    Field<float> zf(be, devf.op.size());
    z.fill(std::numeric_limits<double>::quiet_NaN());
    zf.fill(std::numeric_limits<float>::quiet_NaN());
    F.apply(rd, z, {});
    Mf.apply(rf, zf, {});
    CHECK(z.download() == convert<double>(zf.download()));
    // CG in double: the float cycle costs at most 2 iterations over the double one, and the
    // solution reaches a tolerance float alone could not
    Amg<double> M;
    M.update(dev.op);
    const auto rd_res = cg_amg(be, d, dev, M, 1e-10, 100);
    const auto rf_res = cg_amg(be, d, dev, F, 1e-10, 100);
    INFO("double AMG: ", rd_res.describe(), "; float AMG: ", rf_res.describe());
    CHECK(rf_res.converged);
    CHECK(rf_res.iterations <= rd_res.iterations + 2);
    CHECK(rf_res.true_relative_residual <= 1e-9);
    // new values of the same pattern: narrowed again, the hierarchy refreshed, not set up again
    auto c = d.coef;
    for (auto& v : c) v *= 2;
    dev.m.coef.upload(c);
    F.update(dev.op);
    const auto& inner = dynamic_cast<const Amg<float>&>(F.inner());
    CHECK(inner.refreshes() == 2);
    Field<double> z2(be, dev.op.size());
    F.apply(rd, z2, {});
    auto a = z.download(), b2 = z2.download();
    for (auto& v : b2) v *= 2;
    CHECK(max_rel_diff(b2, a) <= 1e-6);
  });
}

TEST_CASE("float preconditioner: ILU(0) in float of a CSR matrix under BiCGSTAB in double; bad use refused") {
  for_each_backend([](Backend& be) {
    if (!be.supports(Precision::Float)) return;
    // 2D convection-diffusion on 71 x 67 cells, upwinded along x: not symmetric, diagonally dominant
    const int nx = 71, ny = 67;
    CsrPattern pat;
    pat.rows = pat.cols = static_cast<std::size_t>(nx * ny);
    std::vector<double> vals;
    pat.ptr.assign(1, 0);
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const int row = j * nx + i;
        auto put = [&](int col, double v) {
          pat.col.push_back(col);
          vals.push_back(v);
        };
        if (j > 0) put(row - nx, -1);
        if (i > 0) put(row - 1, -1.5);  // diffusion plus the upwind drift
        put(row, 4.5 + 1e-3);
        if (i + 1 < nx) put(row + 1, -1);
        if (j + 1 < ny) put(row + nx, -1);
        pat.ptr.push_back(static_cast<int>(pat.col.size()));
      }
    CsrMatrix<double> m(be, pat, 1);
    m.val.upload(vals);
    CsrOperator<double> op(m);
    FloatPreconditioner F(std::make_unique<Ilu0<float>>());
    Field<double> r0(be, op.size()), z0(be, op.size());
    CHECK_THROWS_WITH_AS(F.apply(r0, z0, {}), doctest::Contains("apply before update"), Error);
    F.update(op);
    KrylovOptions o;
    o.method = KrylovMethod::BiCGSTAB;
    o.tolerance = 1e-10;
    o.max_iterations = 200;
    KrylovSolver<double> bicg(op, o);
    std::vector<double> rhs(op.size());
    std::mt19937 g(3);
    std::uniform_real_distribution<double> u(-1, 1);
    for (auto& v : rhs) v = u(g);
    auto b = make_field(be, rhs);
    Field<double> x(be, op.size());
    x.fill(0.0);
    const auto res = bicg.solve(b, x, F);
    INFO(res.describe());
    CHECK(res.converged);
    CHECK(res.true_relative_residual <= 1e-9);
    Field<double> short_r(be, op.size() - 1);
    CHECK_THROWS_WITH_AS(F.apply(short_r, z0, {}), doctest::Contains("float preconditioner: vectors of"), ConfigError);
  });
}

}
