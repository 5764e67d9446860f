#pragma once
// CPR (constrained pressure residual) for systems of 2 x 2 blocks, pressure the first unknown of
// each cell (docs/linalg.md, "CPR"): a two-stage preconditioner
//
//   1. the pressure stage: r_p = W^T r (the cells' quasi-IMPES weights, core/physics/cpr.h),
//      x_p = AMG(A_p) r_p with A_p = W^T A E_p the pressure matrix, z = E_p x_p
//   2. the whole system: z += ILU0(A) (r - A z)   (or DILU)
//
// for a 2 x 2 block Stencil7Operator or CsrOperator. The first update() with an operator sets up
// (the pressure matrix's storage and pattern, the AMG hierarchy, the ILU ordering); a later
// update() with the same operator recomputes the weights and the pressure matrix on the device and
// refreshes AMG's and ILU's values (a Newton iteration changes values, not the pattern).
#include <memory>
#include <string>

#include "core/linalg/amg.hpp"
#include "core/linalg/csr.hpp"
#include "core/linalg/float_preconditioner.hpp"
#include "core/linalg/ilu.hpp"
#include "core/linalg/linear_operator.hpp"
#include "core/linalg/stencil7.hpp"

namespace poreflow::linalg {

// The pressure stage's AMG keeps the Gershgorin bounds and the textbook prolongator omega of 4/3.
// With the power estimates (AmgOptions::spectrum_iterations) the fully implicit SPE10 deck's linear
// solves failed (353 step cuts by day 1306, against 4 in the whole run before): CPR reuses the
// hierarchy while the pressure values move, and its finest level smooths the live operator with
// the last refresh's bound, whose Gershgorin margin covered that drift (docs/linalg.md).
inline AmgConfig cpr_pressure_amg() {
  AmgConfig c;
  c.setup.omega_scale = 4.0 / 3.0;
  c.setup.spectrum_iterations = 0;
  // the coarse level across processes after each cycle: on four H200s it brought the SPE10 deck's
  // strong scaling on 4 GPUs from 0.10x to 0.50x, 0.67x on 2 (docs/benchmarks.md)
  c.across = AmgAcross::After;
  return c;
}

struct CprOptions {
  AmgConfig amg = cpr_pressure_amg();       // the pressure stage's AMG (one cycle an application)
  // the pressure stage's AMG in float under a double system (FloatPreconditioner): half the bytes
  // of its cycles and refreshes; the system's stage and the solve stay double. Cpr<float> is float.
  bool float_pressure = false;
  IluVariant smoother = IluVariant::Ilu0;   // the whole system's stage
};

template <class T>
class Cpr final : public Preconditioner<T> {
 public:
  explicit Cpr(CprOptions o = {}, const Communicator& comm = self_communicator());
  ~Cpr() override;

  // A 2 x 2 block Stencil7Operator or CsrOperator; anything else is a ConfigError naming it.
  void update(const LinearOperator<T>& A) override;
  // pressure_stage false: the weights and the whole system's ILU follow A's values, the pressure
  // stage keeps the AMG of the last refresh (the reuse OPM Flow's CPR makes between its setups; a
  // Newton iteration's pressure matrix changes little). The first update with A refreshes all.
  void update(const LinearOperator<T>& A, bool pressure_stage);
  void apply(const Field<T>& r, Field<T>& z, Guard g) const override;
  std::string describe() const override;

  // For a model that keeps the reused pressure stage as state (a restart must precondition alike):
  // the pressure matrix's values of the last update (a stencil's: 7 planes x extent), and the
  // pressure stage rebuilt as it was: its AMG set up from `setup`'s values, refreshed with
  // `refresh`'s. Stencil operators only.
  const Field<T>& pressure_values() const;
  void restore_pressure_stage(const LinearOperator<T>& A, const Field<T>& setup, const Field<T>& refresh);

  // the pressure stage's AMG: in T, or in float (CprOptions::float_pressure); one is null
  const Amg<T>* pressure_amg() const { return famg_ ? nullptr : &amg_; }
  const Amg<float>* pressure_amg_float() const;
  // its hierarchy and the host setup of its last new pattern, in whichever precision it runs
  const AmgHierarchy& pressure_hierarchy() const;
  double pressure_setup_seconds() const;
  // the pressure matrix's operator (for tests: its values are W^T A E_p)
  const LinearOperator<T>& pressure_operator() const { return *pop_; }
  const Field<T>& weights() const { return w_; }  // 2 a cell

 private:
  void setup(const LinearOperator<T>& A);
  void compute_pressure_matrix(bool matrix);

  CprOptions o_;
  const Communicator& comm_;
  const LinearOperator<T>* op_ = nullptr;
  const Stencil7Matrix<T>* s7_ = nullptr;
  const CsrMatrix<T>* csr_ = nullptr;
  std::size_t cells_ = 0;
  Field<T> w_;
  std::unique_ptr<Stencil7Matrix<T>> ps7_;  // the pressure matrix of a stencil
  std::unique_ptr<CsrMatrix<T>> pcsr_;      // or of a CSR matrix
  std::unique_ptr<Buffer> diag_pos_, rows_; // CSR: each row's diagonal entry, each entry's row
  std::unique_ptr<LinearOperator<T>> pop_;
  Amg<T> amg_;
  std::unique_ptr<FloatPreconditioner> famg_;  // float_pressure with T = double: its inner is an Amg<float>
  std::unique_ptr<HaloExchange> fghosts_;      // the float AMG's cells across processes (a scalar float exchange)
  Preconditioner<T>& pressure_stage();  // amg_, or famg_ where it is set
  const Preconditioner<T>& pressure_stage() const;
  Ilu0<T> ilu_;
  mutable Field<T> rp_, xp_, r2_, z2_;
};

}  // namespace poreflow::linalg
