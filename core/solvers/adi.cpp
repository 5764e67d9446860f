#include "core/solvers/adi.hpp"

#include <algorithm>
#include <cmath>

#include <limits>

#include <spdlog/spdlog.h>

#include "core/error.hpp"

namespace poreflow {

// The smallest residual reduction an iteration in T can resolve: a relative tolerance below it
// would never be met, so it is raised to this (and said once).
template <class T>
static double tolerance_floor() {
  return 50.0 * std::numeric_limits<T>::epsilon();
}

template <class T>
AdiSolver<T>::AdiSolver(Backend& be, const Adi2DGeom& g, const AdiOptions& opt)
    : aw(be, g.nx * g.ny),
      ae(be, g.nx * g.ny),
      as(be, g.nx * g.ny),
      an(be, g.nx * g.ny),
      d0(be, g.nx * g.ny),
      rhs(be, g.nx * g.ny),
      be_(be),
      g_(g),
      opt_(opt),
      a_(be, g.nx * g.ny),
      b_(be, g.nx * g.ny),
      c_(be, g.nx * g.ny),
      d_(be, g.nx * g.ny),
      half_(be, g.nx * g.ny),
      next_(be, g.nx * g.ny),
      best_(be, g.nx * g.ny) {
  be.check_reduce_config(opt.reduce);
  if (opt_.tolerance > 0 && opt_.tolerance < tolerance_floor<T>()) {
    spdlog::warn("ADI tolerance {:.2g} is below what {} resolves; using {:.2g}", opt_.tolerance,
                 to_string(precision_of<T>()), tolerance_floor<T>());
    opt_.tolerance = tolerance_floor<T>();
  }
}

template <class T>
double AdiSolver<T>::reduce(ReduceOp op, const Field<T>& a, const Field<T>* b) {
  ReduceArgs r;
  r.prec = precision_of<T>();
  r.op = op;
  r.cfg = opt_.reduce;
  r.a = &a.buffer();
  r.b = b ? &b->buffer() : nullptr;
  r.n = a.size();
  return be_.reduce(r);
}

template <class T>
void AdiSolver<T>::assemble(bool x_sweep, double r, const Field<T>& q) {
  Adi2DSweepArgs s;
  s.prec = precision_of<T>();
  s.g = g_;
  s.x_sweep = x_sweep;
  s.r = r;
  s.aw = &aw.buffer();
  s.ae = &ae.buffer();
  s.as = &as.buffer();
  s.an = &an.buffer();
  s.d0 = &d0.buffer();
  s.rhs = &rhs.buffer();
  s.p = &q.buffer();
  s.a = &a_.buffer();
  s.b = &b_.buffer();
  s.c = &c_.buffer();
  s.d = &d_.buffer();
  be_.adi2d_sweep(s);
}

template <class T>
void AdiSolver<T>::solve_half(bool x_sweep, const Field<T>& q, Field<T>& to) {
  TridiagArgs t;
  t.prec = precision_of<T>();
  t.algo = opt_.algo;
  // rows are contiguous; a column's unknown j sits at j * nx + i: interleaved with batch nx
  t.layout = x_sweep ? TridiagLayout::Contiguous : TridiagLayout::Interleaved;
  t.n = x_sweep ? g_.nx : g_.ny;
  t.batch = x_sweep ? g_.ny : g_.nx;
  t.a = &a_.buffer();
  t.b = &b_.buffer();
  t.c = &c_.buffer();
  t.d = &d_.buffer();
  t.x = &to.buffer();
  be_.tridiag_solve(t);  // the correction e
  be_.axpy(precision_of<T>(), q.size(), 1.0, q.buffer(), to.buffer());  // to = q + e
}

template <class T>
double AdiSolver<T>::residual_of_assembled() {
  return reduce(ReduceOp::MaxAbs, d_);  // the sweep kernel left rhs - A q in d
}

template <class T>
AdiResult AdiSolver<T>::solve(Field<T>& p) {
  // Spectral bounds of a one-direction operator plus half the diagonal: the smallest is min(d0)/2
  // (with no-flow boundaries the constant mode is damped by d0 alone), the largest about
  // 4 max(a) + max(d0)/2 (the grid-scale modes). The parameters cover the range geometrically.
  const double a_max = std::max({reduce(ReduceOp::Max, aw), reduce(ReduceOp::Max, ae), reduce(ReduceOp::Max, as),
                                 reduce(ReduceOp::Max, an)});
  const double d_min = reduce(ReduceOp::Min, d0), d_max = reduce(ReduceOp::Max, d0);
  double lo = 0.5 * d_min;
  double hi = 4 * a_max + 0.5 * d_max;
  if (!(lo > 0)) lo = std::max(hi * 1e-12, 1e-300);
  // A parameter the precision cannot see next to the off-diagonals leaves the half-step systems
  // singular in T (float at 513 points: d0 / 2 is 1e-10 of the diagonal), and PCR then divides by
  // rounding noise; below 64 eps(T) of the largest bound, r is raised to it.
  lo = std::max(lo, 64 * std::numeric_limits<T>::epsilon() * hi);
  if (!(hi >= lo)) hi = lo;
  spdlog::trace("ADI bounds: min d0 / 2 = {:.3g}, 4 max a = {:.3g}, max d0 / 2 = {:.3g}: parameters in [{:.3g}, {:.3g}]",
                0.5 * d_min, 4 * a_max, 0.5 * d_max, lo, hi);
  const bool iterate = opt_.tolerance > 0 || opt_.abs_tolerance > 0;
  const int k = iterate ? std::max(opt_.cycle, 1) : 1;
  r_.assign(k, lo);
  for (int i = 0; i < k; ++i) r_[i] = k == 1 ? std::sqrt(lo * hi) : lo * std::pow(hi / lo, double(i) / (k - 1));
  if (!iterate) r_[0] = 0.5 * d_min > 0 ? 0.5 * d_min : std::sqrt(lo * hi);

  AdiResult res;
  const int max_it = iterate ? std::max(opt_.max_iterations, 1) : 1;
  double target = opt_.abs_tolerance;
  double best_this_cycle = INFINITY, best_last_cycle = INFINITY;
  double best = INFINITY;  // smallest residual so far; its iterate is kept in best_
  int cycle_start = 0, cycles = 0;
  for (int it = 0;; ++it) {
    // largest parameters first within a cycle: the grid-scale error goes first
    const double r = r_[k - 1 - it % k];
    assemble(true, r, p);  // also the residual of the iterate p
    const bool last = it >= max_it;
    if (it == 0 || last || (iterate && it % opt_.check_every == 0)) {
      double rn = residual_of_assembled();
      if (!std::isfinite(rn)) throw NumericalError("ADI produced a non-finite residual at iteration " + std::to_string(it));
      spdlog::trace("ADI iteration {}: residual {:.3g}", it, rn);
      res.residual = rn;
      if (it == 0) {
        res.initial_residual = rn;
        target = std::max(target, opt_.tolerance * rn);
      }
      if (iterate && rn <= target) {
        res.converged = true;
        break;
      }
      // The residual is not monotone under Peaceman-Rachford: within a cycle the small parameters
      // raise it tenfold before the large ones bring it down. An unconverged solve returns the
      // best iterate, not the one it stopped at (at a cycle's end, near the cycle's worst).
      if (iterate && rn < best) {
        best = rn;
        be_.copy(p.buffer(), best_.buffer(), p.size() * sizeof(T));
      }
      if (last) break;
      if (it > 0) best_this_cycle = std::min(best_this_cycle, rn);
      if (it - cycle_start >= k) {
        // a whole cycle of parameters that gains nothing: the precision's rounding noise (the
        // first cycle, which raises the residual on the way, is no baseline)
        if (++cycles > 2 && best_this_cycle > 0.9 * best_last_cycle) {
          res.stagnated = true;
          break;
        }
        best_last_cycle = best_this_cycle;
        best_this_cycle = INFINITY;
        cycle_start = it;
      }
    }
    solve_half(true, p, half_);
    assemble(false, r, half_);
    solve_half(false, half_, next_);
    p.swap(next_);
    res.iterations = it + 1;
  }
  if (iterate && !res.converged && best < res.residual) {
    be_.copy(best_.buffer(), p.buffer(), p.size() * sizeof(T));
    res.residual = best;
  }
  if (!iterate) res.converged = true;
  return res;
}

template class AdiSolver<float>;
template class AdiSolver<double>;

}  // namespace poreflow
