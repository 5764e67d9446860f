#include "core/linalg/csr.hpp"

#include <algorithm>
#include <climits>
#include <cstdio>
#include <string>

#include "core/base/error.hpp"
#include "core/linalg/stencil7.hpp"

namespace poreflow::linalg {

long CsrPattern::find(std::size_t r, std::size_t c) const {
  const auto b = col.begin() + ptr[r], e = col.begin() + ptr[r + 1];
  const auto it = std::lower_bound(b, e, static_cast<int>(c));
  return it != e && *it == static_cast<int>(c) ? static_cast<long>(it - col.begin()) : -1;
}

void CsrPattern::check(const char* what) const {
  auto fail = [&](const std::string& m) { throw ConfigError(std::string(what) + ": " + m); };
  if (ptr.size() != rows + 1) fail("the row pointer has " + std::to_string(ptr.size()) + " entries for " + std::to_string(rows) + " rows");
  if (ptr[0] != 0 || static_cast<std::size_t>(ptr[rows]) != col.size()) fail("the row pointer does not span the columns");
  for (std::size_t r = 0; r < rows; ++r) {
    if (ptr[r + 1] < ptr[r]) fail("row " + std::to_string(r) + " ends before it starts");
    for (int k = ptr[r]; k < ptr[r + 1]; ++k) {
      if (col[k] < 0 || static_cast<std::size_t>(col[k]) >= cols)
        fail("row " + std::to_string(r) + " has column " + std::to_string(col[k]) + " of " + std::to_string(cols));
      if (k > ptr[r] && col[k] <= col[k - 1]) fail("row " + std::to_string(r) + "'s columns do not increase");
    }
  }
}

CsrPattern transpose(const CsrPattern& p, std::vector<int>* perm) {
  CsrPattern t;
  t.rows = p.cols;
  t.cols = p.rows;
  t.ptr.assign(t.rows + 1, 0);
  for (int c : p.col) ++t.ptr[static_cast<std::size_t>(c) + 1];
  for (std::size_t r = 0; r < t.rows; ++r) t.ptr[r + 1] += t.ptr[r];
  t.col.resize(p.col.size());
  if (perm) perm->resize(p.col.size());
  std::vector<int> next(t.ptr.begin(), t.ptr.end() - 1);
  for (std::size_t r = 0; r < p.rows; ++r)  // rows in order: each transposed row's columns increase
    for (int k = p.ptr[r]; k < p.ptr[r + 1]; ++k) {
      const int at = next[static_cast<std::size_t>(p.col[k])]++;
      t.col[at] = static_cast<int>(r);
      if (perm) (*perm)[at] = k;
    }
  return t;
}

namespace {

// The entries of an active cell's row, in increasing column order: -z, -y, -x, the cell, +x, +y, +z
// (columns L + offset, the pitches keep them apart: sz > sy > 1 for a box that check_box accepts).
struct Stencil7Walk {
  const Box3& b;
  const std::vector<int>& active;

  void check(const char* what) const {
    // check_box's rules (core/kernels/box3.cpp), without a buffer
    if (b.nx <= 0 || b.ny <= 0 || b.nz <= 0 || b.halo < 0 || b.sy < b.nx + 2 * b.halo || b.sz < b.sy * (b.ny + 2 * b.halo) ||
        b.at(-b.halo, -b.halo, -b.halo) < 0)
      throw ConfigError(std::string(what) + ": the box " + b.describe() + " is not well formed");
    if (active.size() != b.extent())
      throw ConfigError(std::string(what) + ": " + std::to_string(active.size()) + " activity flags for a box of extent " +
                        std::to_string(b.extent()));
  }
  bool on(long i, long j, long k) const {
    return i >= 0 && j >= 0 && k >= 0 && i < b.nx && j < b.ny && k < b.nz && active[static_cast<std::size_t>(b.at(i, j, k))] != 0;
  }
  // f(L, column, plane) for every entry, rows in increasing L
  template <class F>
  void each(F&& f) const {
    const long di[7] = {0, 0, -1, 0, 1, 0, 0}, dj[7] = {0, -1, 0, 0, 0, 1, 0}, dk[7] = {-1, 0, 0, 0, 0, 0, 1};
    const int plane[7] = {kStencilZm, kStencilYm, kStencilXm, kStencilDiag, kStencilXp, kStencilYp, kStencilZp};
    for (long k = 0; k < b.nz; ++k)
      for (long j = 0; j < b.ny; ++j)
        for (long i = 0; i < b.nx; ++i) {
          if (!on(i, j, k)) continue;
          const long L = b.at(i, j, k);
          for (int e = 0; e < 7; ++e)
            if (on(i + di[e], j + dj[e], k + dk[e])) f(L, b.at(i + di[e], j + dj[e], k + dk[e]), plane[e]);
        }
  }
};

}  // namespace

CsrPattern csr_pattern_of_stencil7(const Box3& box, const std::vector<int>& active) {
  const Stencil7Walk w{box, active};
  w.check("csr_pattern_of_stencil7");
  CsrPattern p;
  p.rows = p.cols = box.extent();
  std::vector<std::size_t> count(p.rows, 0);
  std::size_t nnz = 0;
  w.each([&](long L, long, int) { ++count[static_cast<std::size_t>(L)], ++nnz; });
  if (nnz >= std::size_t(INT_MAX) || p.rows >= std::size_t(INT_MAX))
    throw ConfigError("csr_pattern_of_stencil7: " + std::to_string(nnz) + " entries in " + std::to_string(p.rows) +
                      " rows: 32-bit indices hold fewer than 2^31");
  p.ptr.assign(p.rows + 1, 0);
  for (std::size_t r = 0; r < p.rows; ++r) p.ptr[r + 1] = p.ptr[r] + static_cast<int>(count[r]);
  p.col.reserve(nnz);
  // the walk visits rows in increasing L (k, j, i loops over increasing pitches): entries append in order
  w.each([&](long, long c, int) { p.col.push_back(static_cast<int>(c)); });
  return p;
}

std::vector<long> stencil7_to_csr_map(const Box3& box, const std::vector<int>& active) {
  const Stencil7Walk w{box, active};
  w.check("stencil7_to_csr_map");
  const long extent = static_cast<long>(box.extent());
  std::vector<long> map;
  w.each([&](long L, long, int q) { map.push_back(static_cast<long>(q) * extent + L); });
  return map;
}

template <class T>
CsrMatrix<T>::CsrMatrix(Backend& be, const CsrPattern& p, int b)
    : rows(p.rows), cols(p.cols), nnz(p.nnz()), block(b), val(be, p.nnz() * static_cast<std::size_t>(b * b)) {
  if (b != 1 && b != 2) throw ConfigError("a CSR matrix has blocks of 1 or 2 unknowns, not " + std::to_string(b));
  p.check("CsrMatrix");
  ptr = be.alloc(p.ptr.size() * sizeof(int));
  be.upload(*ptr, p.ptr.data(), p.ptr.size() * sizeof(int));
  col = be.alloc(std::max<std::size_t>(p.col.size(), 1) * sizeof(int));
  if (!p.col.empty()) be.upload(*col, p.col.data(), p.col.size() * sizeof(int));
}

template struct CsrMatrix<float>;
template struct CsrMatrix<double>;

template <class T>
CsrOperator<T>::CsrOperator(CsrMatrix<T>& m) : m_(m) {
  if (m.rows != m.cols)
    throw ConfigError("CsrOperator: the matrix has " + std::to_string(m.rows) + " x " + std::to_string(m.cols) +
                      " blocks; an operator is square");
}

template <class T>
void CsrOperator<T>::apply(const Field<T>& x, Field<T>& y, Guard g) const {
  CsrSpmvArgs a;
  a.prec = precision_of<T>();
  a.a = m_.ref();
  a.alpha = 1;
  a.beta = 0;
  a.x = &x.buffer();
  a.y = &y.buffer();
  a.guard = g.ctrl;
  backend().csr().spmv(a);
}

template <class T>
void CsrOperator<T>::residual(const Field<T>& b, const Field<T>& x, Field<T>& r, Guard g) const {
  CsrResidualArgs a;
  a.prec = precision_of<T>();
  a.a = m_.ref();
  a.b = &b.buffer();
  a.x = &x.buffer();
  a.r = &r.buffer();
  a.guard = g.ctrl;
  backend().csr().residual(a);
}

template <class T>
void CsrOperator<T>::chebyshev_step(const Field<T>& b, const Field<T>& x, Field<T>& x_out, Field<T>& d,
                                    const Field<T>& dinv, double alpha, double beta, Guard g) const {
  CsrChebyshevArgs a;  // the family checks the sizes, the block and the aliasing
  a.prec = precision_of<T>();
  a.a = m_.ref();
  a.dinv = &dinv.buffer();
  a.b = &b.buffer();
  a.x = &x.buffer();
  a.d = &d.buffer();
  a.x_out = &x_out.buffer();
  a.alpha = alpha;
  a.beta = beta;
  a.guard = g.ctrl;
  backend().csr().chebyshev(a);
}

template <class T>
void CsrOperator<T>::chebyshev_start(const Field<T>& b, Field<T>& x_out, Field<T>& d, const Field<T>& dinv, double start,
                                     double alpha, double beta, Field<T>* r, Guard g) const {
  if (start == 0) throw ConfigError("csr Chebyshev step from zero: the first step's coefficient is 0");
  CsrChebyshevArgs a;  // the family checks the sizes, the block and the aliasing
  a.prec = precision_of<T>();
  a.a = m_.ref();
  a.dinv = &dinv.buffer();
  a.b = &b.buffer();
  a.d = &d.buffer();
  a.x_out = &x_out.buffer();
  a.r = r ? &r->buffer() : nullptr;
  a.alpha = alpha;
  a.beta = beta;
  a.start = start;
  a.guard = g.ctrl;
  backend().csr().chebyshev(a);
}

template <class T>
std::string CsrOperator<T>::describe() const {
  const double mean = m_.rows ? double(m_.nnz) / double(m_.rows) : 0.0;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.1f", mean);
  return "block CSR " + std::to_string(m_.rows) + " x " + std::to_string(m_.cols) + " of " + std::to_string(m_.block) + "x" +
         std::to_string(m_.block) + " blocks, " + std::to_string(m_.nnz) + " stored (" + buf + " a row), " +
         std::to_string(backend().csr().lanes(m_.ref())) + " lane(s) a row on " + backend().name();
}

template class CsrOperator<float>;
template class CsrOperator<double>;

}  // namespace poreflow::linalg
