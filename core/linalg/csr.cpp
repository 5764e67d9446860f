#include "core/linalg/csr.hpp"

#include <algorithm>
#include <string>

#include "core/base/error.hpp"

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

}  // namespace poreflow::linalg
