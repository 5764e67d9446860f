#include "core/solvers/adi.hpp"

#include <algorithm>
#include <cmath>

#include <limits>

#include <spdlog/spdlog.h>

#include "core/base/error.hpp"
#include "core/comm/global_reduce.hpp"
#include "core/kernels/blas.hpp"
#include "core/solvers/convergence.hpp"

namespace poreflow {

// The smallest residual reduction an iteration in T can resolve: a relative tolerance below it
// would never be met, so it is raised to this (and said once).
template <class T>
static double tolerance_floor() {
  return 50.0 * std::numeric_limits<T>::epsilon();
}

template <class T>
AdiSolver<T>::AdiSolver(Backend& be, const Adi2DGeom& g, const AdiOptions& opt, const Communicator& comm)
    : aw(be, g.nx * g.ny),
      ae(be, g.nx * g.ny),
      as(be, g.nx * g.ny),
      an(be, g.nx * g.ny),
      d0(be, g.nx * g.ny),
      rhs(be, g.nx * g.ny),
      be_(be),
      comm_(comm),
      g_(g),
      opt_(opt),
      a_(be, g.nx * g.ny),
      b_(be, g.nx * g.ny),
      c_(be, g.nx * g.ny),
      d_(be, g.nx * g.ny),
      half_(be, g.nx * g.ny),
      next_(be, g.nx * g.ny),
      best_{Field<T>(be, g.nx * g.ny), Field<T>(be, g.nx * g.ny)},
      ctrl_(be.alloc(kControlBytes)) {
  be.reduce().check_config(opt.reduce);
  if (opt_.check_every < 1)
    throw ConfigError("ADI: check_every = " + std::to_string(opt_.check_every) + " must be at least 1");
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
  return global_reduce(be_, comm_, r);
}

template <class T>
void AdiSolver<T>::assemble(bool x_sweep, double r, const Field<T>& q, const IterationControl& ctl, bool keep_best) {
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
  s.ctl = ctl;
  if (keep_best) {
    s.candidates[0] = &best_[0].buffer();
    s.candidates[1] = &best_[1].buffer();
  }
  be_.adi2d().sweep(s);
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
  t.guard = ctrl_.get();
  auto tri = be_.tridiag();
  if (tri.resolve(t) == TridiagAlgo::Thomas) {
    // Thomas walks each system with one thread, bound by the latency of one row after another:
    // a load of q a row in its stores cost 30% at 1025^2 on the H100, more than a pass of its own
    tri.solve(t);
    be_.blas().axpy({precision_of<T>(), q.size(), 1.0, &q.buffer(), &to.buffer(), ctrl_.get()});
    return;
  }
  t.add = &q.buffer();
  tri.solve(t);  // to = q + the correction e, in the solve's own stores
}

template <class T>
void AdiSolver<T>::enqueue_iteration(long it, Field<T>* p[2], bool iterate, long max_it) {
  const int k = static_cast<int>(r_.size());
  // largest parameters first within a cycle: the grid-scale error goes first
  const double r = r_[k - 1 - it % k];
  Field<T>& cur = *p[it % 2];
  Field<T>& nxt = *p[(it + 1) % 2];
  const bool check = it == 0 || it == max_it || (iterate && it % opt_.check_every == 0);
  IterationControl ctl;
  ctl.ctrl = ctrl_.get();
  if (check) ctl = check_slots(*ctrl_, checks_);
  // also the residual of the iterate cur and, on a check, cur kept as a candidate for the best:
  // the residual is not monotone under Peaceman-Rachford (within a cycle the small parameters
  // raise it tenfold before the large ones bring it down), so an unconverged solve returns the
  // best iterate, not the one it stopped at (at a cycle's end, near the cycle's worst)
  assemble(true, r, cur, ctl, check && iterate);
  if (check) {
    be_.control().decide({precision_of<T>(), ctrl_.get(), it, ctl.check_slot, rule_});
    ++checks_;
  }
  solve_half(true, cur, half_);
  assemble(false, r, half_, IterationControl{ctrl_.get()});
  solve_half(false, half_, nxt);
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

  // the rule the device applies at every check (core/base/converge.h)
  const long max_it = iterate ? std::max(opt_.max_iterations, 1) : 1;
  rule_ = ConvergeRule{};
  rule_.abs_tol = opt_.abs_tolerance;
  rule_.rel_tol = opt_.tolerance;
  rule_.flags = iterate ? PF_CV_TEST | PF_CV_INCLUSIVE | PF_CV_TRACK_BEST : 0;
  rule_.cycle = iterate ? k : 0;
  rule_.max_iterations = max_it;
  auto control = be_.control();
  control.reset(*ctrl_);
  checks_ = 0;
  reads_ = 0;
  enqueued_ = 0;

  // p[it % 2] is the iterate of iteration it; iteration max_it only checks.
  // Batches: iterations past the stop cost a few empty launches each, a read of the control block
  // a round trip. The counts vary a lot from step to step on small grids (5 to 26 iterations at 65
  // points, steady at 257 and more), so the first batch is the fewest of the last three solves and
  // the next ones grow from a quarter of it: in a replay of the 65- and 257-point cases' counts
  // this enqueued 30% fewer empty iterations than starting from the last count, for 5-30% more
  // reads.
  Field<T>* ping[2] = {&p, &next_};
  ConvergeStatus st;
  long guess = 0;
  for (long e : recent_)
    if (e > 0) guess = guess > 0 ? std::min(guess, e) : e;
  if (guess == 0) guess = 2L * k;
  run_batches(
      max_it + 1, BatchSizes{guess, std::max<long>(2, guess / 4), 1024},
      [&](long from, long count) {
        for (long it = from; it < from + count; ++it) enqueue_iteration(it, ping, iterate, max_it);
        enqueued_ += count;
      },
      [&](long next) {
        st = control.read(*ctrl_, precision_of<T>());
        ++reads_;
        spdlog::trace("ADI iterations enqueued to {}: {}{} after {} checks, residual {:.3g} (best {:.3g})", next,
                      to_string(st.reason), st.stopped() ? " at " + std::to_string(st.iterations) : std::string(),
                      st.checks, st.last, st.best);
        return st.stopped();
      });
  if (st.reason == StopReason::NonFinite)
    throw NumericalError("ADI produced a non-finite residual at iteration " + std::to_string(st.iterations));
  if (!st.stopped()) throw Error("ADI: the control block did not stop at the iteration limit");

  AdiResult res;
  res.iterations = static_cast<int>(st.iterations);
  if (st.iterations % 2 == 1) p.swap(next_);  // the last iteration wrote the other buffer
  recent_[2] = recent_[1];
  recent_[1] = recent_[0];
  recent_[0] = st.iterations + 1;
  res.residual = st.last;
  res.initial_residual = st.first;
  res.converged = st.reason == StopReason::Converged;
  res.stagnated = st.reason == StopReason::Stagnated;
  if (iterate && !res.converged && st.best < res.residual) {
    be_.copy(best_[st.best_buffer].buffer(), p.buffer(), p.size() * sizeof(T));
    res.residual = st.best;
  }
  if (!iterate) res.converged = true;
  return res;
}

template class AdiSolver<float>;
template class AdiSolver<double>;

}  // namespace poreflow
