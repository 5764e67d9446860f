#pragma once
// Peaceman-Rachford ADI for a 5-point operator on an nx x ny grid,
//   d0 p_i + sum_f a_f (p_i - p_f) = rhs_i   (f: west, east, south, north neighbours),
// as alternating x sweeps (rows: contiguous tridiagonal systems) and y sweeps (columns:
// interleaved systems), both solved by the backend's batched tridiagonal solver, no transpose.
// Iterated with a cycle of parameters r (geometric between the operator's spectral bounds,
// after Wachspress) until the residual max|rhs - A p| is below abs_tolerance or tolerance times the
// initial residual. The residual, not the change of an iteration, is the stopping test: ADI
// converges slowly on nearly singular operators, and a small change then hides a large error.
// Both tolerances 0 mean a single Peaceman-Rachford step.
// The iterations run on the device in batches: the residual check, the stop (converged, stagnated,
// iteration limit) and the best-iterate copy are decided there by the shared control
// (core/base/converge.h), and the host reads the control block once per batch.
#include <memory>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/adi2d.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/tridiag.hpp"

namespace poreflow {

struct AdiOptions {
  double tolerance = 1e-6;      // relative to the residual of the initial guess
  double abs_tolerance = 0;     // absolute residual, in the units of rhs
  int max_iterations = 200;
  int check_every = 1;
  int cycle = 8;  // parameters per cycle
  TridiagAlgo algo = TridiagAlgo::Auto;
  ReduceConfig reduce;
};

struct AdiResult {
  int iterations = 0;
  double residual = 0;          // max|rhs - A p| of the returned p (the best checked iterate if not converged)
  double initial_residual = 0;  // max|rhs - A p| of the initial guess
  bool converged = false;
  // the residual stopped falling over a whole cycle of parameters: rounding noise of the precision
  // (float near a nearly singular operator) is larger than the tolerance
  bool stagnated = false;
};

template <class T>
class AdiSolver {
 public:
  AdiSolver(Backend& be, const Adi2DGeom& g, const AdiOptions& opt, const Communicator& comm = self_communicator());

  // The operator's coefficient fields (filled by the caller, e.g. adi2d_coefficients).
  Field<T> aw, ae, as, an, d0, rhs;

  // p holds the initial guess and receives the solution.
  AdiResult solve(Field<T>& p);

  // the r cycle of the last solve, for logs and tests
  const std::vector<double>& parameters() const { return r_; }
  // host reads of the control block in the last solve (one per batch of iterations), and the
  // iterations enqueued (those past the stop return at once)
  long control_reads() const { return reads_; }
  long iterations_enqueued() const { return enqueued_; }
  // the iteration counts of the last solves, which size the next solve's first batch (checkpoints)
  std::vector<long> recent_iterations() const { return {recent_[0], recent_[1], recent_[2]}; }
  void set_recent_iterations(const std::vector<long>& r) {
    for (std::size_t i = 0; i < 3 && i < r.size(); ++i) recent_[i] = r[i];
  }

 private:
  double reduce(ReduceOp op, const Field<T>& a, const Field<T>* b = nullptr);
  // the tridiagonal rows of a half step from q (d receives the residual rhs - A q), guarded by the
  // control; ctl's slots make it a check, which also keeps q as a best-iterate candidate
  void assemble(bool x_sweep, double r, const Field<T>& q, const IterationControl& ctl, bool keep_best = false);
  // solves the assembled rows for the correction and writes q + correction to `to` (guarded)
  void solve_half(bool x_sweep, const Field<T>& q, Field<T>& to);
  // enqueues iteration it from p[it % 2] to p[(it + 1) % 2]
  void enqueue_iteration(long it, Field<T>* p[2], bool iterate, long max_it);

  Backend& be_;
  const Communicator& comm_;
  Adi2DGeom g_;
  AdiOptions opt_;
  Field<T> a_, b_, c_, d_, half_, next_;
  // the iterate of the smallest residual so far, returned if ADI does not converge, is in one of
  // the two (the control block says which; checks write the other)
  Field<T> best_[2];
  std::unique_ptr<Buffer> ctrl_;  // the control block
  ConvergeRule rule_;
  long checks_ = 0;  // checks enqueued in this solve (their ring slots)
  // iterations the last solves needed (to their stop, included): the first batch of the next
  long recent_[3] = {0, 0, 0};
  long reads_ = 0, enqueued_ = 0;
  std::vector<double> r_;
};

}  // namespace poreflow
