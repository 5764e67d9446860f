#include "core/linalg/float_preconditioner.hpp"

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

void FloatPreconditioner::setup(const LinearOperator<double>& A) {
  Backend& be = A.backend();
  op_ = nullptr;  // set when the copy is whole
  fop_.reset();
  ex_.reset();
  s7_.reset();
  csr_.reset();
  if (const auto* s = dynamic_cast<const Stencil7Operator<double>*>(&A)) {
    const Stencil7Matrix<double>& m = s->matrix();
    s7_ = std::make_unique<Stencil7Matrix<float>>(be, m.box, m.block);
    be.copy(*m.active, *s7_->active, m.extent() * sizeof(int));
    auto op = std::make_unique<Stencil7Operator<float>>(*s7_);
    if (const HaloExchange* e = s->exchange()) {
      ex_ = std::make_unique<HaloExchange>(*e, e->block(), Precision::Float);
      op->set_exchange(ex_.get());
    }
    fop_ = std::move(op);
  } else if (const auto* c = dynamic_cast<const CsrOperator<double>*>(&A)) {
    const CsrMatrix<double>& m = c->matrix();
    CsrPattern p;
    p.rows = m.rows;
    p.cols = m.cols;
    p.ptr.resize(m.rows + 1);
    p.col.resize(m.nnz);
    be.download(*m.ptr, p.ptr.data(), p.ptr.size() * sizeof(int));
    if (m.nnz) be.download(*m.col, p.col.data(), m.nnz * sizeof(int));
    csr_ = std::make_unique<CsrMatrix<float>>(be, p, m.block);
    fop_ = std::make_unique<CsrOperator<float>>(*csr_);
  } else {
    throw ConfigError("a float preconditioner takes a 7-point stencil or a CSR operator, not " + A.describe());
  }
  rf_ = Field<float>(be, A.size());
  zf_ = Field<float>(be, A.size());
  rf_.fill(0.0f);
  zf_.fill(0.0f);
  op_ = &A;
}

void FloatPreconditioner::update(const LinearOperator<double>& A) {
  if (&A != op_ || !fop_) setup(A);
  Backend& be = A.backend();
  if (s7_) {
    const auto& m = dynamic_cast<const Stencil7Operator<double>&>(A).matrix();
    narrow(be, m.coef.buffer(), s7_->coef.buffer(), m.coef.size());
  } else {
    const auto& m = dynamic_cast<const CsrOperator<double>&>(A).matrix();
    narrow(be, m.val.buffer(), csr_->val.buffer(), m.val.size());
  }
  inner_->update(*fop_);
}

void FloatPreconditioner::apply(const Field<double>& r, Field<double>& z, Guard g) const {
  if (!fop_) throw Error("float preconditioner: apply before update");
  if (r.size() != rf_.size() || z.size() != zf_.size())
    throw ConfigError("float preconditioner: vectors of " + std::to_string(r.size()) + " and " + std::to_string(z.size()) +
                      " values for an operator of " + std::to_string(rf_.size()));
  Backend& be = r.backend();
  narrow(be, r.buffer(), rf_.buffer(), r.size(), g.ctrl);
  inner_->apply(rf_, zf_, g);
  be.vec().convert({Precision::Double, z.size(), false, &zf_.buffer(), &z.buffer(), g.ctrl});
}

std::string FloatPreconditioner::describe() const { return inner_->describe() + " in float"; }

}  // namespace poreflow::linalg
