// The ilu family: each kernel on every backend against the serial double reference (stage by
// stage, from the same inputs), the CSR plan and its colouring.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/control.hpp"
#include "core/kernels/ilu.hpp"
#include "core/linalg/csr.hpp"
#include "core/linalg/stencil7.hpp"
#include "core/physics/ilu.h"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;
using poreflow::linalg::CsrPattern;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// T's rounding of v, back in double: the inputs every backend and the reference share
template <class T>
std::vector<double> rounded(const std::vector<double>& v) {
  return convert<double>(convert<T>(v));
}

// |got - want| <= tol max(1, max|want|) everywhere; NaN (unwritten, poisoned) exactly where want has it
bool close(const std::vector<double>& got, const std::vector<double>& want, double tol, std::string* why = nullptr) {
  if (got.size() != want.size()) return false;
  double scale = 1;
  for (double w : want)
    if (std::isfinite(w)) scale = std::max(scale, std::fabs(w));
  for (std::size_t i = 0; i < got.size(); ++i) {
    const bool wn = std::isnan(want[i]), gn = std::isnan(got[i]);
    if (wn != gn || (!wn && !(std::fabs(got[i] - want[i]) <= tol * scale))) {
      if (why) *why = "entry " + std::to_string(i) + ": " + std::to_string(got[i]) + " vs " + std::to_string(want[i]);
      return false;
    }
  }
  return true;
}

std::uniform_real_distribution<double> uni(double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi); }

// ---- 7-point stencils on the host --------------------------------------------------------------

struct HostS7 {
  Box3 box;
  int b = 1;
  std::vector<double> coef;  // 7 x b^2 x E
  std::vector<int> active;   // E
  std::size_t E() const { return box.extent(); }
  double& at(int q, long L, int r, int c) { return coef[(static_cast<std::size_t>(q) * E() + static_cast<std::size_t>(L)) * b * b + r * b + c]; }
  double at(int q, long L, int r, int c) const {
    return coef[(static_cast<std::size_t>(q) * E() + static_cast<std::size_t>(L)) * b * b + r * b + c];
  }
};

long s7_step(const Box3& box, int q) { return phys::pf_ilu_s7_step(box.view(), q); }
bool s7_inside(const Box3& box, int q, long i, long j, long k) { return phys::pf_ilu_s7_inside(box.view(), q, i, j, k); }

// A random block-diagonally dominant stencil with `inactive` of its cells inactive (zero rows, no
// couplings to them); off-diagonal entries in [-1, 1], not symmetric.
HostS7 random_s7(const Box3& box, int b, double inactive, double dominance = 1.0) {
  HostS7 s{box, b, std::vector<double>(7 * static_cast<std::size_t>(b * b) * box.extent(), 0.0), std::vector<int>(box.extent(), 0)};
  auto u = uni(0, 1);
  for (long k = 0; k < box.nz; ++k)
    for (long j = 0; j < box.ny; ++j)
      for (long i = 0; i < box.nx; ++i) s.active[static_cast<std::size_t>(box.at(i, j, k))] = u(rng()) >= inactive;
  auto off = uni(-1, 1);
  for (long k = 0; k < box.nz; ++k)
    for (long j = 0; j < box.ny; ++j)
      for (long i = 0; i < box.nx; ++i) {
        const long L = box.at(i, j, k);
        if (!s.active[static_cast<std::size_t>(L)]) continue;
        std::vector<double> rowsum(static_cast<std::size_t>(b), 0.0);
        for (int q = 1; q < 7; ++q) {
          if (!s7_inside(box, q, i, j, k) || !s.active[static_cast<std::size_t>(L + s7_step(box, q))]) continue;
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) rowsum[static_cast<std::size_t>(r)] += std::fabs(s.at(q, L, r, c) = off(rng()));
        }
        for (int r = 0; r < b; ++r) {
          for (int c = 0; c < b; ++c)
            if (c != r) rowsum[static_cast<std::size_t>(r)] += std::fabs(s.at(0, L, r, c) = 0.5 * off(rng()));
          s.at(0, L, r, r) = dominance * rowsum[static_cast<std::size_t>(r)] + 0.5 + u(rng());
        }
      }
  return s;
}

template <class T>
void round_s7(HostS7& s) {
  s.coef = rounded<T>(s.coef);
}

// a random vector on the active cells, 0 elsewhere
std::vector<double> s7_vector(const HostS7& s) {
  std::vector<double> v(s.E() * static_cast<std::size_t>(s.b), 0.0);
  auto u = uni(-1, 1);
  for (std::size_t L = 0; L < s.E(); ++L)
    if (s.active[L])
      for (int r = 0; r < s.b; ++r) v[L * static_cast<std::size_t>(s.b) + static_cast<std::size_t>(r)] = u(rng());
  return v;
}

// ---- block CSR on the host ------------------------------------------------------------------------

struct HostCsr {
  CsrPattern p;
  int b = 1;
  std::vector<double> val;  // nnz x b^2
};

// the CSR of a stencil's active cells, rows in the box's natural order; cell[row] its box index
HostCsr s7_to_csr(const HostS7& s, std::vector<long>* cell = nullptr) {
  const Box3& box = s.box;
  std::vector<long> row_of(s.E(), -1), cells;
  for (long k = 0; k < box.nz; ++k)
    for (long j = 0; j < box.ny; ++j)
      for (long i = 0; i < box.nx; ++i) {
        const long L = box.at(i, j, k);
        if (s.active[static_cast<std::size_t>(L)]) row_of[static_cast<std::size_t>(L)] = static_cast<long>(cells.size()), cells.push_back(L);
      }
  HostCsr h;
  h.b = s.b;
  h.p.rows = h.p.cols = cells.size();
  const int b2 = s.b * s.b;
  for (long L : cells) {
    long i = 0, j = 0, k = 0;
    phys::pf_ilu_s7_cell(box.view(), L, &i, &j, &k);
    std::vector<std::pair<long, int>> ent;  // (column, plane)
    ent.push_back({row_of[static_cast<std::size_t>(L)], 0});
    for (int q = 1; q < 7; ++q) {
      if (!s7_inside(box, q, i, j, k)) continue;
      const long N = L + s7_step(box, q);
      if (row_of[static_cast<std::size_t>(N)] >= 0) ent.push_back({row_of[static_cast<std::size_t>(N)], q});
    }
    std::sort(ent.begin(), ent.end());
    for (auto [c, q] : ent) {
      h.p.col.push_back(static_cast<int>(c));
      for (int e = 0; e < b2; ++e) h.val.push_back(s.at(q, L, e / s.b, e % s.b));
    }
    h.p.ptr.push_back(static_cast<int>(h.p.col.size()));
  }
  if (cell) *cell = cells;
  return h;
}

// A random square pattern: the diagonal and `per_row` other columns within `band` of it (not
// symmetric), values block-diagonally dominant by `dominance`.
HostCsr random_csr(std::size_t rows, int b, int per_row, long band, double dominance = 1.0) {
  HostCsr h;
  h.b = b;
  h.p.rows = h.p.cols = rows;
  std::uniform_int_distribution<long> d(-band, band);
  auto off = uni(-1, 1), u = uni(0, 1);
  const int b2 = b * b;
  for (std::size_t r = 0; r < rows; ++r) {
    std::vector<long> cols{static_cast<long>(r)};
    for (int e = 0; e < per_row; ++e) {
      const long c = static_cast<long>(r) + d(rng());
      if (c >= 0 && c < static_cast<long>(rows)) cols.push_back(c);
    }
    std::sort(cols.begin(), cols.end());
    cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
    std::vector<double> rowsum(static_cast<std::size_t>(b), 0.0);
    std::size_t diag = 0;
    for (long c : cols) {
      if (c == static_cast<long>(r)) diag = h.p.col.size();
      h.p.col.push_back(static_cast<int>(c));
      for (int e = 0; e < b2; ++e) {
        const double v = c == static_cast<long>(r) ? (e / b == e % b ? 0.0 : 0.5 * off(rng())) : off(rng());
        h.val.push_back(v);
        rowsum[static_cast<std::size_t>(e / b)] += std::fabs(v);
      }
    }
    for (int q = 0; q < b; ++q) h.val[diag * b2 + static_cast<std::size_t>(q * b + q)] = dominance * rowsum[static_cast<std::size_t>(q)] + 0.5 + u(rng());
    h.p.ptr.push_back(static_cast<int>(h.p.col.size()));
  }
  return h;
}

std::vector<double> random_values(std::size_t n) {
  std::vector<double> v(n);
  auto u = uni(-1, 1);
  for (auto& x : v) x = u(rng());
  return v;
}

// Boxes of the stencil tests: a 3D box whose colours are past the omp threshold (9135 half-cells
// a colour), a 2D one of an even row length (both colours reach its last half-cell), one inside a
// larger array
std::vector<Box3> test_boxes() {
  return {Box3::standalone(41, 29, 15, 1), Box3::standalone(130, 127, 1, 1), Box3::inside(21, 13, 7, 1, 27, 17, 11, 3, 2, 2)};
}

}  // namespace

// ---- host-side pieces: the colouring and the plan ---------------------------------------------------

TEST_CASE("ilu: the greedy colouring of a 7-point grid is its red-black parity") {
  HostS7 s = random_s7(Box3::standalone(9, 7, 5, 1), 1, 0.0);
  std::vector<long> cells;
  HostCsr h = s7_to_csr(s, &cells);
  const auto colours = ilu_greedy_colours(h.p.rows, h.p.ptr, h.p.col);
  for (std::size_t r = 0; r < h.p.rows; ++r) {
    long i, j, k;
    phys::pf_ilu_s7_cell(s.box.view(), cells[r], &i, &j, &k);
    CHECK(colours[r] == phys::pf_rb_colour(i, j, k));
  }
}

TEST_CASE("ilu: the CSR plan orders rows by colour and entries by (colour, column)") {
  HostCsr h = random_csr(3001, 1, 9, 40);
  const IluCsrPlan p = make_ilu_csr_plan(h.p.rows, h.p.ptr, h.p.col);
  CHECK(p.colours >= 2);
  CHECK(p.colours <= 12);  // greedy keeps a band matrix's colours few
  CHECK(make_ilu_csr_plan(h.p.rows, h.p.ptr, h.p.col).colour == p.colour);  // deterministic
  for (int c = 0; c < p.colours; ++c)
    for (int t = p.colour_ptr[c]; t < p.colour_ptr[c + 1]; ++t) {
      CHECK(p.colour[static_cast<std::size_t>(p.order[static_cast<std::size_t>(t)])] == c);
      if (t > p.colour_ptr[c]) CHECK(p.order[static_cast<std::size_t>(t)] > p.order[static_cast<std::size_t>(t - 1)]);
    }
  for (std::size_t r = 0; r < h.p.rows; ++r) {
    const int cr = p.colour[r];
    CHECK(h.p.col[static_cast<std::size_t>(p.ent[static_cast<std::size_t>(p.dpos[r])])] == static_cast<int>(r));
    std::vector<int> seen;
    for (int q = h.p.ptr[r]; q < h.p.ptr[r + 1]; ++q) {
      const int c = h.p.col[static_cast<std::size_t>(p.ent[static_cast<std::size_t>(q)])];
      seen.push_back(p.ent[static_cast<std::size_t>(q)]);
      if (q < p.dpos[r]) {
        CHECK(p.colour[static_cast<std::size_t>(c)] < cr);
        if (q > h.p.ptr[r]) {
          const int prev = h.p.col[static_cast<std::size_t>(p.ent[static_cast<std::size_t>(q - 1)])];
          CHECK(std::pair(p.colour[static_cast<std::size_t>(prev)], prev) < std::pair(p.colour[static_cast<std::size_t>(c)], c));
        }
      } else if (q > p.dpos[r]) {
        CHECK(p.colour[static_cast<std::size_t>(c)] > cr);
        if (q > p.dpos[r] + 1) CHECK(h.p.col[static_cast<std::size_t>(p.ent[static_cast<std::size_t>(q - 1)])] < c);
      }
    }
    std::sort(seen.begin(), seen.end());
    for (int q = h.p.ptr[r]; q < h.p.ptr[r + 1]; ++q) CHECK(seen[static_cast<std::size_t>(q - h.p.ptr[r])] == q);  // a permutation
  }
}

TEST_CASE("ilu: a plan refuses a row without a diagonal and coupled rows of one colour") {
  // rows 0 and 1 coupled; row 2 without its diagonal
  const std::vector<int> ptr{0, 2, 4, 5}, col{0, 1, 0, 1, 0};
  CHECK_THROWS_WITH_AS(make_ilu_csr_plan(3, ptr, col), doctest::Contains("row 2 has no diagonal"), ConfigError);
  const std::vector<int> ptr2{0, 2, 4, 5}, col2{0, 1, 0, 1, 2};
  CHECK_NOTHROW(make_ilu_csr_plan(3, ptr2, col2));
  CHECK_THROWS_WITH_AS(make_ilu_csr_plan(3, ptr2, col2, {0, 0, 1}), doctest::Contains("share colour 0"), ConfigError);
  CHECK_THROWS_WITH_AS(make_ilu_csr_plan(3, ptr2, col2, {0, 1}), doctest::Contains("2 colours given for 3 rows"), ConfigError);
}

TEST_SUITE("backend") {

// ---- each kernel against the serial double reference ------------------------------------------------

TEST_CASE_TEMPLATE("ilu stencil: each kernel against the double reference, blocks 1 and 2", T, float, double) {
  Backend& ref = reference();
  for_each_backend([&](Backend& be) {
    for (const Box3& box : test_boxes())
      for (int b : {1, 2}) {
        CAPTURE(box.describe());
        CAPTURE(b);
        HostS7 s = random_s7(box, b, 0.15);
        round_s7<T>(s);
        const std::size_t E = s.E(), b2 = static_cast<std::size_t>(b * b);
        const std::vector<double> r = rounded<T>(s7_vector(s));
        // the state between the kernels: dinv and z, poisoned until written
        std::vector<double> dinv(b2 * E, kNaN), z(static_cast<std::size_t>(b) * E, kNaN);
        // one stage on `on` in precision U from the state, the state's new dinv and z
        auto stage = [&](Backend& on, auto u, int which) {
          using U = decltype(u);
          Field<U> coef = make_field(on, convert<U>(s.coef)), fd = make_field(on, convert<U>(dinv)), fr = make_field(on, convert<U>(r)),
                   fz = make_field(on, convert<U>(z));
          auto active = on.alloc(E * sizeof(int)), pivot = on.alloc(kIluPivotBytes);
          on.upload(*active, s.active.data(), E * sizeof(int));
          IluStencilArgs a{precision_of<U>(), box, b, &coef.buffer(), active.get(), &fd.buffer(), pivot.get(), &fr.buffer(), &fz.buffer()};
          auto k = on.ilu();
          k.reset_pivot(*pivot);
          switch (which) {
            case 0: k.s7_factor(a, 0); break;
            case 1: k.s7_factor(a, 1); break;
            case 2: k.s7_lower(a, 0); break;
            case 3: k.s7_lower(a, 1); break;
            default: k.s7_upper(a); break;
          }
          CHECK_FALSE(k.read_pivot(*pivot).bad());
          return std::pair(convert<double>(fd.download()), convert<double>(fz.download()));
        };
        const char* names[] = {"factor colour 0", "factor colour 1", "lower colour 0", "lower colour 1", "upper colour 0"};
        for (int which = 0; which < 5; ++which) {
          CAPTURE(names[which]);
          const auto [gd, gz] = stage(be, T{}, which);
          dinv = rounded<T>(dinv), z = rounded<T>(z);
          const auto [wd, wz] = stage(ref, double{}, which);
          std::string why;
          CHECK_MESSAGE(close(gd, wd, 4 * tol<T>(), &why), ("dinv " + why));
          CHECK_MESSAGE(close(gz, wz, 4 * tol<T>(), &why), ("z " + why));
          dinv = wd, z = wz;
        }
        // after the last stage every entry is written, 0 off the active cells
        for (std::size_t L = 0; L < E; ++L)
          for (int u = 0; u < b; ++u) {
            const double v = z[L * static_cast<std::size_t>(b) + static_cast<std::size_t>(u)];
            REQUIRE(!std::isnan(v));
            if (!s.active[L]) CHECK(v == 0);
          }
      }
  });
}

TEST_CASE_TEMPLATE("ilu csr: each kernel against the double reference, both variants, blocks 1 and 2", T, float, double) {
  Backend& ref = reference();
  for_each_backend([&](Backend& be) {
    for (int b : {1, 2})
      for (IluVariant v : {IluVariant::Ilu0, IluVariant::Dilu}) {
        CAPTURE(b);
        CAPTURE(to_string(v));
        HostCsr h = random_csr(50001, b, 5, 60);
        h.val = rounded<T>(h.val);
        const IluCsrPlan plan = make_ilu_csr_plan(h.p.rows, h.p.ptr, h.p.col);
        int widest = 0;
        for (int c = 0; c < plan.colours; ++c) widest = std::max(widest, plan.colour_rows(c));
        CHECK(widest > 8192);  // a colour past the omp threshold
        const std::size_t n = h.p.rows, nnz = h.p.nnz(), b2 = static_cast<std::size_t>(b * b);
        const std::vector<double> r = rounded<T>(random_values(n * static_cast<std::size_t>(b)));
        std::vector<double> lu(nnz * b2, kNaN), dinv(n * b2, kNaN), z(n * static_cast<std::size_t>(b), kNaN);
        // stage (kind 0 factor, 1 lower, 2 upper) of colour c on `on` in U from the state
        auto stage = [&](Backend& on, auto u, int kind, int c) {
          using U = decltype(u);
          auto ints = [&](const std::vector<int>& x) {
            auto buf = on.alloc(std::max<std::size_t>(x.size(), 1) * sizeof(int));
            on.upload(*buf, x.data(), x.size() * sizeof(int));
            return buf;
          };
          auto ptr = ints(h.p.ptr), col = ints(h.p.col), order = ints(plan.order), ent = ints(plan.ent), dpos = ints(plan.dpos);
          auto pivot = on.alloc(kIluPivotBytes);
          Field<U> val = make_field(on, convert<U>(h.val)), flu = make_field(on, convert<U>(lu)), fd = make_field(on, convert<U>(dinv)),
                   fr = make_field(on, convert<U>(r)), fz = make_field(on, convert<U>(z));
          IluCsrArgs a;
          a.prec = precision_of<U>();
          a.variant = v;
          a.block = b;
          a.rows = n;
          a.nnz = nnz;
          a.ptr = ptr.get(), a.col = col.get(), a.val = &val.buffer();
          a.order = order.get(), a.ent = ent.get(), a.dpos = dpos.get();
          a.lu = v == IluVariant::Ilu0 ? &flu.buffer() : nullptr;
          a.dinv = &fd.buffer(), a.pivot = pivot.get(), a.r = &fr.buffer(), a.z = &fz.buffer();
          a.first = plan.colour_ptr[static_cast<std::size_t>(c)], a.count = plan.colour_rows(c), a.colour = c;
          auto k = on.ilu();
          k.reset_pivot(*pivot);
          if (kind == 0) k.csr_factor(a);
          else if (kind == 1) k.csr_lower(a);
          else k.csr_upper(a);
          CHECK_FALSE(k.read_pivot(*pivot).bad());
          return std::tuple(convert<double>(flu.download()), convert<double>(fd.download()), convert<double>(fz.download()));
        };
        std::vector<std::pair<int, int>> stages;  // the apply's order: factor, forward, backward
        for (int c = 0; c < plan.colours; ++c) stages.push_back({0, c});
        for (int c = 0; c < plan.colours; ++c) stages.push_back({1, c});
        for (int c = plan.colours - 2; c >= 0; --c) stages.push_back({2, c});
        for (auto [kind, c] : stages) {
          CAPTURE(kind);
          CAPTURE(c);
          const auto [glu, gd, gz] = stage(be, T{}, kind, c);
          lu = rounded<T>(lu), dinv = rounded<T>(dinv), z = rounded<T>(z);
          const auto [wlu, wd, wz] = stage(ref, double{}, kind, c);
          std::string why;
          CHECK_MESSAGE(close(glu, wlu, 4 * tol<T>(), &why), ("lu " + why));
          CHECK_MESSAGE(close(gd, wd, 4 * tol<T>(), &why), ("dinv " + why));
          CHECK_MESSAGE(close(gz, wz, 4 * tol<T>(), &why), ("z " + why));
          lu = wlu, dinv = wd, z = wz;
        }
        for (double x : z) REQUIRE(!std::isnan(x));
        if (v == IluVariant::Dilu)
          for (double x : lu) CHECK(std::isnan(x));  // DILU keeps no factors but D^-1
      }
  });
}

TEST_CASE_TEMPLATE("ilu: the kernels' argument checks", T, float, double) {
  for_each_backend([](Backend& be) {
    IluCsrArgs a;
    a.prec = precision_of<T>();
    a.rows = 10;
    CHECK_THROWS_WITH_AS(be.ilu().csr_factor(a), doctest::Contains("ilu csr ptr: missing buffer"), BackendError);
    a.block = 3;
    CHECK_THROWS_WITH_AS(be.ilu().csr_factor(a), doctest::Contains("blocks of 1 or 2"), BackendError);
    IluStencilArgs s;
    s.prec = precision_of<T>();
    s.box = Box3::standalone(4, 4, 4, 0);
    Field<T> d(be, 1000);
    s.dinv = &d.buffer();
    CHECK_THROWS_WITH_AS(be.ilu().s7_factor(s, 0), doctest::Contains("halo of at least 1"), BackendError);
    s.box = Box3::standalone(4, 4, 4, 1);
    Field<T> c(be, 7 * 216);
    auto active = be.alloc(216 * sizeof(int)), pivot = be.alloc(kIluPivotBytes);
    s.coef = &c.buffer(), s.active = active.get(), s.pivot = pivot.get();
    CHECK_NOTHROW(be.ilu().s7_factor(s, 0));
    CHECK_THROWS_WITH_AS(be.ilu().s7_factor(s, 2), doctest::Contains("colour 2 is not 0 or 1"), BackendError);
    CHECK_THROWS_WITH_AS(be.ilu().s7_lower(s, 0), doctest::Contains("ilu stencil r: missing buffer"), BackendError);
    s.r = &d.buffer(), s.z = &d.buffer();
    CHECK_THROWS_WITH_AS(be.ilu().s7_lower(s, 0), doctest::Contains("z must be a buffer of its own"), BackendError);
  });
}

}  // TEST_SUITE
