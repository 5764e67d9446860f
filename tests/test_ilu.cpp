// The ilu family and the Ilu0 preconditioner: each kernel on every backend against the serial
// double reference (stage by stage, from the same inputs), and the preconditioner against what
// ILU(0) and DILU are (exact on a tridiagonal matrix in natural order, LU = A on the pattern, the
// stencil and CSR forms agreeing, pivots named, refactoring, a stationary iteration converging).
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
#include "core/linalg/ilu.hpp"
#include "core/physics/ilu.h"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;
using poreflow::linalg::CsrMatrix;
using poreflow::linalg::CsrPattern;
using poreflow::linalg::Ilu0;
using poreflow::linalg::IluOptions;
using poreflow::linalg::Stencil7Matrix;

namespace {


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

// y = A x in the box layout (0 off the active cells)
std::vector<double> s7_apply(const HostS7& s, const std::vector<double>& x) {
  std::vector<double> y(x.size(), 0.0);
  const Box3& box = s.box;
  const int b = s.b;
  for (long k = 0; k < box.nz; ++k)
    for (long j = 0; j < box.ny; ++j)
      for (long i = 0; i < box.nx; ++i) {
        const long L = box.at(i, j, k);
        if (!s.active[static_cast<std::size_t>(L)]) continue;
        for (int q = 0; q < 7; ++q) {
          if (q > 0 && !s7_inside(box, q, i, j, k)) continue;
          const long N = q == 0 ? L : L + s7_step(box, q);
          for (int r = 0; r < b; ++r)
            for (int c = 0; c < b; ++c) y[static_cast<std::size_t>(L * b + r)] += s.at(q, L, r, c) * x[static_cast<std::size_t>(N * b + c)];
        }
      }
  return y;
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

template <class T>
std::unique_ptr<Stencil7Matrix<T>> make_s7(Backend& be, const HostS7& s) {
  auto m = std::make_unique<Stencil7Matrix<T>>(be, s.box, s.b);
  m->coef.upload(convert<T>(s.coef));
  be.upload(*m->active, s.active.data(), s.active.size() * sizeof(int));
  return m;
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

// a tridiagonal (block-tridiagonal) matrix of n rows
HostCsr tridiagonal(std::size_t n, int b) {
  HostCsr t;
  t.b = b;
  t.p.rows = t.p.cols = n;
  auto off = uni(-1, 1), u = uni(0, 1);
  const int b2 = b * b;
  for (std::size_t r = 0; r < n; ++r) {
    std::vector<double> rowsum(static_cast<std::size_t>(b), 0.0);
    std::size_t diag = 0;
    for (long c = static_cast<long>(r) - 1; c <= static_cast<long>(r) + 1; ++c) {
      if (c < 0 || c >= static_cast<long>(n)) continue;
      if (c == static_cast<long>(r)) diag = t.p.col.size();
      t.p.col.push_back(static_cast<int>(c));
      for (int e = 0; e < b2; ++e) {
        const double v = c == static_cast<long>(r) && e / b == e % b ? 0.0 : off(rng());
        t.val.push_back(v);
        rowsum[static_cast<std::size_t>(e / b)] += std::fabs(v);
      }
    }
    for (int q = 0; q < b; ++q) t.val[diag * b2 + static_cast<std::size_t>(q * b + q)] = rowsum[static_cast<std::size_t>(q)] + 0.2 + u(rng());
    t.p.ptr.push_back(static_cast<int>(t.p.col.size()));
  }
  return t;
}

std::vector<double> csr_apply(const HostCsr& h, const std::vector<double>& x) {
  const int b = h.b, b2 = b * b;
  std::vector<double> y(h.p.rows * static_cast<std::size_t>(b), 0.0);
  for (std::size_t r = 0; r < h.p.rows; ++r)
    for (int k = h.p.ptr[r]; k < h.p.ptr[r + 1]; ++k)
      for (int p = 0; p < b; ++p)
        for (int c = 0; c < b; ++c)
          y[r * b + static_cast<std::size_t>(p)] += h.val[static_cast<std::size_t>(k) * b2 + static_cast<std::size_t>(p * b + c)] *
                                                    x[static_cast<std::size_t>(h.p.col[static_cast<std::size_t>(k)]) * b + static_cast<std::size_t>(c)];
  return y;
}

template <class T>
std::unique_ptr<CsrMatrix<T>> make_csr(Backend& be, const HostCsr& h) {
  auto m = std::make_unique<CsrMatrix<T>>(be, h.p, h.b);
  m->val.upload(convert<T>(h.val));
  return m;
}

std::vector<double> random_values(std::size_t n) {
  std::vector<double> v(n);
  auto u = uni(-1, 1);
  for (auto& x : v) x = u(rng());
  return v;
}

template <class T>
std::vector<double> apply_ilu(const Ilu0<T>& p, Backend& be, const std::vector<double>& r, linalg::Guard g = {}) {
  auto fr = make_field(be, convert<T>(r));
  Field<T> z(be, r.size());
  z.fill(std::numeric_limits<T>::quiet_NaN());  // poisoned: every entry must be written
  p.apply(fr, z, g);
  return convert<double>(z.download());
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::fabs(x));
  return m;
}

double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

std::vector<double> minus(const std::vector<double>& a, const std::vector<double>& b) {
  std::vector<double> d(a.size());
  for (std::size_t i = 0; i < a.size(); ++i) d[i] = a[i] - b[i];
  return d;
}

// a 2x2 (or 1x1) block's inverse, on the host
std::vector<double> invert(int b, const double* d) {
  if (b == 1) return {1 / d[0]};
  const double s = 1 / (d[0] * d[3] - d[1] * d[2]);
  return {d[3] * s, -d[1] * s, -d[2] * s, d[0] * s};
}

// Boxes of the stencil tests: a 3D box whose colours are past the omp threshold (9135 half-cells
// a colour), a 2D one of an even row length (both colours reach its last half-cell), one inside a
// larger array
std::vector<Box3> test_boxes() {
  return {Box3::standalone(41, 29, 15, 1), Box3::standalone(130, 127, 1, 1), Box3::inside(21, 13, 7, 1, 27, 17, 11, 3, 2, 2)};
}

// ILU(0) of a random 2x2-block stencil (25 x 21 x 19) and of a random 2x2-block CSR matrix (9 001
// rows), set up on one backend: the two forms the apply tests go over
template <class T>
struct BothForms {
  HostCsr h = random_csr(9001, 2, 6, 40);
  std::unique_ptr<Stencil7Matrix<T>> ms;
  std::unique_ptr<CsrMatrix<T>> mc;
  Ilu0<T> ps, pc;
  explicit BothForms(Backend& be)
      : ms(make_s7<T>(be, random_s7(Box3::standalone(25, 21, 19, 1), 2, 0.1))), mc(make_csr<T>(be, h)) {
    ps.update(*ms);
    pc.update(*mc);
  }
  std::size_t size(const Ilu0<T>* p) const { return p == &ps ? ms->vector_size() : h.p.rows * 2; }
};

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
        // the sweeps that make z final (forward colour 1, backward) also add it to a sum: fresh values
        const std::vector<double> sum0 = rounded<T>(random_values(static_cast<std::size_t>(b) * E));
        // one stage on `on` in precision U from the state, the state's new dinv and z, and the sum
        auto stage = [&](Backend& on, auto u, int which) {
          using U = decltype(u);
          Field<U> coef = make_field(on, convert<U>(s.coef)), fd = make_field(on, convert<U>(dinv)), fr = make_field(on, convert<U>(r)),
                   fz = make_field(on, convert<U>(z)), fs = make_field(on, convert<U>(sum0));
          auto active = on.alloc(E * sizeof(int)), pivot = on.alloc(kIluPivotBytes);
          on.upload(*active, s.active.data(), E * sizeof(int));
          IluStencilArgs a{precision_of<U>(), box, b, &coef.buffer(), active.get(), &fd.buffer(), pivot.get(), &fr.buffer(), &fz.buffer()};
          if (which >= 3) a.sum = &fs.buffer();
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
          return std::tuple(convert<double>(fd.download()), convert<double>(fz.download()), convert<double>(fs.download()));
        };
        const char* names[] = {"factor colour 0", "factor colour 1", "lower colour 0", "lower colour 1", "upper colour 0"};
        for (int which = 0; which < 5; ++which) {
          CAPTURE(names[which]);
          const auto [gd, gz, gs] = stage(be, T{}, which);
          dinv = rounded<T>(dinv), z = rounded<T>(z);
          const auto [wd, wz, ws] = stage(ref, double{}, which);
          std::string why;
          CHECK_MESSAGE(close(gd, wd, 4 * tol<T>(), &why), ("dinv " + why));
          CHECK_MESSAGE(close(gz, wz, 4 * tol<T>(), &why), ("z " + why));
          CHECK_MESSAGE(close(gs, ws, 4 * tol<T>(), &why), ("sum " + why));
          // the reference's sum gained the final z of exactly the stage's colour's active cells
          std::size_t gained = 0, wrong = 0;
          for (std::size_t L = 0; L < E; ++L) {
            long i, j, k;
            const bool cell = phys::pf_ilu_s7_cell(box.view(), static_cast<long>(L), &i, &j, &k) && s.active[L];
            const bool adds = which >= 3 && cell && phys::pf_rb_colour(i, j, k) == (which == 3 ? 1 : 0);
            for (int u = 0; u < b; ++u) {
              const std::size_t at = L * static_cast<std::size_t>(b) + static_cast<std::size_t>(u);
              wrong += ws[at] != (adds ? sum0[at] + wz[at] : sum0[at]);
            }
            gained += adds;
          }
          CHECK(wrong == 0);
          if (which >= 3) CHECK(gained > 0);
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
        // the launches that make z final (the last colour's forward one, every backward one) also
        // add it to a sum of fresh values
        const std::vector<double> sum0 = rounded<T>(random_values(n * static_cast<std::size_t>(b)));
        auto adds = [&](int kind, int c) { return kind == 2 || (kind == 1 && c == plan.colours - 1); };
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
                   fr = make_field(on, convert<U>(r)), fz = make_field(on, convert<U>(z)), fs = make_field(on, convert<U>(sum0));
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
          if (adds(kind, c)) a.sum = &fs.buffer();
          auto k = on.ilu();
          k.reset_pivot(*pivot);
          if (kind == 0) k.csr_factor(a);
          else if (kind == 1) k.csr_lower(a);
          else k.csr_upper(a);
          CHECK_FALSE(k.read_pivot(*pivot).bad());
          return std::tuple(convert<double>(flu.download()), convert<double>(fd.download()), convert<double>(fz.download()),
                            convert<double>(fs.download()));
        };
        std::vector<std::pair<int, int>> stages;  // the apply's order: factor, forward, backward
        for (int c = 0; c < plan.colours; ++c) stages.push_back({0, c});
        for (int c = 0; c < plan.colours; ++c) stages.push_back({1, c});
        for (int c = plan.colours - 2; c >= 0; --c) stages.push_back({2, c});
        for (const auto& st : stages) {
          const int kind = st.first, c = st.second;  // named: CAPTURE's lambdas cannot capture bindings (clang)
          CAPTURE(kind);
          CAPTURE(c);
          const auto [glu, gd, gz, gs] = stage(be, T{}, kind, c);
          lu = rounded<T>(lu), dinv = rounded<T>(dinv), z = rounded<T>(z);
          const auto [wlu, wd, wz, ws] = stage(ref, double{}, kind, c);
          std::string why;
          CHECK_MESSAGE(close(glu, wlu, 4 * tol<T>(), &why), ("lu " + why));
          CHECK_MESSAGE(close(gd, wd, 4 * tol<T>(), &why), ("dinv " + why));
          CHECK_MESSAGE(close(gz, wz, 4 * tol<T>(), &why), ("z " + why));
          CHECK_MESSAGE(close(gs, ws, 4 * tol<T>(), &why), ("sum " + why));
          // the reference's sum gained the final z of exactly the launch's rows
          std::vector<char> in_launch(n, 0);
          for (int t = 0; t < plan.colour_rows(c); ++t) in_launch[static_cast<std::size_t>(plan.order[static_cast<std::size_t>(plan.colour_ptr[static_cast<std::size_t>(c)] + t)])] = 1;
          std::size_t wrong = 0;
          for (std::size_t i = 0; i < n * static_cast<std::size_t>(b); ++i)
            wrong += ws[i] != (adds(kind, c) && in_launch[i / static_cast<std::size_t>(b)] ? sum0[i] + wz[i] : sum0[i]);
          CHECK(wrong == 0);
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
    Field<T> r(be, 216), z(be, 216), sum(be, 216), small(be, 215);
    s.dinv = &d.buffer(), s.r = &r.buffer(), s.z = &z.buffer(), s.sum = &sum.buffer();
    CHECK_THROWS_WITH_AS(be.ilu().s7_lower(s, 0), doctest::Contains("colour 0 takes no sum"), BackendError);
    s.sum = &z.buffer();
    CHECK_THROWS_WITH_AS(be.ilu().s7_upper(s), doctest::Contains("sum must be a buffer of its own"), BackendError);
    s.sum = &r.buffer();
    CHECK_THROWS_WITH_AS(be.ilu().s7_lower(s, 1), doctest::Contains("sum must be a buffer of its own"), BackendError);
    s.sum = &small.buffer();
    CHECK_THROWS_WITH_AS(be.ilu().s7_upper(s), doctest::Contains("ilu stencil sum"), BackendError);
  });
}

// ---- the preconditioner -------------------------------------------------------------------------------

TEST_CASE_TEMPLATE("ilu: ILU(0) of a tridiagonal matrix in natural order is exact; in red-black it is not", T, float, double) {
  for_each_backend([](Backend& be) {
    for (int b : {1, 2}) {
      CAPTURE(b);
      const std::size_t n = 41;
      HostCsr h = tridiagonal(n, b);
      h.val = rounded<T>(h.val);
      auto m = make_csr<T>(be, h);
      const std::vector<double> x = random_values(n * static_cast<std::size_t>(b));
      const std::vector<double> ax = csr_apply(h, x);
      IluOptions natural;
      for (std::size_t r = 0; r < n; ++r) natural.colours.push_back(static_cast<int>(r));  // one row a colour
      Ilu0<T> p(natural);
      p.update(*m);
      CHECK(p.colours() == int(n));
      CHECK(p.launches_per_apply() == int(2 * n - 1));
      const double exact_tol = sizeof(T) == 4 ? 1e-4 : 1e-11;
      CHECK(max_rel_diff(apply_ilu(p, be, ax), x) <= exact_tol);
      // red-black (the greedy colouring): the fill between a red row's two neighbours is dropped
      Ilu0<T> rb;
      rb.update(*m);
      CHECK(rb.colours() == 2);
      CHECK(max_rel_diff(apply_ilu(rb, be, ax), x) > 1e-3);
    }
  });
}

TEST_CASE_TEMPLATE("ilu: ILU(0)'s factors reproduce A on its pattern, DILU's its diagonal", T, float, double) {
  for_each_backend([](Backend& be) {
    for (int b : {1, 2})
      for (IluVariant v : {IluVariant::Ilu0, IluVariant::Dilu}) {
        CAPTURE(b);
        CAPTURE(to_string(v));
        HostCsr h = random_csr(1201, b, 7, 30);
        h.val = rounded<T>(h.val);
        auto m = make_csr<T>(be, h);
        Ilu0<T> p(v);
        p.update(*m);
        const IluCsrPlan& plan = *p.plan();
        const int b2 = b * b;
        const auto dinv = convert<double>(p.dinv().download());
        const auto V = v == IluVariant::Ilu0 ? convert<double>(p.lu()->download()) : h.val;
        // M = D + Lv + Uv + Lv D^-1 Uv at (r, c) of the pattern
        std::vector<std::vector<double>> D(h.p.rows);
        for (std::size_t r = 0; r < h.p.rows; ++r) D[r] = invert(b, &dinv[r * b2]);
        double worst = 0, worst_diag = 0;
        for (std::size_t r = 0; r < h.p.rows; ++r)
          for (int q = h.p.ptr[r]; q < h.p.ptr[r + 1]; ++q) {
            const std::size_t c = static_cast<std::size_t>(h.p.col[static_cast<std::size_t>(q)]);
            std::vector<double> M(static_cast<std::size_t>(b2), 0.0);
            for (int e = 0; e < b2; ++e) M[static_cast<std::size_t>(e)] = c == r ? D[r][static_cast<std::size_t>(e)] : V[static_cast<std::size_t>(q) * b2 + e];
            // sum over k before r with (r, k) and (k, c) entries: Lv_rk D_k^-1 Uv_kc
            for (int s = h.p.ptr[r]; s < plan.dpos[r]; ++s) {
              const int pk = plan.ent[static_cast<std::size_t>(s)];
              const std::size_t k = static_cast<std::size_t>(h.p.col[static_cast<std::size_t>(pk)]);
              if (!(plan.colour[c] > plan.colour[k])) continue;  // (k, c) after k's diagonal
              const long kc = h.p.find(k, c);
              if (kc < 0) continue;
              const double* Dk = &dinv[k * b2];
              for (int i = 0; i < b; ++i)
                for (int j = 0; j < b; ++j)
                  for (int l = 0; l < b; ++l)
                    for (int t = 0; t < b; ++t)
                      M[static_cast<std::size_t>(i * b + j)] += V[static_cast<std::size_t>(pk) * b2 + i * b + l] * Dk[static_cast<std::size_t>(l * b + t)] *
                                                                V[static_cast<std::size_t>(kc) * b2 + t * b + j];
            }
            for (int e = 0; e < b2; ++e) {
              const double d = std::fabs(M[static_cast<std::size_t>(e)] - h.val[static_cast<std::size_t>(q) * b2 + e]);
              worst = std::max(worst, d);
              if (c == r) worst_diag = std::max(worst_diag, d);
            }
          }
        const double scale = max_abs(h.val), t = (sizeof(T) == 4 ? 1e-5 : 1e-12) * scale;
        CHECK(worst_diag <= t);
        if (v == IluVariant::Ilu0) CHECK(worst <= t);
        else CHECK(worst > std::max(10 * t, 1e-3));  // DILU's product differs off the diagonal (its L D^-1 U terms)
      }
  });
}

TEST_CASE_TEMPLATE("ilu: the stencil and CSR forms of one 7-point matrix agree (red-black), ILU(0) = DILU there", T, float, double) {
  Backend& ref = reference();
  for_each_backend([&](Backend& be) {
    for (const Box3& box : {Box3::standalone(33, 29, 1, 1), Box3::standalone(19, 13, 11, 1)})
      for (int b : {1, 2})
        for (double inactive : {0.0, 0.2}) {
          CAPTURE(box.describe());
          CAPTURE(b);
          CAPTURE(inactive);
          HostS7 s = random_s7(box, b, inactive);
          round_s7<T>(s);
          std::vector<long> cells;
          const HostCsr h = s7_to_csr(s, &cells);
          auto ms = make_s7<T>(be, s);
          auto mc = make_csr<T>(be, h);
          // without inactive cells the greedy colouring is the parity; with them, give it
          IluOptions parity;
          if (inactive > 0)
            for (long L : cells) {
              long i, j, k;
              phys::pf_ilu_s7_cell(box.view(), L, &i, &j, &k);
              parity.colours.push_back(phys::pf_rb_colour(i, j, k));
            }
          Ilu0<T> ps;
          ps.update(*ms);
          CHECK(ps.launches_per_apply() == 3);
          CHECK(ps.launches_per_factor() == 2);
          const std::vector<double> r = rounded<T>(s7_vector(s));
          const auto zs = apply_ilu(ps, be, r);
          std::vector<double> rc;
          for (long L : cells)
            for (int u = 0; u < b; ++u) rc.push_back(r[static_cast<std::size_t>(L * b + u)]);
          for (IluVariant v : {IluVariant::Ilu0, IluVariant::Dilu}) {
            IluOptions o = parity;
            o.variant = v;
            Ilu0<T> pc(o);
            pc.update(*mc);
            CHECK(pc.colours() == 2);
            CHECK(pc.launches_per_apply() == 3);
            const auto zc = apply_ilu(pc, be, rc);
            std::vector<double> zsc;
            for (long L : cells)
              for (int u = 0; u < b; ++u) zsc.push_back(zs[static_cast<std::size_t>(L * b + u)]);
            CHECK(max_rel_diff(zc, zsc) <= 8 * tol<T>());
          }
          // as a stationary iteration (x += M^-1 (r - A x)) it converges
          {
            std::vector<double> x = zs, res = minus(r, s7_apply(s, zs));
            for (int it = 1; it < 6; ++it) {
              const auto dx = apply_ilu(ps, be, res);
              for (std::size_t i = 0; i < x.size(); ++i) x[i] += dx[i];
              res = minus(r, s7_apply(s, x));
            }
            CHECK(norm2(res) < 1e-2 * norm2(r));
          }
          // z is 0 off the unknowns, and the stencil form matches the reference
          for (std::size_t L = 0; L < s.E(); ++L)
            if (!s.active[L])
              for (int u = 0; u < b; ++u) CHECK(zs[L * static_cast<std::size_t>(b) + static_cast<std::size_t>(u)] == 0);
          auto mref = make_s7<double>(ref, s);
          Ilu0<double> pref;
          pref.update(*mref);
          CHECK(max_rel_diff(zs, apply_ilu(pref, ref, r)) <= 8 * tol<T>());
        }
  });
}

TEST_CASE_TEMPLATE("ilu: the first bad pivot is named, the row or the cell", T, float, double) {
  for_each_backend([](Backend& be) {
    for (int b : {1, 2}) {
      CAPTURE(b);
      const Box3 box = Box3::standalone(23, 19, 21, 1);  // 9177 cells
      // a zero (b = 1) or singular (b = 2) diagonal block and no couplings in the cell's row, so
      // that its pivot stays A's diagonal in either colour
      auto spoil = [&](HostS7& s, long i, long j, long k) {
        const long L = box.at(i, j, k);
        for (int q = 1; q < 7; ++q)
          for (int e = 0; e < b * b; ++e) s.at(q, L, e / b, e % b) = 0.0;
        for (int e = 0; e < b * b; ++e) s.at(0, L, e / b, e % b) = b == 1 ? 0.0 : (e == 3 ? 4.0 : e == 0 ? 1.0 : 2.0);
      };
      {
        HostS7 s = random_s7(box, b, 0.0);
        spoil(s, 20, 17, 19);  // red: 20 + 17 + 19 is even
        spoil(s, 5, 6, 8);     // black, with the smaller box index
        auto m = make_s7<T>(be, s);
        Ilu0<T> p;
        // the red cell is reported: colour 0 comes first
        CHECK_THROWS_WITH_AS(p.update(*m), doctest::Contains("at cell (20, 17, 19) (colour 0"), NumericalError);
        Field<T> r(be, m->vector_size()), z(be, m->vector_size());
        CHECK_THROWS_WITH_AS(p.apply(r, z, {}), doctest::Contains("before a successful update"), Error);
      }
      {
        HostS7 s = random_s7(box, b, 0.1);
        s.active[static_cast<std::size_t>(box.at(5, 6, 8))] = 1;
        spoil(s, 5, 6, 8);  // only a black cell: colour 1
        auto m = make_s7<T>(be, s);
        Ilu0<T> p;
        CHECK_THROWS_WITH_AS(p.update(*m), doctest::Contains("at cell (5, 6, 8) (colour 1"), NumericalError);
      }
      for (IluVariant v : {IluVariant::Ilu0, IluVariant::Dilu}) {
        HostCsr h = random_csr(9001, b, 6, 50);
        const IluCsrPlan plan = make_ilu_csr_plan(h.p.rows, h.p.ptr, h.p.col);
        // two bad rows of the last colour: the smaller is named
        const int c = plan.colours - 1;
        const int r1 = plan.order[static_cast<std::size_t>(plan.colour_ptr[c + 1] - 1)], r0 = plan.order[static_cast<std::size_t>(plan.colour_ptr[c])];
        for (int r : {r1, r0}) {  // a zero or singular diagonal, nothing else in the row
          const std::size_t d = static_cast<std::size_t>(plan.ent[static_cast<std::size_t>(plan.dpos[static_cast<std::size_t>(r)])]);
          for (int k = h.p.ptr[static_cast<std::size_t>(r)]; k < h.p.ptr[static_cast<std::size_t>(r) + 1]; ++k)
            for (int e = 0; e < b * b; ++e) h.val[static_cast<std::size_t>(k * b * b + e)] = 0.0;
          for (int e = 0; e < b * b; ++e) h.val[d * b * b + e] = b == 1 ? 0.0 : (e == 3 ? 4.0 : e == 0 ? 1.0 : 2.0);
        }
        auto m = make_csr<T>(be, h);
        Ilu0<T> p(v);
        CHECK_THROWS_WITH_AS(p.update(*m), doctest::Contains(("pivot at row " + std::to_string(r0) + " (colour " + std::to_string(c)).c_str()),
                             NumericalError);
      }
    }
  });
}

TEST_CASE_TEMPLATE("ilu: refactoring changed values equals a fresh setup", T, float, double) {
  for_each_backend([](Backend& be) {
    for (int b : {1, 2}) {
      CAPTURE(b);
      {
        HostS7 s = random_s7(Box3::standalone(31, 17, 19, 1), b, 0.1);
        round_s7<T>(s);
        auto m = make_s7<T>(be, s);
        Ilu0<T> p;
        p.update(*m);
        HostS7 s2 = random_s7(s.box, b, 0.0);  // new values on the same cells
        for (std::size_t q = 0; q < 7; ++q)
          for (std::size_t L = 0; L < s.E(); ++L)
            for (int e = 0; e < b * b; ++e) {
              const std::size_t at = (q * s.E() + L) * static_cast<std::size_t>(b * b) + static_cast<std::size_t>(e);
              if (s.coef[at] != 0) s.coef[at] = s2.coef[at];
            }
        round_s7<T>(s);
        m->coef.upload(convert<T>(s.coef));
        p.update(*m);
        Ilu0<T> fresh;
        fresh.update(*m);
        const auto r = rounded<T>(s7_vector(s));
        CHECK(apply_ilu(p, be, r) == apply_ilu(fresh, be, r));
      }
      for (IluVariant v : {IluVariant::Ilu0, IluVariant::Dilu}) {
        HostCsr h = random_csr(9001, b, 8, 40);
        auto m = make_csr<T>(be, h);
        Ilu0<T> p(v);
        p.update(*m);
        const std::vector<int> colours = p.plan()->colour;
        HostCsr h2 = random_csr(9001, b, 8, 40);
        h2.p = h.p;
        h2.val.resize(h.val.size());
        for (auto& x : h2.val) x = uni(-1, 1)(rng());
        for (std::size_t r = 0; r < h.p.rows; ++r)  // dominant again
          for (int q = 0; q < b; ++q) {
            double sum = 0;
            for (int k = h.p.ptr[r]; k < h.p.ptr[r + 1]; ++k)
              for (int c = 0; c < b; ++c) sum += std::fabs(h2.val[static_cast<std::size_t>(k) * b * b + static_cast<std::size_t>(q * b + c)]);
            h2.val[static_cast<std::size_t>(h.p.find(r, r)) * b * b + static_cast<std::size_t>(q * b + q)] = sum + 1;
          }
        m->val.upload(convert<T>(h2.val));
        p.update(*m);
        CHECK(p.plan()->colour == colours);
        Ilu0<T> fresh(v);
        fresh.update(*m);
        const auto r = random_values(h.p.rows * static_cast<std::size_t>(b));
        CHECK(apply_ilu(p, be, r) == apply_ilu(fresh, be, r));
      }
    }
  });
}

TEST_CASE_TEMPLATE("ilu: DILU and ILU(0) differ on a denser pattern, and both converge as stationary iterations", T, float, double) {
  for_each_backend([](Backend& be) {
    for (int b : {1, 2}) {
      CAPTURE(b);
      HostCsr h = random_csr(9001, b, 12, 25, 1.05);  // barely dominant: the preconditioner matters
      h.val = rounded<T>(h.val);
      auto m = make_csr<T>(be, h);
      const std::size_t n = h.p.rows * static_cast<std::size_t>(b);
      const std::vector<double> rhs = random_values(n);
      std::map<IluVariant, std::vector<double>> first;
      std::map<IluVariant, double> reduction;
      for (IluVariant v : {IluVariant::Ilu0, IluVariant::Dilu}) {
        Ilu0<T> p(v);
        p.update(*m);
        CAPTURE(p.describe());
        // x_{k+1} = x_k + M^-1 (b - A x_k), the residual on the host
        std::vector<double> x(n, 0.0), res = rhs;
        const double r0 = max_abs(res);
        for (int it = 0; it < 20; ++it) {
          const auto dx = apply_ilu(p, be, res);
          if (it == 0) first[v] = dx;
          for (std::size_t i = 0; i < n; ++i) x[i] += dx[i];
          res = minus(rhs, csr_apply(h, x));
        }
        reduction[v] = max_abs(res) / r0;
        CHECK(reduction[v] < 1e-4);
      }
      // one application: the two preconditioners are different operators here
      CHECK(max_rel_diff(first[IluVariant::Dilu], first[IluVariant::Ilu0]) > 1e-3);
      MESSAGE("residual reduction in 20 iterations, block ", b, ": ILU(0) ", reduction[IluVariant::Ilu0], ", DILU ",
              reduction[IluVariant::Dilu]);
    }
  });
}

TEST_CASE_TEMPLATE("ilu: a guard that says stop leaves z as it was", T, float, double) {
  for_each_backend([](Backend& be) {
    BothForms<T> f(be);
    auto ctrl = be.alloc(kControlBytes);
    be.control().reset(*ctrl);
    const std::uint64_t stop = PF_CV_CONVERGED;
    be.upload(*ctrl, &stop, sizeof stop, PF_CV_STOP * sizeof(std::uint64_t));
    for (const Ilu0<T>* p : {&f.ps, &f.pc}) {
      const std::size_t n = f.size(p);
      auto r = make_field(be, convert<T>(random_values(n)));
      const auto z0 = convert<T>(random_values(n));
      auto z = make_field(be, z0);
      p->apply(r, z, {ctrl.get()});
      CHECK(z.download() == z0);
    }
  });
}

TEST_CASE_TEMPLATE("ilu: apply_add gives apply's z and adds it to the sum, stencil and CSR", T, float, double) {
  for_each_backend([](Backend& be) {
    BothForms<T> f(be);
    for (const Ilu0<T>* p : {&f.ps, &f.pc}) {
      CAPTURE(p == &f.ps ? "stencil" : "csr");
      const std::size_t n = f.size(p);
      auto r = make_field(be, convert<T>(random_values(n)));
      const std::vector<T> sum0 = convert<T>(random_values(n)), poison(n, std::numeric_limits<T>::quiet_NaN());
      auto z = make_field(be, poison), z2 = make_field(be, poison), sum = make_field(be, sum0);
      p->apply(r, z, {});
      p->apply_add(r, z2, sum, {});
      const std::vector<T> want = z.download(), got = z2.download(), total = sum.download();
      REQUIRE(got == want);
      // the same addition as a separate z + sum: equal bits
      std::size_t changed = 0, wrong = 0;
      for (std::size_t i = 0; i < n; ++i) {
        wrong += total[i] != sum0[i] + want[i];
        changed += total[i] != sum0[i];
      }
      CHECK(wrong == 0);
      CHECK(changed > n / 2);
    }
    const std::size_t n = f.size(&f.pc);
    Field<T> r(be, n), z(be, n), small(be, n - 1);
    CHECK_THROWS_WITH_AS(f.pc.apply_add(r, z, small, {}), doctest::Contains("r, z and sum hold"), BackendError);
    CHECK_THROWS_WITH_AS(f.pc.apply_add(r, z, z, {}), doctest::Contains("sum must be a buffer of its own"), BackendError);
  });
}

TEST_CASE_TEMPLATE("ilu: bad arguments and operators it cannot precondition", T, float, double) {
  // an operator that is neither a stencil nor a CSR matrix
  struct Other final : linalg::LinearOperator<T> {
    explicit Other(Backend& be) : be_(be) {}
    Backend& backend() const override { return be_; }
    std::size_t size() const override { return 4; }
    int block() const override { return 1; }
    void apply(const Field<T>&, Field<T>&, linalg::Guard) const override {}
    void residual(const Field<T>&, const Field<T>&, Field<T>&, linalg::Guard) const override {}
    std::string describe() const override { return "the test's dense operator"; }
    Backend& be_;
  };
  for_each_backend([](Backend& be) {
    Ilu0<T> p(IluVariant::Dilu);
    CHECK_THROWS_WITH_AS(p.update(Other(be)), doctest::Contains("DILU preconditions a 7-point stencil or a block-CSR operator, not the test's dense operator"),
                         ConfigError);
    HostCsr h = random_csr(101, 1, 4, 5);
    auto m = make_csr<T>(be, h);
    Ilu0<T> q;
    q.update(*m);
    Field<T> r(be, 100), z(be, 101), z2(be, 101);
    CHECK_THROWS_WITH_AS(q.apply(r, z, {}), doctest::Contains("the operator's vectors 101"), BackendError);
    CHECK_THROWS_WITH_AS(q.apply(z2, z2, {}), doctest::Contains("z must be a buffer of its own"), BackendError);
    IluOptions o;
    o.colours = {0, 1};
    Ilu0<T> withc(o);
    HostS7 hs = random_s7(Box3::standalone(5, 4, 3, 1), 1, 0.0);
    auto ms = make_s7<T>(be, hs);
    CHECK_THROWS_WITH_AS(withc.update(*ms), doctest::Contains("explicit colours are for CSR"), ConfigError);
  });
}

}  // TEST_SUITE
