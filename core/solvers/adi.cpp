#include "core/solvers/adi.hpp"

#include <algorithm>
#include <cmath>

#include <limits>

#include <spdlog/spdlog.h>

#include "core/error.hpp"

namespace poreflow {

// The smallest relative change an iteration in T can resolve: a tolerance below it would never
// be met, so it is raised to this (and said once).
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
      next_(be, g.nx * g.ny) {
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
void AdiSolver<T>::half_step(bool x_sweep, double r, const Field<T>& from, Field<T>& to) {
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
  s.p = &from.buffer();
  s.a = &a_.buffer();
  s.b = &b_.buffer();
  s.c = &c_.buffer();
  s.d = &d_.buffer();
  be_.adi2d_sweep(s);
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
  be_.axpy(precision_of<T>(), from.size(), 1.0, from.buffer(), to.buffer());  // to = from + e
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
  const int k = opt_.tolerance > 0 ? std::max(opt_.cycle, 1) : 1;
  r_.assign(k, lo);
  for (int i = 0; i < k; ++i) r_[i] = k == 1 ? std::sqrt(lo * hi) : lo * std::pow(hi / lo, double(i) / (k - 1));
  if (opt_.tolerance <= 0) r_[0] = 0.5 * d_min > 0 ? 0.5 * d_min : std::sqrt(lo * hi);

  AdiResult res;
  const int max_it = opt_.tolerance > 0 ? opt_.max_iterations : 1;
  double best_this_cycle = INFINITY, best_last_cycle = INFINITY;
  for (int it = 0; it < max_it; ++it) {
    // largest parameters first within a cycle: the grid-scale error goes first
    double r = r_[k - 1 - it % k];
    half_step(true, r, p, half_);
    half_step(false, r, half_, next_);
    res.iterations = it + 1;
    bool check = opt_.tolerance > 0 && ((it + 1) % opt_.check_every == 0 || it + 1 == max_it);
    if (check) {
      double change = reduce(ReduceOp::MaxAbsDiff, next_, &p);
      double scale = reduce(ReduceOp::MaxAbs, next_);
      res.change = change / (scale > 0 ? scale : 1);
      if (!std::isfinite(res.change)) {
        p.swap(next_);
        throw NumericalError("ADI produced a non-finite pressure at iteration " + std::to_string(it + 1));
      }
      p.swap(next_);
      if (res.change <= opt_.tolerance) {
        res.converged = true;
        break;
      }
      best_this_cycle = std::min(best_this_cycle, res.change);
      if ((it + 1) % k == 0) {  // end of a cycle: give up once a whole cycle gains nothing
        if (best_this_cycle > 0.9 * best_last_cycle) {
          res.stagnated = true;
          break;
        }
        best_last_cycle = best_this_cycle;
        best_this_cycle = INFINITY;
      }
    } else {
      p.swap(next_);
    }
  }
  if (opt_.tolerance <= 0) res.converged = true;
  return res;
}

template class AdiSolver<float>;
template class AdiSolver<double>;

}  // namespace poreflow
