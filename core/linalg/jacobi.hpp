#pragma once
// Preconditioners of the 7-point operator: Jacobi (the inverse of each row's diagonal) and, for 2 x 2
// blocks, block-Jacobi (the inverse of each cell's diagonal block), and the identity.
#include <memory>
#include <string>

#include "core/kernels/field.hpp"
#include "core/linalg/linear_operator.hpp"
#include "core/linalg/stencil7.hpp"

namespace poreflow::linalg {

// z = r (one copy launch): a solve without preconditioning through the same interface.
template <class T>
class IdentityPreconditioner final : public Preconditioner<T> {
 public:
  void update(const LinearOperator<T>&) override {}
  void apply(const Field<T>& r, Field<T>& z, Guard g) const override;
  std::string describe() const override { return "none"; }
};

// z = D^-1 r, D the diagonal (blocks of 1) or the diagonal blocks (blocks of 2) of a Stencil7Operator
// or a CsrOperator. update() inverts them on the device and reads one word back. On a 7-point
// operator the first active row without an inverse is a ConfigError (a zero diagonal or singular
// block) or a NumericalError (NaN or infinite entries) naming its cell and unknown; on a CSR
// operator a NumericalError naming the row (csr diag_inv; a row without entries takes 0).
template <class T>
class JacobiPreconditioner final : public Preconditioner<T> {
 public:
  void update(const LinearOperator<T>& A) override;
  void apply(const Field<T>& r, Field<T>& z, Guard g) const override;
  std::string describe() const override;

 private:
  const LinearOperator<T>* op_ = nullptr;  // a Stencil7Operator or a CsrOperator
  int block_ = 1;
  std::size_t cells_ = 0;
  Field<T> dinv_;
  std::unique_ptr<Buffer> status_;
};

}  // namespace poreflow::linalg
