#pragma once
// Jacobi iteration for the 1D pressure equation (paper 000, eq. 9), run as batches of fused
// device iterations; the host looks at the control block once per batch, never per iteration.
#include <memory>

#include "core/kernels/field.hpp"
#include "core/kernels/jacobi1d.hpp"

namespace poreflow {

struct JacobiOptions {
  JacobiMetric metric = JacobiMetric::Residual;
  double tolerance = 1e-6;  // dp: absolute on max|p_new - p_old|; residual: relative (see threshold())
  int check_every = 1;      // test convergence every K iterations
  long max_iterations = 10'000'000;
  ReduceConfig reduce;
};

struct JacobiResult {
  long iterations = 0;
  double metric = -1;  // max of the metric at the last check
  bool converged = false;
};

template <class T>
class Jacobi1D {
 public:
  Jacobi1D(Backend& be, std::size_t n, const JacobiOptions& opt);

  // Absolute threshold for this solve. Residual: a cell's flux imbalance relative to the flux
  // scale max(M) |p_left - p_right| / (n - 1) of the whole core.
  double threshold(double max_mface, double p_left, double p_right) const;

  // p holds the initial guess and receives the solution.
  JacobiResult solve(Field<T>& p, const Field<T>& mface, double p_left, double p_right, double threshold);

  const JacobiOptions& options() const { return opt_; }
  // the last solve's iterations, which size the next solve's first batch (checkpoints)
  long last_iterations() const { return last_iterations_; }
  void set_last_iterations(long n) { last_iterations_ = n; }

 private:
  Backend& be_;
  std::size_t n_;
  JacobiOptions opt_;
  Field<T> other_;                // the second ping-pong buffer
  std::unique_ptr<Buffer> ctrl_;  // the control block (core/base/converge.h)
  long last_iterations_ = 0;      // sizes the first batch of the next solve
};

}  // namespace poreflow
