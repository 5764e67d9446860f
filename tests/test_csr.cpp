// The csr family: spmv, residual, chebyshev, diag_inv, dinv_bound and gather on every backend against a double
// reference computed here, blocks of 1 and 2, every lanes strategy on the GPU backends (the
// local-memory path on PoCL); the guard; bad arguments; CsrOperator over the pattern of a 7-point
// stencil with its values gathered through stencil7_to_csr_map.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "core/base/error.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/csr.hpp"
#include "core/linalg/csr.hpp"
#include "core/linalg/stencil7.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;
using linalg::CsrPattern;

namespace {

// A random block-CSR matrix on the host, in double.
struct HostMatrix {
  CsrPattern p;
  int block = 1;
  std::vector<double> val;
  std::size_t b2() const { return static_cast<std::size_t>(block * block); }
};

// Rows of `lo..hi` entries (a few empty ones when lo is 0), then `long_rows` rows spread over the
// matrix made `long_len` long: the shapes the lanes rule chooses between. Square matrices have
// their diagonal in every non-empty row, made dominant (diag_add) so that it inverts.
HostMatrix random_matrix(std::size_t rows, std::size_t cols, int block, int lo, int hi, std::size_t long_rows = 0,
                         int long_len = 0, double diag_add = 4) {
  HostMatrix m;
  m.block = block;
  m.p.rows = rows;
  m.p.cols = cols;
  m.p.ptr.assign(rows + 1, 0);
  std::uniform_int_distribution<int> len(lo, hi);
  std::uniform_int_distribution<std::size_t> any_col(0, cols - 1);
  std::vector<int> row;
  for (std::size_t r = 0; r < rows; ++r) {
    int n = len(rng());
    if (long_rows > 0 && r % (rows / long_rows + 1) == rows / (2 * long_rows) % (rows / long_rows + 1)) n = long_len;
    n = std::min<int>(n, static_cast<int>(cols));
    row.clear();
    if (n > 0 && rows == cols) row.push_back(static_cast<int>(r));
    // distinct random columns: a dense row takes every column
    if (static_cast<std::size_t>(n) * 2 >= cols) {
      for (std::size_t c = 0; c < cols && static_cast<int>(row.size()) < n; ++c)
        if (static_cast<int>(c) != (rows == cols ? static_cast<int>(r) : -1)) row.push_back(static_cast<int>(c));
    } else {
      while (static_cast<int>(row.size()) < n) {
        const int c = static_cast<int>(any_col(rng()));
        if (std::find(row.begin(), row.end(), c) == row.end()) row.push_back(c);
      }
    }
    std::sort(row.begin(), row.end());
    m.p.col.insert(m.p.col.end(), row.begin(), row.end());
    m.p.ptr[r + 1] = static_cast<int>(m.p.col.size());
  }
  m.val = random_vector<double>(m.p.nnz() * m.b2(), -1, 1);
  if (rows == cols)
    for (std::size_t r = 0; r < rows; ++r) {
      const long k = m.p.find(r, r);
      if (k >= 0)
        for (int d = 0; d < block; ++d) m.val[static_cast<std::size_t>(k) * m.b2() + d * block + d] += diag_add;
    }
  m.p.check("random_matrix");
  return m;
}

// The matrix on a backend in precision T.
template <class T>
struct DeviceMatrix {
  std::unique_ptr<Buffer> ptr, col;
  Field<T> val;
  CsrRef ref;
  DeviceMatrix(Backend& be, const HostMatrix& m) : val(make_field(be, convert<T>(m.val.empty() ? std::vector<double>{0} : m.val))) {
    ptr = be.alloc(m.p.ptr.size() * sizeof(int));
    be.upload(*ptr, m.p.ptr.data(), m.p.ptr.size() * sizeof(int));
    col = be.alloc(std::max<std::size_t>(m.p.nnz(), 1) * sizeof(int));
    if (m.p.nnz()) be.upload(*col, m.p.col.data(), m.p.nnz() * sizeof(int));
    ref = CsrRef{m.p.rows, m.p.cols, m.p.nnz(), m.block, ptr.get(), col.get(), &val.buffer()};
  }
};

// y = alpha A x + beta z in double, with each unknown's sum of |terms| (the scale of its rounding)
void reference_product(const HostMatrix& m, const std::vector<double>& x, double alpha, double beta, const std::vector<double>* z,
                       std::vector<double>& y, std::vector<double>& scale) {
  const int b = m.block;
  y.assign(m.p.rows * b, 0);
  scale.assign(m.p.rows * b, 0);
  for (std::size_t r = 0; r < m.p.rows; ++r)
    for (int u = 0; u < b; ++u) {
      double s = 0, a = 0;
      for (int k = m.p.ptr[r]; k < m.p.ptr[r + 1]; ++k)
        for (int c = 0; c < b; ++c) {
          const double t = m.val[k * m.b2() + u * b + c] * x[static_cast<std::size_t>(m.p.col[k]) * b + c];
          s += t;
          a += std::fabs(t);
        }
      const std::size_t i = r * b + u;
      y[i] = alpha * s + (z ? beta * (*z)[i] : 0.0);
      scale[i] = std::fabs(alpha) * a + (z ? std::fabs(beta * (*z)[i]) : 0.0);
    }
}

// max over unknowns of |got - want| / (scale + tiny); NaN gives infinity
double scaled_diff(const std::vector<double>& got, const std::vector<double>& want, const std::vector<double>& scale) {
  double worst = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(got[i] - want[i]) / (scale[i] + 1e-300);
    if (!(d <= worst)) worst = std::isnan(d) ? INFINITY : d;
  }
  return worst;
}

// The lanes a test runs: the rule and, on the GPU backends (OpenCL on a CPU too: its local-memory
// reduction), every forced strategy. The host backends have one loop whatever is asked.
std::vector<int> lanes_to_test(Backend& be) {
  if (be.is_host()) return {0};
  return {0, 1, 2, 4, 8, 16, 32};
}

struct Shape {
  const char* what;
  std::size_t rows, cols;
  int lo, hi;
  std::size_t long_rows = 0;
  int long_len = 0;
};

// not powers of two, larger than a block, past the omp threshold (rows + entries), a dense coarse
// level and a few long rows among short ones
const Shape kShapes[] = {
    {"one row", 1, 1, 1, 1},
    {"short rows", 33, 33, 0, 9},
    {"7-point-like", 1000, 1000, 5, 8},
    {"short rows past the omp threshold", 70001, 70001, 0, 14},
    {"dense coarse level", 517, 517, 517, 517},
    {"a few long rows", 9001, 9001, 3, 9, 5, 600},
    {"rectangular", 3001, 1777, 0, 30},
};

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("csr spmv: y = alpha A x + beta y (or beta z) against the double reference", T, float, double) {
  for (int block : {1, 2})
    for (const Shape& s : kShapes) {
      CAPTURE(block);
      CAPTURE(s.what);
      const HostMatrix m = random_matrix(s.rows, s.cols, block, s.lo, s.hi, s.long_rows, s.long_len);
      const auto x = random_vector<T>(s.cols * block, -1, 1);
      const auto y0 = random_vector<T>(s.rows * block + 1, -1, 1);  // one past the end: must stay as it is
      const auto z0 = random_vector<T>(s.rows * block + 1, -1, 1);  // the addend apart from y
      // (alpha, beta, the addend a vector of its own)
      for (const auto& [a_, b_, own_z] : {std::tuple{1.0, 0.0, false}, std::tuple{-0.75, 0.0, false},
                                          std::tuple{1.25, -0.5, false}, std::tuple{0.5, 1.0, true}}) {
        const double alpha = a_, beta = b_;  // named: CAPTURE's lambdas cannot capture bindings (clang)
        const bool separate = own_z;
        CAPTURE(alpha);
        CAPTURE(beta);
        CAPTURE(separate);
        const auto& add0 = separate ? z0 : y0;
        std::vector<double> want, scale, z = convert<double>(add0);
        reference_product(m, convert<double>(x), alpha, beta, beta != 0 ? &z : nullptr, want, scale);
        for_each_backend([&](Backend& be) {
          DeviceMatrix<T> dm(be, m);
          auto fx = make_field(be, x);
          auto fz = make_field(be, z0);
          for (int lanes : lanes_to_test(be)) {
            CAPTURE(lanes);
            auto yin = y0;
            if (beta == 0 || separate)  // never read
              std::fill(yin.begin(), yin.end() - 1, std::numeric_limits<T>::quiet_NaN());
            auto fy = make_field(be, yin);
            CsrSpmvArgs a;
            a.prec = precision_of<T>();
            a.a = dm.ref;
            a.alpha = alpha;
            a.beta = beta;
            a.x = &fx.buffer();
            a.y = &fy.buffer();
            if (separate) a.z = &fz.buffer();
            a.lanes = lanes;
            be.csr().spmv(a);
            auto got = convert<double>(fy.download());
            CHECK(got.back() == double(y0.back()));
            got.pop_back();
            CHECK(scaled_diff(got, want, scale) <= tol<T>());
            if (separate) CHECK(fz.download() == z0);  // the addend is only read
            // rows without entries: exactly beta times the addend (0 with beta 0)
            for (std::size_t r = 0; r < m.p.rows; ++r)
              if (m.p.ptr[r] == m.p.ptr[r + 1])
                for (int u = 0; u < block; ++u)
                  CHECK(got[r * block + u] == double(T(beta) * T(beta != 0 ? add0[r * block + u] : 0)));
          }
        });
      }
    }
}

TEST_CASE_TEMPLATE("csr residual: r = b - A x against the double reference", T, float, double) {
  for (int block : {1, 2})
    for (const Shape& s : kShapes) {
      if (s.rows != s.cols) continue;
      CAPTURE(block);
      CAPTURE(s.what);
      const HostMatrix m = random_matrix(s.rows, s.cols, block, s.lo, s.hi, s.long_rows, s.long_len);
      const auto x = random_vector<T>(s.cols * block, -1, 1);
      const auto b = random_vector<T>(s.rows * block, -1, 1);
      std::vector<double> want, scale, bd = convert<double>(b);
      reference_product(m, convert<double>(x), -1, 1, &bd, want, scale);
      for_each_backend([&](Backend& be) {
        DeviceMatrix<T> dm(be, m);
        auto fx = make_field(be, x), fb = make_field(be, b);
        for (int lanes : lanes_to_test(be)) {
          CAPTURE(lanes);
          Field<T> fr(be, s.rows * block + 1);
          fr.fill(std::numeric_limits<T>::quiet_NaN());
          CsrResidualArgs a;
          a.prec = precision_of<T>();
          a.a = dm.ref;
          a.b = &fb.buffer();
          a.x = &fx.buffer();
          a.r = &fr.buffer();
          a.lanes = lanes;
          be.csr().residual(a);
          auto got = convert<double>(fr.download());
          CHECK(std::isnan(got.back()));  // one past the end: untouched
          got.pop_back();
          CHECK(scaled_diff(got, want, scale) <= tol<T>());
        }
      });
    }
}

TEST_CASE_TEMPLATE("csr diag_inv: the diagonal blocks' inverses and the first singular row", T, float, double) {
  for (int block : {1, 2})
    for (const Shape& s : kShapes) {
      if (s.rows != s.cols) continue;
      CAPTURE(block);
      CAPTURE(s.what);
      HostMatrix m = random_matrix(s.rows, s.cols, block, s.lo, s.hi, s.long_rows, s.long_len);
      const std::size_t b2 = m.b2();
      // a singular diagonal in two rows past the first third (the first of them is reported); the
      // empty rows are not singular
      std::vector<std::size_t> made;
      for (std::size_t r = s.rows / 3; r < s.rows && made.size() < 2; r += 1 + s.rows / 7) {
        const long k = m.p.find(r, r);
        if (k < 0) continue;
        double* d = &m.val[static_cast<std::size_t>(k) * b2];
        if (block == 1) d[0] = 0;
        else d[0] = 2, d[1] = 3, d[2] = 4, d[3] = 6;  // determinant 0, exactly in float too
        made.push_back(r);
      }
      for (const bool singular : {false, true}) {
        CAPTURE(singular);
        HostMatrix use = m;
        if (!singular)
          for (std::size_t r : made) {  // restore an invertible diagonal
            double* d = &use.val[static_cast<std::size_t>(use.p.find(r, r)) * b2];
            for (std::size_t e = 0; e < b2; ++e) d[e] = e % (block + 1) == 0 ? 5.0 : 0.5;
          }
        // the reference: each row's inverse computed in double from the T values
        std::vector<double> want(s.rows * b2, 0.0);
        long first = -1;
        for (std::size_t r = 0; r < s.rows; ++r) {
          if (use.p.ptr[r] == use.p.ptr[r + 1]) continue;
          const long k = use.p.find(r, r);
          double v[4];
          for (std::size_t e = 0; e < b2; ++e) v[e] = double(T(use.val[static_cast<std::size_t>(k) * b2 + e]));
          const double det = block == 1 ? v[0] : v[0] * v[3] - v[1] * v[2];
          if (det == 0) {
            if (first < 0) first = static_cast<long>(r);
            continue;
          }
          if (block == 1) want[r] = 1 / v[0];
          else want[r * 4] = v[3] / det, want[r * 4 + 1] = -v[1] / det, want[r * 4 + 2] = -v[2] / det, want[r * 4 + 3] = v[0] / det;
        }
        CHECK((first >= 0) == (singular && !made.empty()));
        for_each_backend([&](Backend& be) {
          DeviceMatrix<T> dm(be, use);
          Field<T> dinv(be, s.rows * b2);
          dinv.fill(std::numeric_limits<T>::quiet_NaN());
          auto bad = be.alloc(sizeof(int));
          const int junk = 12345;  // diag_inv clears the word itself
          be.upload(*bad, &junk, sizeof junk);
          CsrDiagInvArgs a;
          a.prec = precision_of<T>();
          a.a = dm.ref;
          a.dinv = &dinv.buffer();
          a.bad = bad.get();
          be.csr().diag_inv(a);
          CHECK(be.csr().singular_row(*bad) == first);
          if (first >= 0) {
            CHECK_THROWS_WITH_AS(be.csr().check_diagonal(*bad, "test"), doctest::Contains(("row " + std::to_string(first) + " ").c_str()),
                                 NumericalError);
          } else {
            be.csr().check_diagonal(*bad, "test");
          }
          const auto got = convert<double>(dinv.download());
          double worst = 0;
          for (std::size_t r = 0; r < s.rows; ++r) {
            const bool singular_row = use.p.ptr[r] != use.p.ptr[r + 1] && std::find(made.begin(), made.end(), r) != made.end() && singular;
            if (singular_row) continue;  // what the division gave
            for (std::size_t e = 0; e < b2; ++e) {
              const double w = want[r * b2 + e], g = got[r * b2 + e];
              const double d = std::fabs(g - w) / (std::fabs(w) + 1e-3);
              worst = std::isnan(d) ? INFINITY : std::max(worst, d);
            }
          }
          CHECK(worst <= 10 * tol<T>());
        });
      }
    }
}

TEST_CASE_TEMPLATE("csr dinv_bound: the row sums of |D^-1 A| against the double reference", T, float, double) {
  for (int block : {1, 2})
    for (const Shape& s : kShapes) {
      if (s.rows != s.cols) continue;
      CAPTURE(block);
      CAPTURE(s.what);
      const HostMatrix m = random_matrix(s.rows, s.cols, block, s.lo, s.hi, s.long_rows, s.long_len);
      const std::size_t b2 = m.b2();
      const auto dinv = random_vector<T>(s.rows * b2, -1, 1);  // any dinv: the kernel takes it as given
      std::vector<double> want(s.rows * block, 0.0);
      for (std::size_t r = 0; r < s.rows; ++r)
        for (int u = 0; u < block; ++u) {
          double sum = 0;
          for (int k = m.p.ptr[r]; k < m.p.ptr[r + 1]; ++k)
            for (int c = 0; c < block; ++c) {
              double e = 0;  // (D^-1 A_k)_uc
              for (int j = 0; j < block; ++j)
                e += double(dinv[r * b2 + u * block + j]) * double(T(m.val[k * b2 + j * block + c]));
              sum += std::fabs(e);
            }
          want[r * block + u] = sum;
        }
      for_each_backend([&](Backend& be) {
        DeviceMatrix<T> dm(be, m);
        auto fd = make_field(be, dinv);
        Field<T> out(be, s.rows * block);
        out.fill(std::numeric_limits<T>::quiet_NaN());
        CsrDinvBoundArgs a;
        a.prec = precision_of<T>();
        a.a = dm.ref;
        a.dinv = &fd.buffer();
        a.out = &out.buffer();
        be.csr().dinv_bound(a);
        const auto got = convert<double>(out.download());
        double worst = 0;
        for (std::size_t i = 0; i < want.size(); ++i) {
          const double d = std::fabs(got[i] - want[i]) / (want[i] + 1e-300);
          worst = std::isnan(d) ? INFINITY : std::max(worst, want[i] == 0 ? std::fabs(got[i]) : d);
        }
        CHECK(worst <= 10 * tol<T>());
      });
    }
}

TEST_CASE_TEMPLATE("csr gather: values through a map of blocks, exactly", T, float, double) {
  for (int block : {1, 2})
    for (std::size_t nnz : {std::size_t(1), std::size_t(31), std::size_t(4097), std::size_t(65536 + 17)}) {
      CAPTURE(block);
      CAPTURE(nnz);
      const std::size_t b2 = static_cast<std::size_t>(block * block), src_blocks = nnz / 2 + 3;
      const auto src = random_vector<T>(src_blocks * b2, -1, 1);
      std::vector<long> map(nnz);
      std::uniform_int_distribution<long> pick(0, static_cast<long>(src_blocks) - 1);
      for (auto& k : map) k = pick(rng());
      for_each_backend([&](Backend& be) {
        auto fs = make_field(be, src);
        Field<T> val(be, nnz * b2 + 1);
        val.fill(std::numeric_limits<T>::quiet_NaN());
        auto fm = be.alloc(nnz * sizeof(long));
        be.upload(*fm, map.data(), nnz * sizeof(long));
        CsrGatherArgs a;
        a.prec = precision_of<T>();
        a.nnz = nnz;
        a.block = block;
        a.map = fm.get();
        a.src = &fs.buffer();
        a.src_blocks = src_blocks;
        a.val = &val.buffer();
        be.csr().gather(a);
        const auto got = val.download();
        bool same = true;
        for (std::size_t k = 0; k < nnz; ++k)
          for (std::size_t e = 0; e < b2; ++e) same = same && got[k * b2 + e] == src[static_cast<std::size_t>(map[k]) * b2 + e];
        CHECK(same);
        CHECK(std::isnan(got.back()));
      });
    }
}

TEST_CASE_TEMPLATE("csr chebyshev: one smoother step in one pass against the double reference", T, float, double) {
  for (const Shape& s : kShapes) {
    if (s.rows != s.cols) continue;
    CAPTURE(s.what);
    const HostMatrix m = random_matrix(s.rows, s.cols, 1, s.lo, s.hi, s.long_rows, s.long_len);
    const std::size_t n = s.rows;
    const auto x = random_vector<T>(n, -1, 1), b = random_vector<T>(n, -1, 1), d0 = random_vector<T>(n, -1, 1);
    const auto dinv = random_vector<T>(n, 0.1, 1);
    const double alpha = 0.37, beta = 1.29;
    // r = b - A x, d = alpha d0 + beta dinv r, x_out = x + d, each with the scale of its rounding
    std::vector<double> r, rs, bd = convert<double>(b);
    reference_product(m, convert<double>(x), -1, 1, &bd, r, rs);
    std::vector<double> want_d(n), want_x(n), scale_d(n), scale_x(n);
    for (std::size_t i = 0; i < n; ++i) {
      want_d[i] = alpha * double(d0[i]) + beta * double(dinv[i]) * r[i];
      scale_d[i] = std::fabs(alpha * double(d0[i])) + std::fabs(beta * double(dinv[i])) * rs[i];
      want_x[i] = double(x[i]) + want_d[i];
      scale_x[i] = std::fabs(double(x[i])) + scale_d[i];
    }
    for_each_backend([&](Backend& be) {
      DeviceMatrix<T> dm(be, m);
      auto fx = make_field(be, x), fb = make_field(be, b), fdinv = make_field(be, dinv);
      for (int lanes : lanes_to_test(be)) {
        CAPTURE(lanes);
        auto d_in = d0;
        d_in.push_back(std::numeric_limits<T>::quiet_NaN());
        auto fd = make_field(be, d_in);
        Field<T> fo(be, n + 1);
        fo.fill(std::numeric_limits<T>::quiet_NaN());
        CsrChebyshevArgs a;
        a.prec = precision_of<T>();
        a.a = dm.ref;
        a.dinv = &fdinv.buffer();
        a.b = &fb.buffer();
        a.x = &fx.buffer();
        a.d = &fd.buffer();
        a.x_out = &fo.buffer();
        a.alpha = alpha;
        a.beta = beta;
        a.lanes = lanes;
        be.csr().chebyshev(a);
        auto got_d = convert<double>(fd.download()), got_x = convert<double>(fo.download());
        CHECK(std::isnan(got_d.back()));  // one past the end: untouched
        CHECK(std::isnan(got_x.back()));
        got_d.pop_back();
        got_x.pop_back();
        CHECK(scaled_diff(got_d, want_d, scale_d) <= tol<T>());
        CHECK(scaled_diff(got_x, want_x, scale_x) <= tol<T>());
      }
    });
  }
}

TEST_CASE_TEMPLATE("csr chebyshev from zero: the first two steps, or the first and its residual, in one pass", T, float,
                   double) {
  for (const Shape& s : kShapes) {
    if (s.rows != s.cols) continue;
    CAPTURE(s.what);
    const HostMatrix m = random_matrix(s.rows, s.cols, 1, s.lo, s.hi, s.long_rows, s.long_len);
    const std::size_t n = s.rows;
    const auto b = random_vector<T>(n, -1, 1), dinv = random_vector<T>(n, 0.1, 1);
    const double start = 0.83, alpha = 0.37, beta = 1.29;
    // x0 = start dinv b (rounded as the kernel rounds it); r = b - A x0
    std::vector<double> x0(n), r, rs, bd = convert<double>(b);
    for (std::size_t i = 0; i < n; ++i) x0[i] = double(T(start) * dinv[i] * b[i]);
    reference_product(m, x0, -1, 1, &bd, r, rs);
    for (bool residual : {false, true}) {
      CAPTURE(residual);
      std::vector<double> want_d(n), want_x(n), scale_d(n), scale_x(n);
      for (std::size_t i = 0; i < n; ++i) {
        want_d[i] = residual ? x0[i] : alpha * x0[i] + beta * double(dinv[i]) * r[i];
        scale_d[i] = residual ? std::fabs(x0[i]) : std::fabs(alpha * x0[i]) + std::fabs(beta * double(dinv[i])) * rs[i];
        want_x[i] = residual ? x0[i] : x0[i] + want_d[i];
        scale_x[i] = std::fabs(x0[i]) + scale_d[i];
      }
      for_each_backend([&](Backend& be) {
        DeviceMatrix<T> dm(be, m);
        auto fb = make_field(be, b), fdinv = make_field(be, dinv);
        for (int lanes : lanes_to_test(be)) {
          CAPTURE(lanes);
          Field<T> fd(be, n + 1), fo(be, n + 1), fr(be, n + 1);  // poisoned; d is not read from zero
          for (Field<T>* f : {&fd, &fo, &fr}) f->fill(std::numeric_limits<T>::quiet_NaN());
          CsrChebyshevArgs a;
          a.prec = precision_of<T>();
          a.a = dm.ref;
          a.dinv = &fdinv.buffer();
          a.b = &fb.buffer();
          a.d = &fd.buffer();
          a.x_out = &fo.buffer();
          a.r = residual ? &fr.buffer() : nullptr;
          a.alpha = alpha;
          a.beta = beta;
          a.start = start;
          a.lanes = lanes;
          be.csr().chebyshev(a);
          auto got_d = convert<double>(fd.download()), got_x = convert<double>(fo.download());
          auto got_r = convert<double>(fr.download());
          CHECK(std::isnan(got_d.back()));  // one past the end: untouched
          CHECK(std::isnan(got_x.back()));
          CHECK(std::isnan(got_r.back()));
          got_d.pop_back();
          got_x.pop_back();
          got_r.pop_back();
          CHECK(scaled_diff(got_d, want_d, scale_d) <= tol<T>());
          CHECK(scaled_diff(got_x, want_x, scale_x) <= tol<T>());
          if (residual) CHECK(scaled_diff(got_r, r, rs) <= tol<T>());
          else CHECK(std::all_of(got_r.begin(), got_r.end(), [](double v) { return std::isnan(v); }));
        }
      });
    }
  }
}

TEST_CASE_TEMPLATE("csr: a guard that says stop leaves every output as it was", T, float, double) {
  for_each_backend([](Backend& be) {
    const std::size_t n = 20011;
    for (int block : {1, 2}) {
      CAPTURE(block);
      const HostMatrix m = random_matrix(n, n, block, 1, 9);
      DeviceMatrix<T> dm(be, m);
      const std::size_t b2 = m.b2();
      auto fx = make_field(be, random_vector<T>(n * block, -1, 1));
      auto fb = make_field(be, random_vector<T>(n * block, -1, 1));
      const auto y0 = random_vector<T>(n * b2, -1, 1);
      auto fy = make_field(be, y0), fr = make_field(be, y0), fd = make_field(be, y0), fo = make_field(be, y0);
      auto fmap = be.alloc(m.p.nnz() * sizeof(long));
      std::vector<long> map(m.p.nnz(), 0);
      be.upload(*fmap, map.data(), map.size() * sizeof(long));
      auto fv = make_field(be, std::vector<T>(m.p.nnz() * b2, T(7)));
      auto bad = be.alloc(sizeof(int));
      auto ctrl = be.alloc(kControlBytes);
      be.control().reset(*ctrl);
      const std::uint64_t stop = PF_CV_CONVERGED;
      be.upload(*ctrl, &stop, sizeof stop, PF_CV_STOP * sizeof(std::uint64_t));
      const Precision p = precision_of<T>();
      for (int lanes : lanes_to_test(be)) {
        be.csr().spmv({p, dm.ref, 1.0, 0.0, &fx.buffer(), &fy.buffer(), ctrl.get(), lanes});
        be.csr().residual({p, dm.ref, &fb.buffer(), &fx.buffer(), &fr.buffer(), ctrl.get(), lanes});
      }
      if (block == 1)  // a step reading fb as its inverse diagonal, writing fd and fo
        for (int lanes : lanes_to_test(be))
          be.csr().chebyshev({p, dm.ref, &fb.buffer(), &fb.buffer(), &fx.buffer(), &fd.buffer(), &fo.buffer(), 0.5, 1.0,
                              ctrl.get(), lanes});
      be.csr().diag_inv({p, dm.ref, &fd.buffer(), bad.get(), ctrl.get()});
      be.csr().dinv_bound({p, dm.ref, &fy.buffer(), &fo.buffer(), ctrl.get()});
      be.csr().gather({p, m.p.nnz(), block, fmap.get(), &fx.buffer(), n * block / b2, &fv.buffer(), ctrl.get()});
      CHECK(fy.download() == y0);
      CHECK(fr.download() == y0);
      CHECK(fd.download() == y0);
      CHECK(fo.download() == y0);
      CHECK(fv.download() == std::vector<T>(m.p.nnz() * b2, T(7)));
      CHECK(be.csr().singular_row(*bad) == -1);
      // running: the same calls do their work
      be.control().reset(*ctrl);
      be.csr().spmv({p, dm.ref, 1.0, 0.0, &fx.buffer(), &fy.buffer(), ctrl.get()});
      CHECK(fy.download() != y0);
    }
  });
}

TEST_CASE("arguments: csr checks blocks, sizes, aliases, lanes and squareness the same way everywhere") {
  for_each_backend([](Backend& be) {
    const HostMatrix m = random_matrix(100, 80, 1, 1, 5);
    DeviceMatrix<double> dm(be, m);
    Field<double> x(be, 80), y(be, 100), small(be, 79), dinv(be, 100);
    auto bad = be.alloc(sizeof(int));
    CsrSpmvArgs a{Precision::Double, dm.ref, 1.0, 0.0, &x.buffer(), &y.buffer()};
    auto csr = be.csr();
    csr.spmv(a);
    a.x = &small.buffer();
    CHECK_THROWS_WITH_AS(csr.spmv(a), doctest::Contains("csr spmv x"), BackendError);
    a.x = &y.buffer();
    CHECK_THROWS_AS(csr.spmv(a), BackendError);  // y is 100 values, x needs 80: fine in size, but x == y
    a.x = &x.buffer();
    a.lanes = 3;
    CHECK_THROWS_WITH_AS(csr.spmv(a), doctest::Contains("lanes"), ConfigError);
    a.lanes = 64;
    CHECK_THROWS_AS(csr.spmv(a), ConfigError);
    a.lanes = 0;
    a.a.block = 3;
    CHECK_THROWS_WITH_AS(csr.spmv(a), doctest::Contains("blocks of 1 or 2"), BackendError);
    a.a.block = 2;  // the values are too few for 2 x 2 blocks
    CHECK_THROWS_WITH_AS(csr.spmv(a), doctest::Contains("values"), BackendError);
    a.a.block = 1;
    a.beta = 1;  // an addend z of its own: the rows' size; cuSPARSE's product adds y alone
    a.z = &small.buffer();
    CHECK_THROWS_WITH_AS(csr.spmv(a), doctest::Contains("csr spmv z"), BackendError);
    a.z = &dinv.buffer();
    csr.spmv(a);
    CHECK_THROWS_AS(csr.vendor_spmv(a), BackendError);
    a.z = nullptr;
    a.beta = 0;
    CHECK_THROWS_WITH_AS(csr.diag_inv({Precision::Double, dm.ref, &dinv.buffer(), bad.get()}), doctest::Contains("not square"),
                         BackendError);
    CHECK_THROWS_AS(csr.residual({Precision::Double, dm.ref, &y.buffer(), &x.buffer(), &y.buffer()}), BackendError);
    {  // chebyshev: square, scalar, x_out and the direction apart from the inputs
      const HostMatrix sq = random_matrix(90, 90, 1, 1, 5);
      DeviceMatrix<double> ds(be, sq);
      Field<double> sb(be, 90), sx(be, 90), sd(be, 90), so(be, 90), sdinv(be, 90), s89(be, 89);
      CsrChebyshevArgs c{Precision::Double, ds.ref, &sdinv.buffer(), &sb.buffer(), &sx.buffer(), &sd.buffer(), &so.buffer()};
      csr.chebyshev(c);
      CsrChebyshevArgs bad_c = c;
      bad_c.x_out = &sx.buffer();
      CHECK_THROWS_WITH_AS(csr.chebyshev(bad_c), doctest::Contains("x_out must not be one of the inputs"), BackendError);
      bad_c = c;
      bad_c.d = &so.buffer();
      CHECK_THROWS_WITH_AS(csr.chebyshev(bad_c), doctest::Contains("must differ"), BackendError);
      bad_c = c;
      bad_c.d = &sb.buffer();
      CHECK_THROWS_WITH_AS(csr.chebyshev(bad_c), doctest::Contains("direction must not be one of the inputs"), BackendError);
      bad_c = c;
      bad_c.x = &s89.buffer();
      CHECK_THROWS_WITH_AS(csr.chebyshev(bad_c), doctest::Contains("csr chebyshev"), BackendError);
      bad_c = c;
      bad_c.lanes = 5;
      CHECK_THROWS_WITH_AS(csr.chebyshev(bad_c), doctest::Contains("lanes"), ConfigError);
      // from zero: x is not read (none needed); a residual only from zero, of its own buffer
      bad_c = c;
      bad_c.start = 0.5;
      bad_c.x = nullptr;
      bad_c.r = &sx.buffer();
      csr.chebyshev(bad_c);
      bad_c.r = &sd.buffer();
      CHECK_THROWS_WITH_AS(csr.chebyshev(bad_c), doctest::Contains("must differ"), BackendError);
      bad_c.r = &s89.buffer();
      CHECK_THROWS_WITH_AS(csr.chebyshev(bad_c), doctest::Contains("csr chebyshev"), BackendError);
      bad_c.r = &sx.buffer();
      bad_c.x = &sx.buffer();
      bad_c.start = 0;
      CHECK_THROWS_WITH_AS(csr.chebyshev(bad_c), doctest::Contains("from zero"), BackendError);
      CsrChebyshevArgs rect = c;
      rect.a = dm.ref;  // 100 x 80
      CHECK_THROWS_WITH_AS(csr.chebyshev(rect), doctest::Contains("not square"), BackendError);
      const HostMatrix sq2 = random_matrix(45, 45, 2, 1, 5);
      DeviceMatrix<double> d2(be, sq2);
      CsrChebyshevArgs blocks = c;
      blocks.a = d2.ref;
      CHECK_THROWS_WITH_AS(csr.chebyshev(blocks), doctest::Contains("scalar"), BackendError);
    }
    auto tiny = be.alloc(8);
    a.guard = tiny.get();
    CHECK_THROWS_WITH_AS(csr.spmv(a), doctest::Contains("guard"), BackendError);
  });
}

TEST_CASE_TEMPLATE("CsrOperator over a 7-point stencil's pattern, its values gathered from the stencil", T, float, double) {
  // a box inside a larger array, with inactive cells: rows of the halo and of inactive cells are empty
  const Box3 box = Box3::inside(23, 9, 7, 1, 27, 12, 10, 1, 1, 1);
  for (int block : {1, 2}) {
    CAPTURE(block);
    const std::size_t ext = box.extent(), b2 = static_cast<std::size_t>(block * block);
    std::vector<int> active(ext, 0);
    std::bernoulli_distribution keep(0.85);
    for (long k = 0; k < box.nz; ++k)
      for (long j = 0; j < box.ny; ++j)
        for (long i = 0; i < box.nx; ++i) active[static_cast<std::size_t>(box.at(i, j, k))] = keep(rng()) ? 1 : 0;
    const CsrPattern p = linalg::csr_pattern_of_stencil7(box, active);
    const auto map = linalg::stencil7_to_csr_map(box, active);
    REQUIRE(map.size() == p.nnz());
    const auto coef = random_vector<T>(linalg::kStencilPlanes * ext * b2, -1, 1);
    const auto x = random_vector<T>(ext * block, -1, 1);
    // the stencil's product by its definition (core/linalg/stencil7.hpp), neighbours active only
    const long off[7] = {0, -1, 1, -box.sy, box.sy, -box.sz, box.sz};
    // whether row L (an active cell) couples to its neighbour of plane q: inside the box and active
    auto want_entry = [&](std::size_t L, int q) {
      const long l = static_cast<long>(L) - box.off, i = l % box.sy, j = (l / box.sy) % (box.sz / box.sy), k = l / box.sz;
      const long d[7][3] = {{0, 0, 0}, {-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}};
      const long a = i + d[q][0], b = j + d[q][1], c = k + d[q][2];
      return a >= 0 && b >= 0 && c >= 0 && a < box.nx && b < box.ny && c < box.nz && active[box.at(a, b, c)] != 0;
    };
    std::vector<double> want(ext * block, 0.0), scale(ext * block, 0.0);
    for (long k = 0; k < box.nz; ++k)
      for (long j = 0; j < box.ny; ++j)
        for (long i = 0; i < box.nx; ++i) {
          const long L = box.at(i, j, k);
          if (!active[L]) continue;
          const long nb[7][3] = {{i, j, k}, {i - 1, j, k}, {i + 1, j, k}, {i, j - 1, k}, {i, j + 1, k}, {i, j, k - 1}, {i, j, k + 1}};
          for (int q = 0; q < 7; ++q) {
            const long a = nb[q][0], b = nb[q][1], c = nb[q][2];
            if (a < 0 || b < 0 || c < 0 || a >= box.nx || b >= box.ny || c >= box.nz || !active[box.at(a, b, c)]) continue;
            for (int u = 0; u < block; ++u)
              for (int v = 0; v < block; ++v) {
                const double t = double(coef[(q * ext + L) * b2 + u * block + v]) * double(x[(L + off[q]) * block + v]);
                want[L * block + u] += t;
                scale[L * block + u] += std::fabs(t);
              }
          }
        }
    // the pattern by its definition: rows of active cells hold exactly their active neighbours
    for (std::size_t L = 0; L < ext; ++L) {
      int n = 0;
      for (int q = 0; q < 7 && active[L]; ++q) n += want_entry(L, q) ? 1 : 0;
      CHECK(p.ptr[L + 1] - p.ptr[L] == n);
    }
    for_each_backend([&](Backend& be) {
      linalg::CsrMatrix<T> mat(be, p, block);
      auto fc = make_field(be, coef);
      auto fm = be.alloc(map.size() * sizeof(long));
      be.upload(*fm, map.data(), map.size() * sizeof(long));
      be.csr().gather({precision_of<T>(), p.nnz(), block, fm.get(), &fc.buffer(), linalg::kStencilPlanes * ext, &mat.val.buffer()});
      linalg::CsrOperator<T> op(mat);
      CHECK(op.size() == ext * block);
      auto fx = make_field(be, x);
      Field<T> y(be, ext * block);
      y.fill(std::numeric_limits<T>::quiet_NaN());
      op.apply(fx, y, {});
      CHECK(scaled_diff(convert<double>(y.download()), want, scale) <= tol<T>());
      // residual against b = A x + d: r = d
      const auto d = random_vector<T>(ext * block, -1, 1);
      std::vector<T> bv(ext * block);
      for (std::size_t i = 0; i < bv.size(); ++i) bv[i] = T(want[i] + double(d[i]));
      auto fb = make_field(be, bv);
      Field<T> r(be, ext * block);
      op.residual(fb, fx, r, {});
      const auto got = convert<double>(r.download());
      double worst = 0;
      for (std::size_t i = 0; i < got.size(); ++i) {
        const double w = double(bv[i]) - want[i];
        worst = std::max(worst, std::fabs(got[i] - w) / (scale[i] + std::fabs(double(bv[i])) + 1e-300));
      }
      CHECK(worst <= 2 * tol<T>());
      CHECK(op.describe().find("block CSR") != std::string::npos);
    });
  }
}

}  // TEST_SUITE

TEST_CASE("csr_pattern_of_stencil7: rows of active cells hold their active neighbours in column order") {
  const Box3 box = Box3::standalone(4, 3, 2, 1);
  std::vector<int> active(box.extent(), 0);
  for (long k = 0; k < box.nz; ++k)
    for (long j = 0; j < box.ny; ++j)
      for (long i = 0; i < box.nx; ++i) active[static_cast<std::size_t>(box.at(i, j, k))] = 1;
  active[static_cast<std::size_t>(box.at(1, 1, 0))] = 0;
  const auto p = linalg::csr_pattern_of_stencil7(box, active);
  p.check("test");
  CHECK(p.rows == box.extent());
  // cell (1, 1, 1): -z is inactive, so -y, -x, itself, +x, +y (+z is outside the box)
  const long L = box.at(1, 1, 1);
  const std::vector<int> want = {int(box.at(1, 0, 1)), int(box.at(0, 1, 1)), int(L), int(box.at(2, 1, 1)), int(box.at(1, 2, 1))};
  CHECK(std::vector<int>(p.col.begin() + p.ptr[L], p.col.begin() + p.ptr[L + 1]) == want);
  CHECK(p.ptr[box.at(1, 1, 0) + 1] == p.ptr[box.at(1, 1, 0)]);  // inactive: empty
  CHECK(p.ptr[box.at(-1, 0, 0) + 1] == p.ptr[box.at(-1, 0, 0)]);  // halo: empty
  // the map names each entry's plane and row
  const auto map = linalg::stencil7_to_csr_map(box, active);
  const long ext = static_cast<long>(box.extent());
  const std::vector<long> wmap = {linalg::kStencilYm * ext + L, linalg::kStencilXm * ext + L, linalg::kStencilDiag * ext + L,
                                  linalg::kStencilXp * ext + L, linalg::kStencilYp * ext + L};
  CHECK(std::vector<long>(map.begin() + p.ptr[L], map.begin() + p.ptr[L + 1]) == wmap);
  // 22 active cells of 24 interior ones... every entry once
  std::size_t entries = 0;
  for (long k = 0; k < box.nz; ++k)
    for (long j = 0; j < box.ny; ++j)
      for (long i = 0; i < box.nx; ++i)
        if (active[box.at(i, j, k)]) entries += static_cast<std::size_t>(p.ptr[box.at(i, j, k) + 1] - p.ptr[box.at(i, j, k)]);
  CHECK(entries == p.nnz());
  CHECK_THROWS_WITH_AS(linalg::csr_pattern_of_stencil7(box, std::vector<int>(5, 1)), doctest::Contains("activity flags"), ConfigError);
}

TEST_CASE("csr_lanes: a row per thread for short rows, a warp for a dense coarse level, forced when asked") {
  auto ref = [](std::size_t rows, std::size_t nnz, int block) { return CsrRef{rows, rows, nnz, block}; };
  CHECK(csr_lanes(ref(1000, 7000, 1), 0, false) == 1);  // a CPU device: always 1
  CHECK(csr_lanes(ref(500, 250000, 1), 0, false) == 1);
  CHECK(csr_lanes(ref(500, 250000, 1), 0, true) == 32);
  CHECK(csr_lanes(ref(500, 250000, 2), 0, true) == 32);
  CHECK(csr_lanes(ref(1000, 7000, 1), 0, true) == 1);   // a 7-point row: a thread
  CHECK(csr_lanes(ref(1000, 7000, 2), 0, true) == 4);   // 7 blocks of 2 x 2: 4 lanes
  CHECK(csr_lanes(ref(1000, 27000, 1), 0, true) == 4);  // 27-point: 4 lanes
  CHECK(csr_lanes(ref(1000, 7000, 1), 8, true) == 8);
  for (std::size_t mean = 1; mean < 100; ++mean) {  // the rule never shrinks as rows grow
    const int a = csr_lanes(ref(1000, 1000 * mean, 1), 0, true), b = csr_lanes(ref(1000, 1000 * (mean + 1), 1), 0, true);
    CHECK(a <= b);
    CHECK((a & (a - 1)) == 0);
  }
}
