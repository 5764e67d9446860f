#include "core/linalg/cpr.hpp"

#include <sstream>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/base/error.hpp"
#include "core/kernels/cpr.hpp"
#include "core/kernels/vec.hpp"

namespace poreflow::linalg {

template <class T>
Cpr<T>::Cpr(CprOptions o, const Communicator& comm) : o_(o), comm_(comm), amg_(o.amg, comm), ilu_(o.smoother) {
  if constexpr (std::is_same_v<T, double>) {
    if (o_.float_pressure) famg_ = std::make_unique<FloatPreconditioner>(std::make_unique<Amg<float>>(o_.amg, comm));
  }
}

template <class T>
Preconditioner<T>& Cpr<T>::pressure_stage() {
  if constexpr (std::is_same_v<T, double>) {
    if (famg_) return *famg_;
  }
  return amg_;
}

template <class T>
const Preconditioner<T>& Cpr<T>::pressure_stage() const {
  if constexpr (std::is_same_v<T, double>) {
    if (famg_) return *famg_;
  }
  return amg_;
}

template <class T>
const Amg<float>* Cpr<T>::pressure_amg_float() const {
  if constexpr (std::is_same_v<T, float>) return &amg_;
  else return famg_ ? &dynamic_cast<const Amg<float>&>(famg_->inner()) : nullptr;
}

template <class T>
const AmgHierarchy& Cpr<T>::pressure_hierarchy() const {
  if (const auto* a = pressure_amg()) return a->hierarchy();
  return pressure_amg_float()->hierarchy();
}

template <class T>
double Cpr<T>::pressure_setup_seconds() const {
  if (const auto* a = pressure_amg()) return a->setup_seconds();
  return pressure_amg_float()->setup_seconds();
}

template <class T>
Cpr<T>::~Cpr() = default;

template <class T>
void Cpr<T>::update(const LinearOperator<T>& A) {
  update(A, true);
}

template <class T>
void Cpr<T>::update(const LinearOperator<T>& A, bool pressure_stage) {
  if (A.block() != 2)
    throw ConfigError("CPR preconditions systems of 2 x 2 blocks (pressure and a second unknown per cell); " + A.describe() +
                      " has blocks of " + std::to_string(A.block()));
  if (&A != op_) {
    setup(A);
    pressure_stage = true;
  }
  compute_pressure_matrix(pressure_stage);
  if (pressure_stage) this->pressure_stage().update(*pop_);
  if (s7_) ilu_.update(*s7_);
  else ilu_.update(*csr_);
}

template <class T>
const Field<T>& Cpr<T>::pressure_values() const {
  if (!ps7_) throw ConfigError("CPR: the pressure values are kept for a 7-point operator only, after an update");
  return ps7_->coef;
}

template <class T>
void Cpr<T>::restore_pressure_stage(const LinearOperator<T>& A, const Field<T>& setup_values, const Field<T>& refresh_values) {
  if (&A != op_) setup(A);
  if (!ps7_) throw ConfigError("CPR: a pressure stage is restored for a 7-point operator only, not " + A.describe());
  Backend& be = A.backend();
  const std::size_t bytes = ps7_->coef.size() * sizeof(T);
  if (setup_values.size() != ps7_->coef.size() || refresh_values.size() != ps7_->coef.size())
    throw ConfigError("CPR: the restored pressure values do not fit " + A.describe());
  // a fresh operator object makes the AMG set up anew from the values it holds
  pop_ = std::make_unique<Stencil7Operator<T>>(*ps7_);
  be.copy(setup_values.buffer(), ps7_->coef.buffer(), bytes);
  pressure_stage().update(*pop_);
  be.copy(refresh_values.buffer(), ps7_->coef.buffer(), bytes);
  pressure_stage().update(*pop_);
}

template <class T>
void Cpr<T>::setup(const LinearOperator<T>& A) {
  Backend& be = A.backend();
  s7_ = nullptr;
  csr_ = nullptr;
  ps7_.reset();
  pcsr_.reset();
  diag_pos_.reset();
  rows_.reset();
  if (const auto* s = dynamic_cast<const Stencil7Operator<T>*>(&A)) {
    s7_ = &s->matrix();
    cells_ = s7_->extent();
    ps7_ = std::make_unique<Stencil7Matrix<T>>(be, s7_->box, 1);
    be.copy(*s7_->active, *ps7_->active, cells_ * sizeof(int));
    pop_ = std::make_unique<Stencil7Operator<T>>(*ps7_);
    amg_.set_ghosts(s->exchange());  // the pressure AMG's coarse level across processes
    if (famg_) {  // the float AMG's: a scalar exchange of floats over the same boxes, or none
      auto next = s->exchange() ? std::make_unique<HaloExchange>(*s->exchange(), 1, Precision::Float) : nullptr;
      dynamic_cast<Amg<float>&>(famg_->inner()).set_ghosts(next.get());
      fghosts_ = std::move(next);  // the last exchange goes after the AMG stopped naming it
    }
  } else if (const auto* c = dynamic_cast<const CsrOperator<T>*>(&A)) {
    csr_ = &c->matrix();
    cells_ = csr_->rows;
    // the pattern once to the host: the pressure matrix has it too, with the rows of its entries
    CsrPattern p;
    p.rows = csr_->rows;
    p.cols = csr_->cols;
    p.ptr.resize(p.rows + 1);
    be.download(*csr_->ptr, p.ptr.data(), p.ptr.size() * sizeof(int));
    p.col.resize(csr_->nnz);
    if (csr_->nnz) be.download(*csr_->col, p.col.data(), p.col.size() * sizeof(int));
    std::vector<int> dpos(p.rows, -1), rows(std::max<std::size_t>(p.nnz(), 1), 0);
    for (std::size_t r = 0; r < p.rows; ++r)
      for (int k = p.ptr[r]; k < p.ptr[r + 1]; ++k) {
        rows[static_cast<std::size_t>(k)] = static_cast<int>(r);
        if (static_cast<std::size_t>(p.col[static_cast<std::size_t>(k)]) == r) dpos[r] = k;
      }
    diag_pos_ = be.alloc(std::max<std::size_t>(dpos.size(), 1) * sizeof(int));
    if (!dpos.empty()) be.upload(*diag_pos_, dpos.data(), dpos.size() * sizeof(int));
    rows_ = be.alloc(rows.size() * sizeof(int));
    be.upload(*rows_, rows.data(), rows.size() * sizeof(int));
    pcsr_ = std::make_unique<CsrMatrix<T>>(be, p, 1);
    pop_ = std::make_unique<CsrOperator<T>>(*pcsr_);
  } else {
    throw ConfigError("CPR needs a 7-point or CSR operator of 2 x 2 blocks, not " + A.describe());
  }
  op_ = &A;
  w_ = Field<T>(be, 2 * cells_);
  rp_ = Field<T>(be, cells_);
  xp_ = Field<T>(be, cells_);
  r2_ = Field<T>(be, 2 * cells_);
  z2_ = Field<T>(be, 2 * cells_);
  for (Field<T>* f : {&w_, &rp_, &xp_, &r2_, &z2_}) f->fill(T(0));
}

template <class T>
void Cpr<T>::compute_pressure_matrix(bool matrix) {
  Backend& be = op_->backend();
  const Precision prec = precision_of<T>();
  CprKernels k = be.cpr();
  if (s7_) {
    // the diagonal plane's blocks are the first cells_ blocks of the coefficients
    k.weights({prec, cells_, nullptr, &s7_->coef.buffer(), &w_.buffer(), cells_});
    if (matrix)
      k.pressure({prec, kStencilPlanes * cells_, cells_, nullptr, &w_.buffer(), &s7_->coef.buffer(), &ps7_->coef.buffer(), cells_});
  } else {
    k.weights({prec, cells_, diag_pos_.get(), &csr_->val.buffer(), &w_.buffer(), csr_->nnz});
    if (matrix) k.pressure({prec, csr_->nnz, 0, rows_.get(), &w_.buffer(), &csr_->val.buffer(), &pcsr_->val.buffer(), cells_});
  }
}

template <class T>
void Cpr<T>::apply(const Field<T>& r, Field<T>& z, Guard g) const {
  if (!op_) throw Error("CPR: apply before update");
  if (r.size() != op_->size() || z.size() != op_->size())
    throw ConfigError("CPR: vectors of " + std::to_string(r.size()) + " and " + std::to_string(z.size()) +
                      " values for an operator of " + std::to_string(op_->size()));
  Backend& be = op_->backend();
  const Precision prec = precision_of<T>();
  CprKernels k = be.cpr();
  // 1. the pressure stage: z = E_p AMG(W^T r)
  k.restrict_residual({prec, cells_, &w_.buffer(), &r.buffer(), &rp_.buffer(), g.ctrl});
  pressure_stage().apply(rp_, xp_, g);
  k.prolong({prec, cells_, &xp_.buffer(), &z.buffer(), g.ctrl});
  // 2. the whole system on what the pressure left: z += ILU (r - A z), the sum in the ILU's sweeps
  op_->residual(r, z, r2_, g);
  ilu_.apply_add(r2_, z2_, z, g);
}

template <class T>
std::string Cpr<T>::describe() const {
  std::ostringstream o;
  o << "CPR (quasi-IMPES weights; pressure: " << pressure_stage().describe() << "; whole system: " << ilu_.describe() << ")";
  return o.str();
}

template class Cpr<float>;
template class Cpr<double>;

}  // namespace poreflow::linalg
