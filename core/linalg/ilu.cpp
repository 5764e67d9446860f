#include "core/linalg/ilu.hpp"

#include <algorithm>
#include <sstream>

#include "core/base/error.hpp"
#include "core/physics/ilu.h"

namespace poreflow::linalg {

template <class T>
void Ilu0<T>::update(const LinearOperator<T>& A) {
  if (const auto* s = dynamic_cast<const Stencil7Operator<T>*>(&A)) return update(s->matrix());
  if (const auto* c = dynamic_cast<const CsrOperator<T>*>(&A)) return update(c->matrix());
  // no fallback (a Jacobi would hide the mistake): the caller picks another preconditioner
  throw ConfigError(std::string(to_string(opts_.variant)) + " preconditions a 7-point stencil or a block-CSR operator, not " +
                    A.describe());
}

template <class T>
void Ilu0<T>::update(const Stencil7Matrix<T>& m) {
  if (&m != s7_ || dinv_.size() != m.coef.size() / kStencilPlanes) {
    if (!opts_.colours.empty()) throw ConfigError("ILU: explicit colours are for CSR matrices; a 7-point stencil is red-black");
    Backend& be = m.coef.backend();
    s7_ = &m;
    m_ = nullptr;
    csr_.reset();
    dinv_ = Field<T>(be, static_cast<std::size_t>(m.block * m.block) * m.extent());
    pivot_ = be.alloc(kIluPivotBytes);
  }
  factor();
}

template <class T>
void Ilu0<T>::update(const CsrMatrix<T>& m) {
  if (&m != m_ || !csr_ || csr_->plan.rows != m.rows || csr_->plan.ent.size() != m.nnz) {
    if (m.rows != m.cols) throw ConfigError("ILU: the CSR matrix is not square (" + std::to_string(m.rows) + " x " + std::to_string(m.cols) + ")");
    Backend& be = m.backend();
    // the pattern comes to the host once, for the colouring and the plan
    std::vector<int> ptr(m.rows + 1), col(m.nnz);
    be.download(*m.ptr, ptr.data(), ptr.size() * sizeof(int));
    if (m.nnz) be.download(*m.col, col.data(), col.size() * sizeof(int));
    auto c = std::make_unique<Csr>();
    c->plan = make_ilu_csr_plan(m.rows, ptr, col, opts_.colours);
    auto up = [&](const std::vector<int>& v) {
      auto b = be.alloc(std::max<std::size_t>(v.size(), 1) * sizeof(int));
      if (!v.empty()) be.upload(*b, v.data(), v.size() * sizeof(int));
      return b;
    };
    c->order = up(c->plan.order);
    c->ent = up(c->plan.ent);
    c->dpos = up(c->plan.dpos);
    const std::size_t b2 = static_cast<std::size_t>(m.block * m.block);
    if (opts_.variant == IluVariant::Ilu0) c->lu = Field<T>(be, std::max<std::size_t>(m.nnz, 1) * b2);
    csr_ = std::move(c);
    m_ = &m;
    s7_ = nullptr;
    dinv_ = Field<T>(be, std::max<std::size_t>(m.rows, 1) * b2);
    pivot_ = be.alloc(kIluPivotBytes);
  }
  factor();
}

template <class T>
IluStencilArgs Ilu0<T>::stencil_args() const {
  IluStencilArgs a;
  a.prec = precision_of<T>();
  a.box = s7_->box;
  a.block = s7_->block;
  a.coef = &s7_->coef.buffer();
  a.active = s7_->active.get();
  a.dinv = const_cast<Buffer*>(&dinv_.buffer());
  a.pivot = pivot_.get();
  return a;
}

template <class T>
IluCsrArgs Ilu0<T>::csr_args() const {
  IluCsrArgs a;
  a.prec = precision_of<T>();
  a.variant = opts_.variant;
  a.block = m_->block;
  a.rows = m_->rows;
  a.nnz = m_->nnz;
  a.ptr = m_->ptr.get();
  a.col = m_->col.get();
  a.val = &m_->val.buffer();
  a.order = csr_->order.get();
  a.ent = csr_->ent.get();
  a.dpos = csr_->dpos.get();
  if (opts_.variant == IluVariant::Ilu0) a.lu = const_cast<Buffer*>(&csr_->lu.buffer());
  a.dinv = const_cast<Buffer*>(&dinv_.buffer());
  a.pivot = pivot_.get();
  return a;
}

template <class T>
void Ilu0<T>::factor() {
  factored_ = false;
  Backend& be = dinv_.backend();
  auto k = be.ilu();
  k.reset_pivot(*pivot_);
  if (s7_) {
    const IluStencilArgs a = stencil_args();
    k.s7_factor(a, 0);
    k.s7_factor(a, 1);
  } else {
    IluCsrArgs a = csr_args();
    for (int c = 0; c < csr_->plan.colours; ++c) {
      a.first = csr_->plan.colour_ptr[static_cast<std::size_t>(c)];
      a.count = csr_->plan.colour_rows(c);
      a.colour = c;
      k.csr_factor(a);
    }
  }
  const IluPivot p = k.read_pivot(*pivot_);  // the one read of a factorisation
  if (p.bad()) {
    std::ostringstream o;
    o << to_string(opts_.variant) << " of ";
    if (s7_) {
      long i = 0, j = 0, kk = 0;
      phys::pf_ilu_s7_cell(s7_->box.view(), p.row, &i, &j, &kk);
      o << "the 7-point operator on " << s7_->box.describe() << ": a " << (s7_->block == 1 ? "zero" : "singular")
        << " pivot at cell (" << i << ", " << j << ", " << kk << ")";
    } else {
      o << "the CSR matrix (" << m_->rows << " rows): a " << (m_->block == 1 ? "zero" : "singular") << " pivot at row "
        << p.row;
    }
    o << " (colour " << p.colour << ", the first colour with one; zero, singular or not finite)";
    throw NumericalError(o.str());
  }
  factored_ = true;
}

template <class T>
void Ilu0<T>::apply(const Field<T>& r, Field<T>& z, Guard g) const {
  sweeps(r, z, nullptr, g);
}

template <class T>
void Ilu0<T>::apply_add(const Field<T>& r, Field<T>& z, Field<T>& sum, Guard g) const {
  sweeps(r, z, &sum, g);
}

template <class T>
void Ilu0<T>::sweeps(const Field<T>& r, Field<T>& z, Field<T>* sum, Guard g) const {
  if (!factored_) throw Error(describe() + ": applied before a successful update");
  const std::size_t n = s7_ ? s7_->vector_size() : m_->rows * static_cast<std::size_t>(m_->block);
  if (r.size() != n || z.size() != n || (sum && sum->size() != n))
    throw BackendError("ILU apply: r, z" + std::string(sum ? " and sum" : "") + " hold " + std::to_string(r.size()) + ", " +
                       std::to_string(z.size()) + (sum ? " and " + std::to_string(sum->size()) : "") +
                       " values, the operator's vectors " + std::to_string(n));
  auto k = dinv_.backend().ilu();
  Buffer* add = sum ? &sum->buffer() : nullptr;
  if (s7_) {
    IluStencilArgs a = stencil_args();
    a.r = &r.buffer();
    a.z = &z.buffer();
    a.guard = g.ctrl;
    k.s7_lower(a, 0);
    a.sum = add;  // the black cells' z is final after their forward sweep, the red cells' after the backward one
    k.s7_lower(a, 1);
    k.s7_upper(a);
    return;
  }
  IluCsrArgs a = csr_args();
  a.r = &r.buffer();
  a.z = &z.buffer();
  a.guard = g.ctrl;
  const IluCsrPlan& p = csr_->plan;
  auto at = [&](int c) {
    a.first = p.colour_ptr[static_cast<std::size_t>(c)];
    a.count = p.colour_rows(c);
    a.colour = c;
    // a row's z is final after the last colour's forward sweep or its own backward one
    a.sum = c == p.colours - 1 ? add : nullptr;
  };
  for (int c = 0; c < p.colours; ++c) at(c), k.csr_lower(a);
  // the last colour has nothing after it: its backward sweep is the identity
  for (int c = p.colours - 2; c >= 0; --c) at(c), a.sum = add, k.csr_upper(a);
}

template <class T>
int Ilu0<T>::colours() const {
  return s7_ ? 2 : csr_ ? csr_->plan.colours : 0;
}

template <class T>
int Ilu0<T>::launches_per_apply() const {
  return s7_ ? 3 : csr_ ? 2 * csr_->plan.colours - 1 : 0;
}

template <class T>
int Ilu0<T>::launches_per_factor() const {
  return s7_ ? 2 : csr_ ? csr_->plan.colours : 0;
}

template <class T>
std::string Ilu0<T>::describe() const {
  std::ostringstream o;
  if (s7_) {
    // red-black keeps the 7-point pattern: no fill is dropped, ILU(0) and DILU are the same
    o << "ILU(0) = DILU in red-black order on the 7-point operator (" << s7_->box.describe() << ", blocks of " << s7_->block << ")";
  } else if (csr_) {
    o << to_string(opts_.variant) << " on block CSR (" << m_->rows << " rows, blocks of " << m_->block << ") in " << csr_->plan.colours
      << " colours (" << (opts_.colours.empty() ? "greedy" : "given") << ")";
  } else {
    o << to_string(opts_.variant) << " (not set up)";
  }
  return o.str();
}

template class Ilu0<float>;
template class Ilu0<double>;

}  // namespace poreflow::linalg
