#include "core/models/impes3d_krylov.hpp"

#include <cmath>
#include <type_traits>
#include <vector>

#include "core/base/error.hpp"
#include "core/kernels/program_builds.hpp"
#include "core/kernels/stencil7.hpp"
#include "core/linalg/amg.hpp"
#include "core/linalg/float_preconditioner.hpp"
#include "core/linalg/ilu.hpp"
#include "core/linalg/jacobi.hpp"

namespace poreflow {

const char* to_string(PressureSolver s) {
  switch (s) {
    case PressureSolver::Sor: return "sor";
    case PressureSolver::Cg: return "cg";
    case PressureSolver::Bicgstab: return "bicgstab";
  }
  return "?";
}

const char* to_string(PressurePreconditioner p) {
  switch (p) {
    case PressurePreconditioner::Amg: return "amg";
    case PressurePreconditioner::Ilu0: return "ilu0";
    case PressurePreconditioner::Jacobi: return "jacobi";
  }
  return "?";
}

template <class T>
ImpesKrylovPressure<T>::ImpesKrylovPressure(Backend& be, const Communicator& comm, const Box3& box, const Field<T>& pv,
                                            const ImpesNumerics& nm, AmgReuseCounts& counts, const HaloExchange* halo)
    : be_(be), pv_(pv), m_(be, box, 1), op_(m_), wop_(op_), b_(be, box.extent()),
      amg_(nm.preconditioner == PressurePreconditioner::Amg), reuse_(amg_ ? nm.amg_reuse : 1), counts_(counts) {
  op_.set_exchange(halo);
  b_.fill(T(0));
  // the scale of the stop: ||pv||_2 over every process's cells, once
  double s = 0;
  for (T v : pv.download()) s += double(v) * double(v);
  pv_norm_ = std::sqrt(comm.sum(s));
  if (!(pv_norm_ > 0)) throw ConfigError("impes3d: no cell has pore volume; the pressure has no unknown");
  switch (nm.preconditioner) {
    case PressurePreconditioner::Amg: {
      linalg::AmgConfig c;
      c.across = nm.amg_across;
      c.kind = nm.amg_chebyshev;
      c.tail_rows = nm.amg_tail_rows;
      c.setup.strength = nm.amg_strength;
      c.setup.fallback = nm.amg_fallback;
      c.setup.keys = "pressure";
      // in float under a double solve when asked; a float model's AMG is float already
      if constexpr (std::is_same_v<T, double>) {
        if (nm.amg_float) {
          M_ = std::make_unique<linalg::FloatPreconditioner>(std::make_unique<linalg::Amg<float>>(c, comm));
          break;
        }
      }
      M_ = std::make_unique<linalg::Amg<T>>(c, comm);
      break;
    }
    case PressurePreconditioner::Ilu0: M_ = std::make_unique<linalg::Ilu0<T>>(); break;
    case PressurePreconditioner::Jacobi: M_ = std::make_unique<linalg::JacobiPreconditioner<T>>(); break;
  }
  linalg::KrylovOptions o;
  o.method = nm.solver == PressureSolver::Cg ? linalg::KrylovMethod::CG : linalg::KrylovMethod::BiCGSTAB;
  o.max_iterations = nm.max_iterations;
  o.record = nm.cuda_graphs;
  ks_ = std::make_unique<linalg::KrylovSolver<T>>(wop_, o, comm);
}

template <class T>
ImpesKrylovPressure<T>::~ImpesKrylovPressure() = default;

template <class T>
std::vector<linalg::KrylovResult> ImpesKrylovPressure<T>::solve(const Field<T>& rb, Field<T>& dp, double tolerance,
                                                                const Impes3DWellArgs& wells) {
  wop_.set_wells(&wells);
  be_.stencil7().from_sor({precision_of<T>(), m_.box, &rb.buffer(), &pv_.buffer(), &m_.coef.buffer(), &b_.buffer()});
  // Every level again after reuse_ solves, or sooner when the last solve took more than 1.5 times
  // the iterations of the first after the last whole update, plus 1 (with 1 or 2 iterations fresh,
  // 3 or 4 refresh); else the finest level alone (Amg::update_partly). The iteration counts are
  // global, so every process decides alike.
  bool whole = since_whole_ < 0 || since_whole_ + 1 >= reuse_ || last_iterations_ > fresh_iterations_ + 1 + fresh_iterations_ / 2;
  const std::size_t bytes = dp.size() * sizeof(T);
  if (!whole) {
    if (guess_.size() != dp.size()) guess_ = Field<T>(be_, dp.size());
    be_.copy(dp.buffer(), guess_.buffer(), bytes);  // the first guess, for a solve again
  }
  update(whole);
  ks_->set_tolerance(tolerance, pv_norm_);
  std::vector<linalg::KrylovResult> tries{ks_->solve(b_, dp, *M_)};
  if (!whole && !tries.back().converged) {
    // coarse levels kept from earlier solves that no longer fit: the same solve again, every level fresh
    ++counts_.retried;
    counts_.retried_iterations += tries.back().iterations;
    be_.copy(guess_.buffer(), dp.buffer(), bytes);
    whole = true;
    update(whole);
    tries.push_back(ks_->solve(b_, dp, *M_));
  }
  since_whole_ = whole ? 0 : since_whole_ + 1;
  if (whole) fresh_iterations_ = tries.back().iterations;
  last_iterations_ = tries.back().iterations;
  wop_.set_wells(nullptr);
  return tries;
}

template <class T>
void ImpesKrylovPressure<T>::update(bool whole) {
  const PartTimer timer;
  if (whole) {
    M_->update(op_);
    ++counts_.whole_updates;
  } else {
    M_->update_partly(op_);
  }
  be_.sync();  // the update's time alone (one wait a step)
  seconds_update_ += timer.seconds();
}

template <class T>
void ImpesKrylovPressure<T>::add_stats(std::map<std::string, double>& s) const {
  s["seconds_preconditioner_update"] = seconds_update_;
  if (!amg_) return;
  s["pressure_amg_refreshes"] = double(counts_.whole_updates);  // every level (the first set-up included)
  s["pressure_solves_retried"] = double(counts_.retried);  // again with every level fresh, after a failed solve
  s["pressure_iterations_retried"] = double(counts_.retried_iterations);  // those failed solves' iterations
}

template <class T>
std::string ImpesKrylovPressure<T>::describe() const {
  return std::string(to_string(ks_->options().method)) + " + " + M_->describe();
}

void AmgReuseCounts::bind(State& s) {
  s.value("pressure_amg_refreshes", whole_updates);
  s.value("pressure_solves_retried", retried);
  s.value("pressure_iterations_retried", retried_iterations);
}

template <class T>
void ImpesWellOperator<T>::couple(const Field<T>& x, Field<T>& y, double sign, linalg::Guard g) const {
  if (!wells_ || wells_->wells == 0) return;
  Impes3DWellArgs a = *wells_;
  a.x = &x.buffer();
  a.y = &y.buffer();
  a.sign = sign;
  a.guard = g.ctrl;
  backend().impes3d().wells_apply(a);
}

template <class T>
void ImpesWellOperator<T>::apply(const Field<T>& x, Field<T>& y, linalg::Guard g) const {
  op_.apply(x, y, g);
  couple(x, y, -1, g);
}

template <class T>
void ImpesWellOperator<T>::residual(const Field<T>& b, const Field<T>& x, Field<T>& r, linalg::Guard g) const {
  op_.residual(b, x, r, g);
  couple(x, r, 1, g);
}

template class ImpesWellOperator<float>;
template class ImpesWellOperator<double>;
template class ImpesKrylovPressure<float>;
template class ImpesKrylovPressure<double>;

}  // namespace poreflow
