#pragma once
// A preconditioner applied in float under a solve in double (docs/linalg.md, "Float
// preconditioners"):
//
//   z = widen(M_f^-1 narrow(r)),   M_f set up from the operator's values rounded to float
//
// The preconditioner is only an approximation of A^-1, so its float rounding (about 6e-8) costs the
// solve little, while it halves the bytes its cycles move: an AMG V-cycle moves most of a CG
// iteration's bytes. The solve itself, its residual and its stop stay in double, so the solution
// reaches a double tolerance. The operator's float copy is made on the device at each update:
// its values narrowed (vec narrow), its pattern (a 7-point box's active cells, a CSR matrix's
// columns) copied once. A decomposed stencil operator's copy exchanges float ghosts.
#include <memory>
#include <string>

#include "core/comm/halo_exchange.hpp"
#include "core/linalg/csr.hpp"
#include "core/linalg/linear_operator.hpp"
#include "core/linalg/stencil7.hpp"

namespace poreflow::linalg {

class FloatPreconditioner final : public Preconditioner<double> {
 public:
  // inner: the preconditioner applied in float (AMG, ILU(0), Jacobi)
  explicit FloatPreconditioner(std::unique_ptr<Preconditioner<float>> inner);
  ~FloatPreconditioner() override;

  // A Stencil7Operator or CsrOperator in double; anything else is a ConfigError naming it. The
  // first update with an operator makes its float copy; later ones narrow its values again.
  void update(const LinearOperator<double>& A) override;
  // the values narrowed again, the inner preconditioner updated partly (the whole update for a new operator)
  void update_partly(const LinearOperator<double>& A) override;
  void apply(const Field<double>& r, Field<double>& z, Guard g) const override;
  std::string describe() const override;

  const Preconditioner<float>& inner() const { return *inner_; }
  Preconditioner<float>& inner() { return *inner_; }  // its settings before the first update (AMG's ghosts)
  // the operator's float copy the inner preconditioner was set up from (nullptr before update)
  const LinearOperator<float>* float_operator() const { return c_.fop.get(); }

 private:
  // the operator's float copy and the vectors of an apply
  struct Copy {
    std::unique_ptr<Stencil7Matrix<float>> s7;
    std::unique_ptr<CsrMatrix<float>> csr;
    std::unique_ptr<HaloExchange> ex;
    std::unique_ptr<LinearOperator<float>> fop;
    Field<float> rf, zf;
  };
  static Copy make_copy(const LinearOperator<double>& A);
  void narrow_values(const LinearOperator<double>& A) const;

  std::unique_ptr<Preconditioner<float>> inner_;
  const LinearOperator<double>* op_ = nullptr;  // set when the inner preconditioner holds A's values
  mutable Copy c_;  // an apply writes its vectors
};

}  // namespace poreflow::linalg
