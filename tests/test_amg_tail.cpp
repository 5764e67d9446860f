// AMG's coarse levels in one launch (the amg family's tail_cycle, core/physics/amg_tail.h) on every
// backend: the cycle it makes equals the cycle of a launch a step, and the serial double
// reference's, for V- and W-cycles, both Chebyshev kinds and several degrees, a tail of every level
// below the finest or of the smaller ones only, a coarsest inverted or smoothed; CG takes the same
// iterations with it; its guard stops it; a table pointing outside its arrays is refused by level.
#include <algorithm>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "core/base/converge.h"
#include "core/base/error.hpp"
#include "core/kernels/amg.hpp"
#include "core/kernels/control.hpp"
#include "core/linalg/amg.hpp"
#include "core/physics/amg_tail.h"
#include "tests/diffusion_problem.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::linalg;
using namespace poreflow::test;

namespace {

struct Cycle {
  std::vector<double> z;
  std::size_t tail = 0, levels = 0;
  std::string describe;
};

// one application of AMG configured by c, of precision T on be, to d's random right-hand side, into
// a poisoned vector
template <class T>
Cycle apply_once(Backend& be, const Diffusion& d, const AmgConfig& c) {
  OnDevice<T> dev(be, d);
  Amg<T> M(c);
  M.update(dev.op);
  const auto b = make_field(be, convert<T>(random_rhs<T>(d)));
  Field<T> z(be, dev.op.size());
  z.fill(std::numeric_limits<T>::quiet_NaN());
  M.apply(b, z, {});
  return {convert<double>(z.download()), M.tail_level(), M.levels(), M.describe()};
}

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("amg tail: the coarse levels in one launch give the cycle of a launch a step and the serial double one", T,
                   float, double) {
  auto d = diffusion(29, 23, 17, 2, 0.5, 1e-3, 7);  // 11 339 cells, holes in about one in 9
  punch_holes(d, 5, 9);
  // rows scaled by 0.5 to 2: not symmetric, so neither is the coarsest level's inverse
  std::mt19937 g(3);
  std::uniform_real_distribution<double> u(0.5, 2);
  const std::size_t e = d.box.extent();
  for (std::size_t L = 0; L < e; ++L) {
    const double f = u(g);
    for (int q = 0; q < 7; ++q) d.coef[q * e + L] *= f;
  }
  for_each_backend([&](Backend& be) {
    if (!be.supports(precision_of<T>())) return;
    struct Variant {
      bool w;
      Chebyshev kind;
      int degree, coarse_degree;
    };
    for (const Variant v : {Variant{false, Chebyshev::First, 3, 0}, Variant{true, Chebyshev::First, 1, 0},
                            Variant{false, Chebyshev::Fourth, 2, 0}, Variant{true, Chebyshev::Fourth, 3, 2}}) {
      AmgConfig c;
      c.w_cycle = v.w;
      c.kind = v.kind;
      c.degree = v.degree;
      c.coarse_degree = v.coarse_degree;
      c.setup.coarse_size = 40;  // a deeper hierarchy: more levels in the tail
      c.tail_rows = 0;
      const Cycle ref = apply_once<double>(reference(), d, c);
      const Cycle apart = apply_once<T>(be, d, c);
      REQUIRE(ref.levels >= 4);
      CHECK(apart.tail == apart.levels);
      CHECK(apart.describe.find("one launch") == std::string::npos);
      // every level below the finest, then the levels of at most the second level's rows less one
      for (std::size_t rows : {std::size_t(1) << 30, std::size_t(0)}) {
        c.tail_rows = static_cast<long>(rows);
        if (rows == 0) {  // the first level after the finest stays out
          OnDevice<double> dev(reference(), d);
          AmgConfig probe = c;
          probe.tail_rows = 0;
          Amg<double> M(probe);
          M.update(dev.op);
          c.tail_rows = static_cast<long>(M.hierarchy().levels.at(1).A.rows) - 1;
        }
        CAPTURE(v.w);
        CAPTURE(int(v.kind));
        CAPTURE(v.degree);
        CAPTURE(c.tail_rows);
        const Cycle one = apply_once<T>(be, d, c);
        INFO(one.describe);
        CHECK(one.tail >= 1);
        CHECK(one.tail < one.levels);
        if (rows != 0) CHECK(one.tail == 1);
        else CHECK(one.tail >= 2);
        CHECK(one.describe.find("on in one launch") != std::string::npos);
        CHECK(max_rel_diff(one.z, ref.z) <= 100 * tol<T>());
        CHECK(max_rel_diff(one.z, apart.z) <= 100 * tol<T>());
        for (std::size_t L = 0; L < one.z.size(); ++L)
          if (!d.active[L]) CHECK(one.z[L] == 0);
      }
    }
  });
}

TEST_CASE("amg tail: a coarsest level too large to invert is smoothed in the tail; CG takes the same iterations") {
  for_each_backend([](Backend& be) {
    const auto d = diffusion(37, 41, 43, 2, 1, 1e-4, 5);  // 65 231 rows; two levels leave a coarsest of thousands
    AmgConfig c;
    c.setup.max_levels = 2;
    c.tail_rows = 0;
    const Cycle ref = apply_once<double>(reference(), d, c);
    c.tail_rows = 1L << 30;
    const Cycle one = apply_once<double>(be, d, c);
    INFO(one.describe);
    CHECK(one.levels == 2);
    CHECK(one.tail == 1);
    CHECK(max_rel_diff(one.z, ref.z) <= 100 * tol<double>());
    // CG + AMG to 1e-8 with and without the tail: the same iterations
    OnDevice<double> dev(be, diffusion(31, 29, 23, 3, 0.1, 1e-4, 11));
    const auto d2 = diffusion(31, 29, 23, 3, 0.1, 1e-4, 11);
    int its[2] = {0, 0};
    for (int with : {0, 1}) {
      AmgConfig cc;
      cc.tail_rows = with ? 1L << 30 : 0;
      Amg<double> M(cc);
      M.update(dev.op);
      CHECK((M.tail_level() < M.levels()) == bool(with));
      const auto res = cg_amg(be, d2, dev, M, 1e-8, 100);
      INFO(res.describe());
      CHECK(res.converged);
      its[with] = res.iterations;
    }
    CHECK(its[0] == its[1]);
    // none by default; -1: the backend's choice, none where one_launch_rows() is 0 (the host, cuda,
    // OpenCL on a CPU), else the levels of at most that many rows, unless that is the inverted
    // coarsest alone
    Amg<double> plain{AmgConfig{}};
    plain.update(dev.op);
    CHECK(plain.tail_level() == plain.levels());
    AmgConfig chosen;
    chosen.tail_rows = -1;
    Amg<double> M{chosen};
    M.update(dev.op);
    INFO(M.describe());
    if (be.one_launch_rows() == 0) {
      CHECK(M.tail_level() == M.levels());
    } else if (M.tail_level() < M.levels()) {
      CHECK(M.tail_level() + 1 < M.levels());
      for (std::size_t l = 1; l + 1 < M.levels(); ++l)
        CHECK((l >= M.tail_level()) == (M.hierarchy().levels[l].A.rows <= be.one_launch_rows()));
    }
    // the inverted coarsest alone makes no tail; the coarsest smoothed alone does (above)
    AmgConfig last;
    last.tail_rows = static_cast<long>(M.hierarchy().coarsest.rows);
    Amg<double> C{last};
    C.update(dev.op);
    REQUIRE(C.coarsest_inverted());
    CHECK(C.tail_level() == C.levels());
    AmgConfig bad;
    bad.tail_rows = -2;
    CHECK_THROWS_WITH_AS(Amg<double>{bad}, doctest::Contains("-1: the backend's choice"), ConfigError);
  });
}

TEST_CASE("amg tail: its guard stops it, and a table pointing outside its arrays is refused by level") {
  for_each_backend([](Backend& be) {
    // two levels: 3 rows (tridiagonal) restricted to 1 (the sum), the coarsest inverted
    const int n = 3;
    std::vector<int> ints = {0, 2, 5, 7, /*col*/ 0, 1, 0, 1, 2, 1, 2,
                             /*R ptr*/ 0, 3, /*R col*/ 0, 1, 2, /*P ptr*/ 0, 1, 2, 3, /*P col*/ 0, 0, 0,
                             /*coarse A*/ 0, 1, 0};
    std::vector<double> vals = {2, -1, -1, 2, -1, -1, 2, /*dinv*/ 0.5, 0.5, 0.5, /*R*/ 1, 1, 1, /*P*/ 1, 1, 1,
                                /*coarse A*/ 2, /*dinv*/ 0.5, /*cinv*/ 0.5, /*coef*/ 0, 0.6, 0, 0.5};
    std::vector<int> table(2 * PF_AMG_TAIL_FIELDS, -1);
    int* t0 = table.data();
    int* t1 = t0 + PF_AMG_TAIL_FIELDS;
    t0[PF_AT_ROWS] = n, t0[PF_AT_A_PTR] = 0, t0[PF_AT_A_COL] = 4, t0[PF_AT_A_VAL] = 0, t0[PF_AT_DINV] = 7;
    t0[PF_AT_R_PTR] = 11, t0[PF_AT_R_COL] = 13, t0[PF_AT_R_VAL] = 10, t0[PF_AT_P_PTR] = 16, t0[PF_AT_P_COL] = 20;
    t0[PF_AT_P_VAL] = 13, t0[PF_AT_COEF] = 19, t0[PF_AT_DEGREE] = 1, t0[PF_AT_Y] = 0, t0[PF_AT_D] = 3;
    t1[PF_AT_ROWS] = 1, t1[PF_AT_A_PTR] = 23, t1[PF_AT_A_COL] = 25, t1[PF_AT_A_VAL] = 16, t1[PF_AT_DINV] = 17;
    t1[PF_AT_CINV] = 18, t1[PF_AT_COEF] = 21, t1[PF_AT_DEGREE] = 1, t1[PF_AT_B] = 6, t1[PF_AT_X] = 7;
    t1[PF_AT_Y] = 8, t1[PF_AT_D] = 9;
    auto tb = be.alloc(table.size() * sizeof(int)), ib = be.alloc(ints.size() * sizeof(int));
    be.upload(*tb, table.data(), table.size() * sizeof(int));
    be.upload(*ib, ints.data(), ints.size() * sizeof(int));
    auto fv = make_field(be, vals);
    Field<double> work(be, 10), x(be, n);
    const auto b = make_field(be, std::vector<double>{1, 2, 3});
    work.fill(0);
    x.fill(std::numeric_limits<double>::quiet_NaN());
    AmgTailArgs a;
    a.levels = 2;
    a.table = tb.get();
    a.ints = ib.get();
    a.vals = &fv.buffer();
    a.work = &work.buffer();
    a.b = &b.buffer();
    a.x = &x.buffer();
    a.ints_n = ints.size();
    a.vals_n = vals.size();
    a.work_n = 10;
    a.first_rows = n;
    // by hand: Jacobi x1 = 0.6 D^-1 b = 0.3 b; r = b - A x1; bc = sum r; xc = bc / 2; x2 = x1 + xc;
    // then a Jacobi step of 0.6 from x2 (the coefficient table's first pair for both smoothings)
    std::vector<double> bh = {1, 2, 3}, x1(3), r(3), x2(3), want(3);
    auto Ax = [&](const std::vector<double>& v, int i) {
      double s = 2 * v[i];
      if (i > 0) s -= v[i - 1];
      if (i < 2) s -= v[i + 1];
      return s;
    };
    for (int i = 0; i < 3; ++i) x1[i] = 0.6 * 0.5 * bh[i];
    double bc = 0;
    for (int i = 0; i < 3; ++i) bc += bh[i] - Ax(x1, i);
    for (int i = 0; i < 3; ++i) x2[i] = x1[i] + 0.5 * bc;
    for (int i = 0; i < 3; ++i) want[i] = x2[i] + 0.6 * 0.5 * (bh[i] - Ax(x2, i));
    be.amg().tail_cycle(a, table);
    CHECK(max_rel_diff(x.download(), want) <= 1e-14);
    // the guard says stop: nothing is written
    auto ctrl = be.alloc(kControlBytes);
    be.control().reset(*ctrl);
    const std::vector<unsigned long long> stop = {PF_CV_CONVERGED};
    be.upload(*ctrl, stop.data(), 8);
    a.guard = ctrl.get();
    x.fill(std::numeric_limits<double>::quiet_NaN());
    be.amg().tail_cycle(a, table);
    for (double v : x.download()) CHECK(v != v);
    a.guard = nullptr;
    // refused: an offset outside its array, names the level; a first level whose vectors are the work's
    auto bad = table;
    bad[PF_AMG_TAIL_FIELDS + PF_AT_CINV] = static_cast<int>(vals.size());
    CHECK_THROWS_WITH_AS(be.amg().tail_cycle(a, bad), doctest::Contains("level 1's dense inverse"), BackendError);
    bad = table;
    bad[PF_AT_X] = 0;
    CHECK_THROWS_WITH_AS(be.amg().tail_cycle(a, bad), doctest::Contains("first level's vectors"), BackendError);
    bad = table;
    bad[PF_AT_Y] = 8;
    CHECK_THROWS_WITH_AS(be.amg().tail_cycle(a, bad), doctest::Contains("level 0's second iterate"), BackendError);
    a.levels = 3;
    CHECK_THROWS_WITH_AS(be.amg().tail_cycle(a, table), doctest::Contains("the table has"), BackendError);
  });
}

}  // TEST_SUITE
