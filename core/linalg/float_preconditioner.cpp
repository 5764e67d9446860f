#include "core/linalg/float_preconditioner.hpp"

#include <utility>
#include <vector>

#include "core/base/error.hpp"
#include "core/kernels/vec.hpp"

namespace poreflow::linalg {

namespace {

// dst (float) = src (double), n values, on the device
void narrow(Backend& be, const Buffer& src, Buffer& dst, std::size_t n, const Buffer* guard = nullptr) {
  be.vec().convert({Precision::Double, n, true, &src, &dst, guard});
}

}  // namespace

FloatPreconditioner::FloatPreconditioner(std::unique_ptr<Preconditioner<float>> inner) : inner_(std::move(inner)) {
  if (!inner_) throw ConfigError("a float preconditioner needs the preconditioner it applies");
}

FloatPreconditioner::~FloatPreconditioner() = default;

FloatPreconditioner::Copy FloatPreconditioner::make_copy(const LinearOperator<double>& A) {
  Backend& be = A.backend();
  Copy c;
  if (const auto* s = dynamic_cast<const Stencil7Operator<double>*>(&A)) {
    const Stencil7Matrix<double>& m = s->matrix();
    c.s7 = std::make_unique<Stencil7Matrix<float>>(be, m.box, m.block);
    be.copy(*m.active, *c.s7->active, m.extent() * sizeof(int));
    auto op = std::make_unique<Stencil7Operator<float>>(*c.s7);
    if (const HaloExchange* e = s->exchange()) {
      c.ex = std::make_unique<HaloExchange>(*e, e->block(), Precision::Float);
      op->set_exchange(c.ex.get());
    }
    c.fop = std::move(op);
  } else if (const auto* k = dynamic_cast<const CsrOperator<double>*>(&A)) {
    const CsrMatrix<double>& m = k->matrix();
    CsrPattern p;
    p.rows = m.rows;
    p.cols = m.cols;
    p.ptr.resize(m.rows + 1);
    p.col.resize(m.nnz);
    be.download(*m.ptr, p.ptr.data(), p.ptr.size() * sizeof(int));
    if (m.nnz) be.download(*m.col, p.col.data(), m.nnz * sizeof(int));
    c.csr = std::make_unique<CsrMatrix<float>>(be, p, m.block);
    c.fop = std::make_unique<CsrOperator<float>>(*c.csr);
  } else {
    throw ConfigError("a float preconditioner takes a 7-point stencil or a CSR operator, not " + A.describe());
  }
  c.rf = Field<float>(be, A.size());
  c.zf = Field<float>(be, A.size());
  c.rf.fill(0.0f);
  c.zf.fill(0.0f);
  return c;
}

void FloatPreconditioner::narrow_values(const LinearOperator<double>& A) const {
  Backend& be = A.backend();
  if (c_.s7) {
    const auto& m = dynamic_cast<const Stencil7Operator<double>&>(A).matrix();
    narrow(be, m.coef.buffer(), c_.s7->coef.buffer(), m.coef.size());
  } else {
    const auto& m = dynamic_cast<const CsrOperator<double>&>(A).matrix();
    narrow(be, m.val.buffer(), c_.csr->val.buffer(), m.val.size());
  }
}

void FloatPreconditioner::update_partly(const LinearOperator<double>& A) {
  if (&A != op_) {
    update(A);
    return;
  }
  narrow_values(A);
  inner_->update_partly(*c_.fop);
}

void FloatPreconditioner::update(const LinearOperator<double>& A) {
  if (&A == op_) {  // new values of the same pattern
    narrow_values(A);
    inner_->update(*c_.fop);
    return;
  }
  // Another operator: its copy is made while the last one lives, so the inner preconditioner sees
  // another operator object (preconditioners set up anew when the operator's address changes; a
  // copy made after the last was freed could reuse its address and keep the old hierarchy). A
  // copy whose update failed stays until the next, for the same reason; op_ says it is not ready.
  op_ = nullptr;
  Copy next = make_copy(A);
  Copy last = std::exchange(c_, std::move(next));
  narrow_values(A);
  inner_->update(*c_.fop);
  op_ = &A;
}

void FloatPreconditioner::apply(const Field<double>& r, Field<double>& z, Guard g) const {
  if (!op_) throw Error("float preconditioner: apply before update");
  if (r.size() != c_.rf.size() || z.size() != c_.zf.size())
    throw ConfigError("float preconditioner: vectors of " + std::to_string(r.size()) + " and " + std::to_string(z.size()) +
                      " values for an operator of " + std::to_string(c_.rf.size()));
  Backend& be = r.backend();
  narrow(be, r.buffer(), c_.rf.buffer(), r.size(), g.ctrl);
  inner_->apply(c_.rf, c_.zf, g);
  be.vec().convert({Precision::Double, z.size(), false, &c_.zf.buffer(), &z.buffer(), g.ctrl});
}

std::string FloatPreconditioner::describe() const { return inner_->describe() + " in float"; }

}  // namespace poreflow::linalg
