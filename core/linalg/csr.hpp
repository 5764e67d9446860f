#pragma once
// Sparse matrices in block CSR: rows x cols blocks of block x block values (block 1 or 2), the
// blocks of a row in increasing column order. Well rows and columns, the coarse levels of AMG and
// anything unstructured use it. The pattern is built on the host (CsrPattern) and uploaded once;
// values change on the device (a Newton iteration, a new time step) without touching the pattern.
//
//   ptr: rows + 1 int32, col: nnz int32, val: nnz x block^2 values, block (r, c) of entry k at
//   k * block^2 + r * block + c.
// Indices are 32-bit: a matrix has fewer than 2^31 blocks (a 1290^3 7-point grid).
#include <cstddef>
#include <memory>
#include <vector>

#include "core/kernels/box3.hpp"
#include "core/kernels/csr.hpp"
#include "core/kernels/field.hpp"
#include "core/linalg/linear_operator.hpp"

namespace poreflow::linalg {

struct CsrPattern {
  std::size_t rows = 0, cols = 0;
  std::vector<int> ptr{0}, col;
  std::size_t nnz() const { return col.size(); }
  // the position of (r, c), or -1
  long find(std::size_t r, std::size_t c) const;
  // ConfigError naming what is wrong (sizes, a column out of range, not increasing in a row)
  void check(const char* what) const;
};

// the transpose's pattern; perm[k]: the entry of this pattern that the transpose's entry k is
CsrPattern transpose(const CsrPattern& p, std::vector<int>* perm = nullptr);

// The pattern of a 7-point stencil (core/linalg/stencil7.hpp) in the stencil's vector layout:
// rows = cols = box.extent(), row L the cell at box index L. A cell inside the box whose active[L]
// is nonzero has its diagonal and every neighbour inside the box that is active too, in increasing
// column order (-z, -y, -x, the cell, +x, +y, +z); every other row (halo, inactive, the array's
// padding) is empty, so a vector of the stencil is a vector of this matrix. active: extent values
// (Stencil7Matrix::active's contents). ConfigError when the box is not well formed or active is
// not of the extent, or when the entries pass 2^31 (32-bit indices).
CsrPattern csr_pattern_of_stencil7(const Box3& box, const std::vector<int>& active);

// For each entry k of csr_pattern_of_stencil7(box, active): the block of the stencil's coefficient
// array that holds it, q * extent + L for the entry of plane q (kStencil*) in row L. The csr
// family's gather copies the values through it (CsrGatherArgs, src_blocks = 7 * extent), on the
// device, whenever the stencil's values change.
std::vector<long> stencil7_to_csr_map(const Box3& box, const std::vector<int>& active);

template <class T>
struct CsrMatrix {
  CsrMatrix(Backend& be, const CsrPattern& p, int block);
  std::size_t rows = 0, cols = 0, nnz = 0;
  int block = 1;
  std::unique_ptr<Buffer> ptr, col;  // int32
  Field<T> val;                      // nnz x block^2
  Backend& backend() const { return val.backend(); }
  // the matrix as the csr family takes it
  CsrRef ref() const { return CsrRef{rows, cols, nnz, block, ptr.get(), col.get(), &val.buffer()}; }
};

// The operator of a square CsrMatrix; apply and residual run the csr family, its lanes rule
// included (csr_lanes).
template <class T>
class CsrOperator final : public LinearOperator<T> {
 public:
  explicit CsrOperator(CsrMatrix<T>& m);  // ConfigError unless square
  CsrMatrix<T>& matrix() const { return m_; }
  Backend& backend() const override { return m_.backend(); }
  std::size_t size() const override { return m_.rows * static_cast<std::size_t>(m_.block); }
  int block() const override { return m_.block; }
  void apply(const Field<T>& x, Field<T>& y, Guard g) const override;
  void residual(const Field<T>& b, const Field<T>& x, Field<T>& r, Guard g) const override;
  // One Chebyshev step in one pass (csr chebyshev; scalar matrices): r = b - A x, d = alpha d +
  // beta dinv r, x_out = x + d. x_out is neither x nor b.
  void chebyshev_step(const Field<T>& b, const Field<T>& x, Field<T>& x_out, Field<T>& d, const Field<T>& dinv,
                      double alpha, double beta, Guard g) const;
  // The first step from zero (x = start dinv b, d = x) and in the same pass the next step (into
  // x_out), or, with r, that x's residual (x_out = x).
  void chebyshev_start(const Field<T>& b, Field<T>& x_out, Field<T>& d, const Field<T>& dinv, double start, double alpha,
                       double beta, Field<T>* r, Guard g) const;
  std::string describe() const override;

 private:
  CsrMatrix<T>& m_;
};

}  // namespace poreflow::linalg
