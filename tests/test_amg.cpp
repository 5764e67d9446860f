// The amg family against the host plan's double arithmetic (core/linalg/amg_setup.cpp), and the
// setup itself: aggregates, the prolongator's constant preservation, the Galerkin product.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include <omp.h>

#include "core/base/error.hpp"
#include "core/kernels/amg.hpp"
#include "core/kernels/control.hpp"
#include "core/linalg/amg_global.hpp"
#include "core/linalg/amg_setup.hpp"
#include "core/physics/amg.h"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::linalg;
using namespace poreflow::test;

namespace {

// A 7-point operator on an nx x ny x nz grid with random positive transmissibilities (a
// heterogeneous diffusion), a few cells without any entry (inactive: empty rows) and a small
// accumulation term: SPD, irregular enough that every aggregation pass has work.
struct CsrDiffusion {
  CsrPattern A;
  std::vector<double> a;
};

CsrDiffusion csr_diffusion(int nx, int ny, int nz, std::uint64_t seed) {
  CsrDiffusion p;
  const std::size_t n = std::size_t(nx) * ny * nz;
  p.A.rows = p.A.cols = n;
  auto k = random_vector<double>(n, 0.0, 1.0);
  for (auto& v : k) v = std::exp(6 * v - 3);  // three decades each way
  auto inactive = [&](std::size_t c) { return (c * 2654435761u + seed) % 97 == 0; };
  auto id = [&](int i, int j, int l) { return std::size_t(i) + std::size_t(nx) * (std::size_t(j) + std::size_t(ny) * l); };
  for (int l = 0; l < nz; ++l)
    for (int j = 0; j < ny; ++j)
      for (int i = 0; i < nx; ++i) {
        const std::size_t c = id(i, j, l);
        if (!inactive(c)) {
          std::vector<std::pair<int, double>> row;
          double d = 1e-3;
          const int nb[6][3] = {{i - 1, j, l}, {i + 1, j, l}, {i, j - 1, l}, {i, j + 1, l}, {i, j, l - 1}, {i, j, l + 1}};
          for (const auto& q : nb) {
            if (q[0] < 0 || q[1] < 0 || q[2] < 0 || q[0] >= nx || q[1] >= ny || q[2] >= nz) continue;
            const std::size_t o = id(q[0], q[1], q[2]);
            if (inactive(o)) continue;
            const double t = 2 / (1 / k[c] + 1 / k[o]) * (q[2] != l ? 0.1 : 1.0);
            row.push_back({int(o), -t});
            d += t;
          }
          row.push_back({int(c), d});
          std::sort(row.begin(), row.end());
          for (const auto& e : row) {
            p.A.col.push_back(e.first);
            p.a.push_back(e.second);
          }
        }
        p.A.ptr.push_back(int(p.A.col.size()));
      }
  return p;
}

template <class T>
std::unique_ptr<Buffer> ints(Backend& be, const std::vector<int>& v) {
  auto b = be.alloc(std::max<std::size_t>(v.size(), 1) * sizeof(int));
  if (!v.empty()) be.upload(*b, v.data(), v.size() * sizeof(int));
  return b;
}

std::vector<int> as_ints(const std::vector<char>& v) { return std::vector<int>(v.begin(), v.end()); }

}  // namespace

TEST_SUITE("unit") {
TEST_CASE("amg setup: aggregates cover the connected rows, P keeps constants where A does, A_c = R A P") {
  const auto pr = csr_diffusion(19, 13, 11, 7);
  AmgOptions o;
  o.coarse_size = 50;
  const auto h = amg_setup(pr.A, pr.a, o);
  INFO(h.describe());
  REQUIRE(h.levels.size() >= 2);
  const AmgLevelPlan& L = h.levels[0];
  std::size_t empty = 0, alone = 0;
  for (std::size_t i = 0; i < pr.A.rows; ++i) {
    if (pr.A.ptr[i] == pr.A.ptr[i + 1]) {
      CHECK(L.agg[i] == -1);  // no unknown, no aggregate
      ++empty;
    } else if (L.agg[i] < 0) {
      CHECK(L.P.ptr[i] == L.P.ptr[i + 1]);  // in no aggregate: no strong neighbour, so no P entry either
      ++alone;
    }
  }
  CHECK(empty > 0);
  CHECK(alone < pr.A.rows / 100);  // but nearly every row is in one
  // each row of P_tent sums to 1 and the smoothing preserves what A maps to 0: on a row whose
  // entries sum to its accumulation term only (interior, all strong), sum_I P(i, I) = 1 - omega dF_acc / dF
  std::vector<double> p, r, ac;
  amg_p_values(L, pr.a, p);
  double worst = 0;
  for (std::size_t i = 0; i < L.P.rows; ++i) {
    if (L.P.ptr[i] == L.P.ptr[i + 1] || L.weak_ptr[i] != L.weak_ptr[i + 1]) continue;
    double s = 0, rowsum = 0, d = pr.a[std::size_t(L.diag_pos[i])];
    for (int k = L.P.ptr[i]; k < L.P.ptr[i + 1]; ++k) s += p[k];
    for (int k = pr.A.ptr[i]; k < pr.A.ptr[i + 1]; ++k) rowsum += pr.a[k];
    worst = std::max(worst, std::fabs(s - (1 - L.omega * rowsum / d)));
  }
  CHECK(worst < 1e-12);
  // A_c against a dense R A P
  r.resize(L.R.nnz());
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = p[std::size_t(L.r_from_p[k])];
  amg_galerkin(L, pr.a, p, r, ac);
  const std::size_t nc = L.P.cols;
  std::vector<double> ap(pr.A.rows * nc, 0.0);  // A P, dense
  for (std::size_t i = 0; i < pr.A.rows; ++i)
    for (int q = pr.A.ptr[i]; q < pr.A.ptr[i + 1]; ++q)
      for (int m = L.P.ptr[pr.A.col[q]]; m < L.P.ptr[pr.A.col[q] + 1]; ++m) ap[i * nc + std::size_t(L.P.col[m])] += pr.a[q] * p[m];
  double err = 0, scale = 0;
  for (std::size_t I = 0; I < nc; ++I)
    for (std::size_t J = 0; J < nc; ++J) {
      double want = 0;
      for (int k = L.R.ptr[I]; k < L.R.ptr[I + 1]; ++k) want += r[k] * ap[std::size_t(L.R.col[k]) * nc + J];
      const long at = L.Ac.find(I, J);
      const double got = at >= 0 ? ac[std::size_t(at)] : 0.0;
      err = std::max(err, std::fabs(got - want));
      scale = std::max(scale, std::fabs(want));
    }
  CHECK(err <= 1e-12 * scale);
}

TEST_CASE("amg setup: the power estimate of D^-1 A's spectral radius, and each level's ratio to Gershgorin") {
  // 1D Laplacian with Dirichlet ends: D^-1 A's eigenvalues are 1 - cos(k pi / (n + 1))
  CsrPattern L1;
  std::vector<double> v1;
  const int n = 40;
  L1.rows = L1.cols = n;  // ptr starts as {0}
  for (int i = 0; i < n; ++i) {
    for (int j = i - 1; j <= i + 1; ++j)
      if (j >= 0 && j < n) {
        L1.col.push_back(j);
        v1.push_back(j == i ? 2.0 : -1.0);
      }
    L1.ptr.push_back(int(L1.col.size()));
  }
  const double exact = 1 + std::cos(M_PI / (n + 1));
  CHECK(std::fabs(power_dinv_a(L1, v1, 4000) - exact) < 1e-6 * exact);
  const double p30 = power_dinv_a(L1, v1, 30);
  CHECK(p30 <= exact * (1 + 1e-12));  // from below
  CHECK(p30 >= 0.95 * exact);
  CHECK(gershgorin_dinv_a(L1, v1) >= exact);
  // a smoothed-aggregation coarse level, whose positive off-diagonal entries make Gershgorin loose
  const auto pr = csr_diffusion(19, 13, 11, 7);
  AmgOptions o;
  o.coarse_size = 50;
  const auto h = amg_setup(pr.A, pr.a, o);
  REQUIRE(h.levels.size() >= 2);
  REQUIRE(h.spectrum_ratio.size() == h.levels.size() + 1);
  for (double r : h.spectrum_ratio) CHECK((r > 0 && r <= 1));
  std::vector<double> p, r, ac;
  const AmgLevelPlan& L = h.levels[0];
  amg_p_values(L, pr.a, p);
  r.resize(L.R.nnz());
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = p[std::size_t(L.r_from_p[k])];
  amg_galerkin(L, pr.a, p, r, ac);
  const double converged = power_dinv_a(L.Ac, ac, 20000), g = gershgorin_dinv_a(L.Ac, ac);
  INFO("level 1: power ", converged, ", Gershgorin ", g);
  CHECK(converged <= g);
  CHECK(converged < 0.8 * g);  // what the estimate is for
  CHECK(h.spectrum_ratio[1] * g <= converged * (1 + 1e-9));
  CHECK(h.spectrum_ratio[1] * g >= 0.85 * converged);
  // without the estimate, every ratio is 1 and the prolongator's omega comes from Gershgorin (smaller)
  o.spectrum_iterations = 0;
  const auto hg = amg_setup(pr.A, pr.a, o);
  for (double q : hg.spectrum_ratio) CHECK(q == 1.0);
  CHECK(hg.levels[0].omega <= L.omega);
  CHECK(hg.levels[1].omega < h.levels[1].omega);
}

TEST_CASE("amg setup: the same hierarchy, bit for bit, with any thread count") {
  // the power iterations, P's values and the Galerkin products run over rows with OpenMP
  const auto pr = csr_diffusion(23, 19, 17, 11);
  AmgOptions o;
  o.coarse_size = 50;
  const int threads = omp_get_max_threads();
  auto with = [&](int n) {
    omp_set_num_threads(n);
    auto h = amg_setup(pr.A, pr.a, o);
    std::vector<double> p, r, ac;
    amg_p_values(h.levels[0], pr.a, p);
    r.resize(h.levels[0].R.nnz());
    for (std::size_t k = 0; k < r.size(); ++k) r[k] = p[std::size_t(h.levels[0].r_from_p[k])];
    amg_galerkin(h.levels[0], pr.a, p, r, ac);
    return std::tuple(std::move(h), std::move(p), std::move(ac));
  };
  const auto [h1, p1, ac1] = with(1);
  const auto [h3, p3, ac3] = with(3);
  omp_set_num_threads(threads);
  REQUIRE(h1.levels.size() == h3.levels.size());
  CHECK(h1.spectrum_ratio == h3.spectrum_ratio);
  for (std::size_t l = 0; l < h1.levels.size(); ++l) CHECK(h1.levels[l].omega == h3.levels[l].omega);
  CHECK(h1.coarsest.col == h3.coarsest.col);
  CHECK(p1 == p3);
  CHECK(ac1 == ac3);
}

TEST_CASE("amg setup: a matrix without strong connections is refused by name, or kept as one level when asked or when its rows with entries are few") {
  CsrPattern d;
  d.rows = d.cols = 3000;
  for (std::size_t i = 0; i < d.rows; ++i) {
    d.col.push_back(int(i));
    d.ptr.push_back(int(d.col.size()));
  }
  std::vector<double> v(d.rows, 2.0);
  AmgOptions o;
  CHECK_THROWS_WITH_AS(amg_setup(d, v, o), doctest::Contains("AMG cannot coarsen the 3000-row matrix: no row has a strong neighbour"),
                       ConfigError);
  CHECK_THROWS_WITH_AS(amg_setup(d, v, o), doctest::Contains("(AmgOptions::strength; AmgOptions::fallback = true"), ConfigError);
  o.keys = "linear";  // a case's keys: the message names them
  CHECK_THROWS_WITH_AS(amg_setup(d, v, o), doctest::Contains("(linear.amg_strength; set linear.amg_fallback = true"), ConfigError);
  o.fallback = true;
  const auto h = amg_setup(d, v, o);
  CHECK(h.levels.empty());
  CHECK(h.coarsest.rows == 3000);
  // rows without entries (a process that holds no active cell), or no more rows with entries
  // than a coarsest level's: nothing worth coarsening, one level, and no error without the fallback
  o.fallback = false;
  for (std::size_t unknowns : {std::size_t(0), o.coarse_size}) {
    CAPTURE(unknowns);
    CsrPattern e;
    e.rows = e.cols = 3000;
    e.ptr.assign(1, 0);
    for (std::size_t i = 0; i < e.rows; ++i) {
      if (i % 5 == 0 && i / 5 < unknowns) e.col.push_back(int(i));  // an isolated cell: its diagonal alone
      e.ptr.push_back(int(e.col.size()));
    }
    const auto he = amg_setup(e, std::vector<double>(e.col.size(), 2.0), o);
    CHECK(he.levels.empty());
    CHECK(he.coarsest.rows == 3000);
  }
  // one more is refused as the whole diagonal matrix is
  CsrPattern f;
  f.rows = f.cols = 3000;
  f.ptr.assign(1, 0);
  for (std::size_t i = 0; i < f.rows; ++i) {
    if (i % 5 == 0 && i / 5 <= o.coarse_size) f.col.push_back(int(i));
    f.ptr.push_back(int(f.col.size()));
  }
  CHECK_THROWS_WITH_AS(amg_setup(f, std::vector<double>(f.col.size(), 2.0), o), doctest::Contains("AMG cannot coarsen"), ConfigError);
}

TEST_CASE("amg setup: the coarsest level's inverse, and a singular one named") {
  const auto pr = csr_diffusion(7, 5, 3, 3);
  const auto inv = dense_inverse(pr.A, pr.a);
  const std::size_t n = pr.A.rows;
  double err = 0;
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j) {
      double s = 0;
      for (int k = pr.A.ptr[i]; k < pr.A.ptr[i + 1]; ++k) s += pr.a[k] * inv[std::size_t(pr.A.col[k]) * n + j];
      if (pr.A.ptr[i] == pr.A.ptr[i + 1]) s = inv[i * n + j];  // an empty row is the identity
      err = std::max(err, std::fabs(s - (i == j ? 1.0 : 0.0)));
    }
  CHECK(err < 1e-10);
  CsrPattern s;
  s.rows = s.cols = 2;
  s.ptr = {0, 2, 4};
  s.col = {0, 1, 0, 1};
  CHECK_THROWS_WITH_AS(dense_inverse(s, {1, 2, 2, 4}), doctest::Contains("singular at row 1"), NumericalError);
}

TEST_CASE("amg across processes: rows of a non-symmetric inverse by LU, and a singular matrix named") {
  // a non-symmetric, pivoting-heavy dense matrix (small diagonal) of an odd size
  const std::size_t n = 37;
  auto a = random_vector<double>(n * n, -1.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) a[i * n + i] *= 1e-3;
  for (std::size_t i = 0; i < n; ++i) a[i * n + (i * 7 + 3) % n] += 2.0;
  const std::size_t first = 11, count = 9;
  const auto rows = dense_inverse_rows(n, a, first, count, "the test matrix");
  REQUIRE(rows.size() == count * n);
  double err = 0;  // (A^-1 A)'s rows first.. are the identity's
  for (std::size_t q = 0; q < count; ++q)
    for (std::size_t j = 0; j < n; ++j) {
      double v = 0;
      for (std::size_t k = 0; k < n; ++k) v += rows[q * n + k] * a[k * n + j];
      err = std::max(err, std::fabs(v - (first + q == j ? 1.0 : 0.0)));
    }
  CHECK(err < 1e-9);
  CHECK_THROWS_WITH_AS(dense_inverse_rows(2, {1, 2, 2, 4}, 0, 2, "E"), doctest::Contains("E (2 rows) is singular at row 1"),
                       NumericalError);
  CHECK_THROWS_AS(dense_inverse_rows(2, {1, 2, 2}, 0, 2, "E"), ConfigError);
}

TEST_CASE("amg across processes: composite groups cover the aggregated rows, at most the target, connected or in ranges") {
  const auto pr = csr_diffusion(23, 17, 9, 5);
  const auto h = amg_setup(pr.A, pr.a, AmgOptions{});
  REQUIRE(h.levels.size() >= 2);
  for (std::size_t target : {std::size_t(1), std::size_t(7), std::size_t(40), h.levels[1].A.rows, std::size_t(100000)}) {
    CAPTURE(target);
    std::size_t groups = 0;
    const auto g = amg_composite_groups(h, pr.A.rows, target, &groups);
    REQUIRE(g.size() == pr.A.rows);
    // at most the target where the hierarchy has a level that small or coarser groups were made
    CHECK(groups <= std::max(target, std::size_t(1)));
    CHECK(groups >= 1);
    // every group holds a row; a row is grouped exactly when level 0 aggregated it
    std::vector<int> seen(groups, 0);
    for (std::size_t i = 0; i < g.size(); ++i) {
      CHECK((g[i] >= 0) == (h.levels[0].agg[i] >= 0));
      if (g[i] >= 0) {
        REQUIRE(static_cast<std::size_t>(g[i]) < groups);
        seen[static_cast<std::size_t>(g[i])] = 1;
      }
    }
    CHECK(std::count(seen.begin(), seen.end(), 0) == 0);
    // rows of one aggregate of level 0 share their group
    std::vector<int> of(h.levels[0].A.rows, -2);
    for (std::size_t i = 0; i < g.size(); ++i) {
      const int a = h.levels[0].agg[i];
      if (a < 0) continue;
      if (of[static_cast<std::size_t>(a)] == -2) of[static_cast<std::size_t>(a)] = g[i];
      CHECK(of[static_cast<std::size_t>(a)] == g[i]);
    }
  }
  CHECK_THROWS_AS(amg_composite_groups(h, pr.A.rows + 1, 10, nullptr), ConfigError);
}
}

TEST_SUITE("backend") {
TEST_CASE_TEMPLATE("amg: p_values and galerkin on the device against the plan's double arithmetic", T, float, double) {
  const auto pr = csr_diffusion(29, 23, 17, 11);  // 11 339 rows: past the omp threshold
  AmgOptions o;
  o.coarse_size = 100;
  const auto h = amg_setup(pr.A, pr.a, o);
  REQUIRE(!h.levels.empty());
  const AmgLevelPlan& L = h.levels[0];
  std::vector<double> p, r, ac;
  amg_p_values(L, pr.a, p);
  r.resize(L.R.nnz());
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = p[std::size_t(L.r_from_p[k])];
  amg_galerkin(L, pr.a, p, r, ac);
  // the GPUs' entry a work-item (amg_galerkin_entry) sums as the host's row a work-item, in the
  // same order: the same bits; and it finds each entry's row past an empty one
  {
    std::vector<double> by_row(L.Ac.nnz(), NAN), by_entry(L.Ac.nnz(), NAN);
    const long rows = static_cast<long>(L.Ac.rows);
    for (long I = 0; I < rows; ++I)
      phys::amg_galerkin_row<double>(I, L.R.ptr.data(), L.R.col.data(), r.data(), L.A.ptr.data(), L.A.col.data(), pr.a.data(),
                                     L.P.ptr.data(), L.P.col.data(), p.data(), L.Ac.ptr.data(), L.Ac.col.data(), by_row.data());
    for (long c = 0; c < static_cast<long>(L.Ac.nnz()); ++c)
      phys::amg_galerkin_entry<double>(c, rows, L.R.ptr.data(), L.R.col.data(), r.data(), L.A.ptr.data(), L.A.col.data(),
                                       pr.a.data(), L.P.ptr.data(), L.P.col.data(), p.data(), L.Ac.ptr.data(), L.Ac.col.data(),
                                       by_entry.data());
    CHECK(by_entry == by_row);
    // rows 1 and 2 of a 4-row pattern empty: entries 0 (row 0) and 1, 2 (row 3)
    const std::vector<int> c_ptr{0, 1, 1, 1, 3}, c_col{0, 0, 1};
    const std::vector<int> one_ptr{0, 1, 1, 1, 2}, one_col{0, 1}, p_ptr{0, 1, 2}, p_col{0, 1};
    const std::vector<double> ones{1, 1}, c_got_init(3, NAN);
    std::vector<double> c_got = c_got_init;
    for (long c = 0; c < 3; ++c)
      phys::amg_galerkin_entry<double>(c, 4, one_ptr.data(), one_col.data(), ones.data(), p_ptr.data(), p_col.data(), ones.data(),
                                       p_ptr.data(), p_col.data(), ones.data(), c_ptr.data(), c_col.data(), c_got.data());
    // row 0: R(0,0) A(0,0) P(0,0) = 1 at column 0; row 3: R(3,1) A(1,1) P(1,1) = 1 at column 1, 0 at column 0
    CHECK(c_got == std::vector<double>{1, 0, 1});
  }
  for_each_backend([&](Backend& be) {
    if (!be.supports(precision_of<T>())) return;
    const Precision prec = precision_of<T>();
    auto a_val = make_field(be, convert<T>(pr.a));
    auto p_val = make_field(be, std::vector<T>(L.P.nnz(), T(NAN)));
    auto pp = ints<T>(be, L.P.ptr), dp = ints<T>(be, L.diag_pos), wp = ints<T>(be, L.weak_ptr), w = ints<T>(be, L.weak),
         sp = ints<T>(be, L.src_ptr), s = ints<T>(be, L.src), own = ints<T>(be, as_ints(L.own));
    AmgPValuesArgs pa;
    pa.prec = prec;
    pa.rows = L.P.rows;
    pa.p_ptr = pp.get();
    pa.diag_pos = dp.get();
    pa.weak_ptr = wp.get();
    pa.weak = w.get();
    pa.src_ptr = sp.get();
    pa.src = s.get();
    pa.own = own.get();
    pa.omega = L.omega;
    pa.a = &a_val.buffer();
    pa.p = &p_val.buffer();
    pa.a_values = pr.a.size();
    pa.p_values = L.P.nnz();
    be.amg().p_values(pa);
    const auto got_p = convert<double>(p_val.download());
    CHECK(max_rel_diff(got_p, p, 1.0) <= tol<T>());
    // the Galerkin product from the device's P (R gathered from it on the host here)
    std::vector<T> rv(L.R.nnz());
    for (std::size_t k = 0; k < rv.size(); ++k) rv[k] = T(got_p[std::size_t(L.r_from_p[k])]);
    auto r_val = make_field(be, rv);
    auto c_val = make_field(be, std::vector<T>(L.Ac.nnz(), T(NAN)));
    auto rp = ints<T>(be, L.R.ptr), rc = ints<T>(be, L.R.col), ap = ints<T>(be, L.A.ptr), acl = ints<T>(be, L.A.col),
         pc = ints<T>(be, L.P.col), cp = ints<T>(be, L.Ac.ptr), cc = ints<T>(be, L.Ac.col);
    AmgGalerkinArgs ga;
    ga.prec = prec;
    ga.rows = L.Ac.rows;
    ga.r_ptr = rp.get();
    ga.r_col = rc.get();
    ga.r_val = &r_val.buffer();
    ga.a_ptr = ap.get();
    ga.a_col = acl.get();
    ga.a_val = &a_val.buffer();
    ga.p_ptr = pp.get();
    ga.p_col = pc.get();
    ga.p_val = &p_val.buffer();
    ga.c_ptr = cp.get();
    ga.c_col = cc.get();
    ga.c_val = &c_val.buffer();
    ga.c_values = L.Ac.nnz();
    be.amg().galerkin(ga);
    double scale = 0;
    for (double v : ac) scale = std::max(scale, std::fabs(v));
    CHECK(max_rel_diff(convert<double>(c_val.download()), ac, scale) <= 20 * tol<T>());
  });
}

TEST_CASE_TEMPLATE("amg: smooth against the double reference, and its guard", T, float, double) {
  for_each_backend([](Backend& be) {
    if (!be.supports(precision_of<T>())) return;
    for (std::size_t n : {std::size_t(33), std::size_t(4097), std::size_t(65553)}) {
      CAPTURE(n);
      auto r = random_vector<T>(n, -1, 1), dinv = random_vector<T>(n, 0.1, 2), d = random_vector<T>(n, -1, 1),
           x = random_vector<T>(n, -1, 1);
      auto fr = make_field(be, r), fdi = make_field(be, dinv), fd = make_field(be, d), fx = make_field(be, x);
      const double alpha = 0.37, beta = 1.9;
      AmgSmoothArgs a{precision_of<T>(), n, alpha, beta, &fr.buffer(), &fdi.buffer(), &fd.buffer(), &fx.buffer()};
      be.amg().smooth(a);
      std::vector<double> wd(n), wx(n);
      for (std::size_t i = 0; i < n; ++i) {
        wd[i] = alpha * double(d[i]) + beta * double(dinv[i]) * double(r[i]);
        wx[i] = double(x[i]) + wd[i];
      }
      CHECK(max_rel_diff(convert<double>(fd.download()), wd, 1.0) <= tol<T>());
      CHECK(max_rel_diff(convert<double>(fx.download()), wx, 1.0) <= tol<T>());
      auto ctrl = be.alloc(kControlBytes);
      be.control().reset(*ctrl);
      const std::vector<unsigned long long> stop = {PF_CV_CONVERGED};
      be.upload(*ctrl, stop.data(), 8);
      a.guard = ctrl.get();
      const auto before = fx.download();
      be.amg().smooth(a);
      CHECK(fx.download() == before);
      // start: d and x poisoned, neither read
      fd.fill(T(std::numeric_limits<double>::quiet_NaN()));
      fx.fill(T(std::numeric_limits<double>::quiet_NaN()));
      a.guard = nullptr;
      a.start = 1;
      be.amg().smooth(a);
      for (std::size_t i = 0; i < n; ++i) wd[i] = beta * double(dinv[i]) * double(r[i]);
      CHECK(max_rel_diff(convert<double>(fd.download()), wd, 1.0) <= tol<T>());
      CHECK(max_rel_diff(convert<double>(fx.download()), wd, 1.0) <= tol<T>());
    }
  });
}
}
