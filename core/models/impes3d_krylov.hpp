#pragma once
// impes3d's pressure increment by a preconditioned Krylov solver (pressure.solver = "cg" or
// "bicgstab", pressure.preconditioner = "amg", "ilu0" or "jacobi"; docs/impes3d.md): the system
// the assembly and the wells wrote for SOR (sor3d's colour-packed rows, each divided by the cell's
// pore volume) becomes a 7-point operator on the device (stencil7 from_sor) with each row
// multiplied back by its pore volume, which makes it symmetric where the formation volume factors
// of neighbours agree (CG needs that; BiCGSTAB does not). The preconditioner is set up once and
// refreshed with each step's values. The solve stops when ||r||_2 <= tolerance x ||pv||_2: the
// pore-volume-weighted RMS of the cells' volume errors (fractions of their pore volumes, SOR's
// measure) is at most the tolerance.
#include <memory>
#include <string>

#include "core/comm/communicator.hpp"
#include "core/kernels/field.hpp"
#include "core/linalg/krylov.hpp"
#include "core/linalg/linear_operator.hpp"
#include "core/linalg/stencil7.hpp"
#include "core/models/impes3d_input.hpp"

namespace poreflow {

template <class T>
class ImpesKrylovPressure {
 public:
  // box: the pressure's box; pv: its pore volumes (extent values, 0 in inactive cells and the halo)
  ImpesKrylovPressure(Backend& be, const Communicator& comm, const Box3& box, const Field<T>& pv, const ImpesNumerics& nm);
  ~ImpesKrylovPressure();

  // Solves the system in sor3d's coefficients `rb` for dp (its first guess in, the increment out).
  linalg::KrylovResult solve(const Field<T>& rb, Field<T>& dp, double tolerance);
  std::string describe() const;
  double seconds_update() const { return seconds_update_; }  // the preconditioner's setups and refreshes

 private:
  Backend& be_;
  const Field<T>& pv_;
  double pv_norm_ = 0;
  linalg::Stencil7Matrix<T> m_;
  linalg::Stencil7Operator<T> op_;
  Field<T> b_;
  std::unique_ptr<linalg::Preconditioner<T>> M_;
  std::unique_ptr<linalg::KrylovSolver<T>> ks_;
  double seconds_update_ = 0;
};

}  // namespace poreflow
