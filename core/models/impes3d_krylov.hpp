#pragma once
// impes3d's pressure increment by a preconditioned Krylov solver (pressure.solver = "cg" or
// "bicgstab", pressure.preconditioner = "amg", "ilu0" or "jacobi"; docs/impes3d.md): the system
// the assembly and the wells wrote for SOR (sor3d's colour-packed rows, each divided by the cell's
// pore volume) becomes a 7-point operator on the device (stencil7 from_sor) with each row
// multiplied back by its pore volume, which makes it symmetric where the formation volume factors
// of neighbours agree (CG needs that; BiCGSTAB does not). The preconditioner is set up once and
// refreshed with each solve's values (AMG: its finest level every solve, its coarse levels every
// pressure.amg_reuse solves or when the solves slow down). The solve stops when
// ||r||_2 <= tolerance x ||pv||_2: the pore-volume-weighted RMS of the cells' volume errors
// (fractions of their pore volumes, SOR's measure) is at most the tolerance. A well on rate control has its BHP as an unknown: the
// operator is the 7-point one plus each such well's coupling of its completions' rows (impes3d's
// wells_apply), the preconditioner is set up from the 7-point part alone.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/comm/halo_exchange.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/impes3d.hpp"
#include "core/linalg/krylov.hpp"
#include "core/linalg/linear_operator.hpp"
#include "core/linalg/stencil7.hpp"
#include "core/models/impes3d_input.hpp"
#include "core/models/state.hpp"

namespace poreflow {

// the 7-point operator and the rate wells' couplings (the wells as the step prepared them)
template <class T>
class ImpesWellOperator final : public linalg::LinearOperator<T> {
 public:
  explicit ImpesWellOperator(linalg::Stencil7Operator<T>& op) : op_(op) {}
  void set_wells(const Impes3DWellArgs* w) { wells_ = w; }
  Backend& backend() const override { return op_.backend(); }
  std::size_t size() const override { return op_.size(); }
  int block() const override { return op_.block(); }
  void apply(const Field<T>& x, Field<T>& y, linalg::Guard g) const override;
  void residual(const Field<T>& b, const Field<T>& x, Field<T>& r, linalg::Guard g) const override;
  std::string describe() const override { return op_.describe() + " with the rate wells' BHP"; }
  std::string describe_row(std::size_t row) const override { return op_.describe_row(row); }

 private:
  void couple(const Field<T>& x, Field<T>& y, double sign, linalg::Guard g) const;
  linalg::Stencil7Operator<T>& op_;
  const Impes3DWellArgs* wells_ = nullptr;
};

// What AMG's kept coarse levels (pressure.amg_reuse) cost, held by the step, which keeps it as
// restart state; SOR's runs carry it as zeros, so either solver's checkpoint has the same records
struct AmgReuseCounts {
  long whole_updates = 0;       // every level refreshed (the first set-up included)
  long retried = 0;             // solves with kept coarse levels that failed and were made again
  long retried_iterations = 0;  // their iterations (counted in the pressure iterations too)
  void bind(State& s);
};

template <class T>
class ImpesKrylovPressure {
 public:
  // box: the pressure's box; pv: its pore volumes (extent values, 0 in inactive cells and the halo)
  // halo: the exchange of a decomposed run's ghosts (nullptr in one process)
  ImpesKrylovPressure(Backend& be, const Communicator& comm, const Box3& box, const Field<T>& pv, const ImpesNumerics& nm,
                      AmgReuseCounts& counts, const HaloExchange* halo = nullptr);
  ~ImpesKrylovPressure();

  // Solves the system in sor3d's coefficients `rb` and the rate wells' couplings (wells, as
  // prepared for the step) for dp (its first guess in, the increment out). Every solve made, in
  // order: the last is the answer's; a failed one with kept coarse levels comes before it.
  std::vector<linalg::KrylovResult> solve(const Field<T>& rb, Field<T>& dp, double tolerance, const Impes3DWellArgs& wells);
  std::string describe() const;
  // seconds_preconditioner_update (the setups and refreshes, each with its wait for the queued
  // work), and with AMG its whole refreshes and the solves made again
  void add_stats(std::map<std::string, double>& s) const;

 private:
  void update(bool whole);  // the preconditioner for op_'s values: every level, or the finest alone
  Backend& be_;
  const Field<T>& pv_;
  double pv_norm_ = 0;
  linalg::Stencil7Matrix<T> m_;
  linalg::Stencil7Operator<T> op_;
  ImpesWellOperator<T> wop_;
  Field<T> b_;
  std::unique_ptr<linalg::Preconditioner<T>> M_;
  std::unique_ptr<linalg::KrylovSolver<T>> ks_;
  double seconds_update_ = 0;
  bool amg_ = false;
  long reuse_ = 1;  // pressure.amg_reuse (1 without AMG: every update whole)
  // solves since the last whole update (-1: none yet, as after a restart, whose checkpoint holds no
  // AMG), the iterations of the first after it and of the last
  long since_whole_ = -1, fresh_iterations_ = 0, last_iterations_ = 0;
  AmgReuseCounts& counts_;
  Field<T> guess_;  // a solve's first guess, kept while the coarse levels are reused
};

}  // namespace poreflow
