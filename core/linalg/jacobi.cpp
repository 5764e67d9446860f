#include "core/linalg/jacobi.hpp"

#include <string>

#include "core/base/error.hpp"
#include "core/kernels/csr.hpp"
#include "core/kernels/stencil7.hpp"
#include "core/linalg/csr.hpp"
#include "core/linalg/stencil7.hpp"
#include "core/kernels/vec.hpp"

namespace poreflow::linalg {

namespace {

template <class T>
void check_pair(const Field<T>& r, const Field<T>& z, std::size_t n, const char* what) {
  for (const Field<T>* f : {&r, &z})
    if (f->size() != n)
      throw ConfigError(std::string(what) + ": a vector of " + std::to_string(f->size()) + " values for an operator of " +
                        std::to_string(n));
}

}  // namespace

template <class T>
void IdentityPreconditioner<T>::apply(const Field<T>& r, Field<T>& z, Guard g) const {
  check_pair(r, z, r.size(), "identity preconditioner");
  r.backend().vec().axpby({precision_of<T>(), r.size(), VecCoef::constant(1), VecCoef::constant(0), &r.buffer(),
                           &z.buffer(), nullptr, g.ctrl});
}

template <class T>
void JacobiPreconditioner<T>::update(const LinearOperator<T>& A) {
  op_ = nullptr;
  if (const auto* csr = dynamic_cast<const CsrOperator<T>*>(&A)) {
    const CsrMatrix<T>& m = csr->matrix();
    if (m.block != 1 && m.block != 2)
      throw ConfigError("Jacobi preconditioning takes blocks of 1 or 2 unknowns, not " + std::to_string(m.block));
    Backend& be = csr->backend();
    block_ = m.block;
    cells_ = m.rows;
    const std::size_t need = static_cast<std::size_t>(block_ * block_) * cells_;
    if (dinv_.size() != need || &dinv_.backend() != &be) dinv_ = Field<T>(be, need);
    if (!status_) status_ = be.alloc(8);
    CsrDiagInvArgs di;
    di.prec = precision_of<T>();
    di.a = m.ref();
    di.dinv = &dinv_.buffer();
    di.bad = status_.get();
    auto k = be.csr();
    k.diag_inv(di);
    k.check_diagonal(*status_, describe().c_str());
    op_ = csr;
    return;
  }
  const auto* s7 = dynamic_cast<const Stencil7Operator<T>*>(&A);
  if (!s7) throw ConfigError("Jacobi preconditioning needs a 7-point or CSR operator, not " + A.describe());
  const Stencil7Matrix<T>& m = s7->matrix();
  Backend& be = s7->backend();
  block_ = m.block;
  cells_ = m.extent();
  const std::size_t need = static_cast<std::size_t>(block_ * block_) * cells_;
  if (dinv_.size() != need || &dinv_.backend() != &be) dinv_ = Field<T>(be, need);
  if (!status_) status_ = be.alloc(8);
  const long code =
      be.stencil7().invert({precision_of<T>(), m.box, m.block, &m.coef.buffer(), m.active.get(), &dinv_.buffer(), status_.get()});
  if (code < 0) {
    op_ = s7;
    return;
  }
  const std::size_t L = static_cast<std::size_t>(code) / 4, u = (static_cast<std::size_t>(code) / 2) % 2;
  const std::string where = s7->describe_row(L * static_cast<std::size_t>(block_) + u);
  const std::string what = block_ == 1 ? "diagonal" : "diagonal block";
  if (code % 2 == PF_S7_NONFINITE)
    throw NumericalError(describe() + ": the " + what + " of " + where + " is not finite");
  throw ConfigError(describe() + ": the " + what + " of " + where + (block_ == 1 ? " is zero" : " is singular"));
}

template <class T>
void JacobiPreconditioner<T>::apply(const Field<T>& r, Field<T>& z, Guard g) const {
  if (!op_) throw ConfigError("Jacobi preconditioner applied before update()");
  check_pair(r, z, op_->size(), "Jacobi preconditioner");
  op_->backend().vec().diag({precision_of<T>(), cells_, block_, &dinv_.buffer(), &r.buffer(), &z.buffer(), g.ctrl});
}

template <class T>
std::string JacobiPreconditioner<T>::describe() const {
  return block_ == 2 ? "block-Jacobi (2 x 2)" : "Jacobi";
}

template class IdentityPreconditioner<float>;
template class IdentityPreconditioner<double>;
template class JacobiPreconditioner<float>;
template class JacobiPreconditioner<double>;

}  // namespace poreflow::linalg
