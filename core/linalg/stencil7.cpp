#include "core/linalg/stencil7.hpp"

#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/kernels/stencil7.hpp"

namespace poreflow::linalg {

template <class T>
Stencil7Matrix<T>::Stencil7Matrix(Backend& be, const Box3& b, int blk)
    : box(b), block(blk), coef(be, kStencilPlanes * static_cast<std::size_t>(blk * blk) * b.extent()) {
  if (blk != 1 && blk != 2) throw ConfigError("a 7-point operator has blocks of 1 or 2 unknowns, not " + std::to_string(blk));
  if (b.halo < 1) throw ConfigError("a 7-point operator's box needs a halo of at least 1 (" + b.describe() + ")");
  coef.fill(T(0));
  // every cell of the box an unknown until the owner says otherwise
  std::vector<int> a(b.extent(), 0);
  for (long k = 0; k < b.nz; ++k)
    for (long j = 0; j < b.ny; ++j)
      for (long i = 0; i < b.nx; ++i) a[static_cast<std::size_t>(b.at(i, j, k))] = 1;
  active = be.alloc(a.size() * sizeof(int));
  be.upload(*active, a.data(), a.size() * sizeof(int));
}

template struct Stencil7Matrix<float>;
template struct Stencil7Matrix<double>;

namespace {

template <class T>
void check_vector(const Stencil7Operator<T>& op, const Field<T>& v, const char* what, const char* name) {
  if (v.size() != op.size())
    throw ConfigError(std::string(what) + ": " + name + " has " + std::to_string(v.size()) + " values, the operator " +
                      std::to_string(op.size()) + " (" + op.describe() + ")");
  if (&v.backend() != &op.backend()) throw ConfigError(std::string(what) + ": " + name + " is on another backend");
}

}  // namespace

template <class T>
void Stencil7Operator<T>::apply(const Field<T>& x, Field<T>& y, Guard g) const {
  check_vector(*this, x, "7-point apply", "x");
  check_vector(*this, y, "7-point apply", "y");
  fill_ghosts(x);
  backend().stencil7().apply({precision_of<T>(), m_.box, m_.block, &m_.coef.buffer(), m_.active.get(), &x.buffer(), nullptr,
                              &y.buffer(), g.ctrl});
  clear_ghosts(x);
}

template <class T>
void Stencil7Operator<T>::chebyshev_step(const Field<T>& b, const Field<T>& x, Field<T>& x_out, Field<T>& d,
                                         const Field<T>& dinv, double alpha, double beta, Guard g) const {
  const char* w = "7-point Chebyshev step";
  if (m_.block != 1) throw ConfigError(std::string(w) + ": a scalar operator's, not " + describe());
  check_vector(*this, b, w, "b");
  check_vector(*this, x, w, "x");
  check_vector(*this, x_out, w, "x_out");
  check_vector(*this, d, w, "the direction");
  check_vector(*this, dinv, w, "the inverse diagonal");
  fill_ghosts(x);
  Stencil7ChebyshevArgs a;
  a.prec = precision_of<T>();
  a.box = m_.box;
  a.coef = &m_.coef.buffer();
  a.active = m_.active.get();
  a.dinv = &dinv.buffer();
  a.b = &b.buffer();
  a.x = &x.buffer();
  a.d = &d.buffer();
  a.x_out = &x_out.buffer();
  a.alpha = alpha;
  a.beta = beta;
  a.guard = g.ctrl;
  backend().stencil7().chebyshev(a);
  clear_ghosts(x);
}

template <class T>
void Stencil7Operator<T>::chebyshev_start(const Field<T>& b, Field<T>& x_out, Field<T>& d, const Field<T>& dinv, double start,
                                          double alpha, double beta, Field<T>* r, Guard g) const {
  const char* w = "7-point Chebyshev step from zero";
  if (m_.block != 1) throw ConfigError(std::string(w) + ": a scalar operator's, not " + describe());
  if (ex_) throw ConfigError(std::string(w) + ": a decomposed operator exchanges x's ghosts, and this step reads b's");
  if (start == 0) throw ConfigError(std::string(w) + ": the first step's coefficient is 0");
  check_vector(*this, b, w, "b");
  check_vector(*this, x_out, w, "x_out");
  check_vector(*this, d, w, "the direction");
  check_vector(*this, dinv, w, "the inverse diagonal");
  if (r) check_vector(*this, *r, w, "r");
  Stencil7ChebyshevArgs a;
  a.prec = precision_of<T>();
  a.box = m_.box;
  a.coef = &m_.coef.buffer();
  a.active = m_.active.get();
  a.dinv = &dinv.buffer();
  a.b = &b.buffer();
  a.d = &d.buffer();
  a.x_out = &x_out.buffer();
  a.r = r ? &r->buffer() : nullptr;
  a.alpha = alpha;
  a.beta = beta;
  a.start = start;
  a.guard = g.ctrl;
  backend().stencil7().chebyshev(a);
}

template <class T>
void Stencil7Operator<T>::set_exchange(const HaloExchange* e) {
  if (e && e->block() != m_.block)
    throw ConfigError("a decomposed 7-point operator of " + std::to_string(m_.block) + " unknowns a cell with an exchange of " +
                      std::to_string(e->block()) + " values a cell");
  if (e && (e->box().nx != m_.box.nx || e->box().ny != m_.box.ny || e->box().nz != m_.box.nz || e->box().off != m_.box.off ||
            e->box().sy != m_.box.sy || e->box().sz != m_.box.sz || e->box().halo != m_.box.halo))
    throw ConfigError("a decomposed 7-point operator: the exchange's box " + e->box().describe() + " is not the matrix's " +
                      m_.box.describe());
  ex_ = e;
}

// The ghosts of x are the operator's: written before a product, zero again after it (x is the
// caller's const input; only entries that belong to no row change, and they hold 0 outside products).
template <class T>
void Stencil7Operator<T>::fill_ghosts(const Field<T>& x) const {
  if (ex_) ex_->exchange(const_cast<Buffer&>(x.buffer()));
}

template <class T>
void Stencil7Operator<T>::clear_ghosts(const Field<T>& x) const {
  if (ex_) ex_->clear(const_cast<Buffer&>(x.buffer()));
}

template <class T>
void Stencil7Operator<T>::residual(const Field<T>& b, const Field<T>& x, Field<T>& r, Guard g) const {
  check_vector(*this, b, "7-point residual", "b");
  check_vector(*this, x, "7-point residual", "x");
  check_vector(*this, r, "7-point residual", "r");
  fill_ghosts(x);
  backend().stencil7().apply({precision_of<T>(), m_.box, m_.block, &m_.coef.buffer(), m_.active.get(), &x.buffer(),
                              &b.buffer(), &r.buffer(), g.ctrl});
  clear_ghosts(x);
}

template <class T>
std::string Stencil7Operator<T>::describe() const {
  return "7-point operator on " + m_.box.describe() + (m_.block == 2 ? ", 2 x 2 blocks" : "");
}

template <class T>
std::string Stencil7Operator<T>::describe_row(std::size_t row) const {
  const Box3& b = m_.box;
  const long L = static_cast<long>(row / static_cast<std::size_t>(m_.block));
  const int u = static_cast<int>(row % static_cast<std::size_t>(m_.block));
  std::string s = "row " + std::to_string(row) + ": ";
  const long rel = L - b.off;
  // the pitches keep a cell's i + j sy below sz (check_box), so the division recovers (i, j, k)
  if (rel >= 0) {
    const long k = rel / b.sz, j = (rel % b.sz) / b.sy, i = rel % b.sy;
    if (i < b.nx && j < b.ny && k < b.nz)
      return s + "cell (" + std::to_string(i) + ", " + std::to_string(j) + ", " + std::to_string(k) + "), unknown " +
             std::to_string(u);
  }
  return s + "entry " + std::to_string(L) + " of the box's arrays (no cell of the box), unknown " + std::to_string(u);
}

template class Stencil7Operator<float>;
template class Stencil7Operator<double>;

}  // namespace poreflow::linalg
