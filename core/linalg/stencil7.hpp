#pragma once
// A structured 7-point operator on a box (core/kernels/box3.hpp), scalar or with 2 x 2 blocks
// (two unknowns per cell), stored as one coefficient array per face plus the diagonal:
//
//   coef: 7 planes of block^2 x extent values; plane q, cell L (the box index of the cell, halo
//   included), entry (r, c) of its block at  (q * extent + L) * block^2 + r * block + c
//   q: 0 the diagonal, 1 the -x neighbour, 2 +x, 3 -y, 4 +y, 5 -z, 6 +z (kStencil*)
//
//   (A x)_L = D_L x_L + sum_q O_qL x_(L + offset_q)        (the blocks times the cells' vectors)
//
// Entries are the matrix's own (a Laplacian's off-diagonals are negative). A vector holds
// block x extent values, a cell's unknowns adjacent. Inactive cells (active[L] == 0, or any cell
// outside the box) have zero rows: A x is 0 there, and every coefficient that couples an active
// cell to an inactive one is 0. A halo of at least 1 keeps every neighbour read inside the array.
#include <cstddef>
#include <memory>
#include <string>

#include "core/comm/halo_exchange.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/field.hpp"
#include "core/linalg/linear_operator.hpp"

namespace poreflow::linalg {

enum Stencil7Plane { kStencilDiag = 0, kStencilXm, kStencilXp, kStencilYm, kStencilYp, kStencilZm, kStencilZp, kStencilPlanes };

template <class T>
struct Stencil7Matrix {
  Stencil7Matrix(Backend& be, const Box3& box, int block);
  Box3 box;
  int block = 1;
  Field<T> coef;                    // kStencilPlanes x block^2 x extent
  std::unique_ptr<Buffer> active;   // int32 per cell of the extent: 1 an unknown, 0 not (halo, inactive)
  std::size_t extent() const { return box.extent(); }
  std::size_t vector_size() const { return static_cast<std::size_t>(block) * box.extent(); }
};

// The operator of a Stencil7Matrix (its values may change between solves; the pattern may not).
// apply and residual run the stencil7 family.
template <class T>
class Stencil7Operator final : public LinearOperator<T> {
 public:
  explicit Stencil7Operator(Stencil7Matrix<T>& m) : m_(m) {}
  Stencil7Matrix<T>& matrix() const { return m_; }
  Backend& backend() const override { return m_.coef.backend(); }
  std::size_t size() const override { return m_.vector_size(); }
  int block() const override { return m_.block; }
  void apply(const Field<T>& x, Field<T>& y, Guard g) const override;
  void residual(const Field<T>& b, const Field<T>& x, Field<T>& r, Guard g) const override;
  std::string describe() const override;
  // "row 17: cell (i, j, k), unknown u"
  std::string describe_row(std::size_t row) const override;

  // One Chebyshev step in one pass (scalar operators; the stencil7 family's chebyshev): with
  // r = b - A x, d = alpha d + beta dinv r and x_out = x + d. x_out may not be x.
  void chebyshev_step(const Field<T>& b, const Field<T>& x, Field<T>& x_out, Field<T>& d, const Field<T>& dinv,
                      double alpha, double beta, Guard g) const;
  // The first step from zero (x = start dinv b, d = x) and in the same pass the next step (into
  // x_out), or, with r, that x's residual (x_out = x). Not for a decomposed operator: its ghosts
  // are exchanged for x, which this step does not read.
  void chebyshev_start(const Field<T>& b, Field<T>& x_out, Field<T>& d, const Field<T>& dinv, double start,
                       double alpha, double beta, Field<T>* r, Guard g) const;

  // A process's part of a decomposed operator (docs/mpi.md): its coefficients to the cells across
  // a shared face are the matrix's own, and every product first fills x's ghosts from the
  // neighbours (e's box must be the matrix's), then sets them back to 0. Preconditioners set up
  // from the matrix see only the process's own rows and columns (block Jacobi across processes).
  // The exchange moves the operator's unknowns a cell (e->block() == block()); nullptr: none.
  void set_exchange(const HaloExchange* e);
  const HaloExchange* exchange() const { return ex_; }

 private:
  void fill_ghosts(const Field<T>& x) const;
  void clear_ghosts(const Field<T>& x) const;
  Stencil7Matrix<T>& m_;
  const HaloExchange* ex_ = nullptr;
};

}  // namespace poreflow::linalg
