#pragma once
// The jacobi1d family: paper 000's Jacobi iteration of the 1D pressure equation (eq. 9), one
// fused launch per iteration with its convergence test, decided on the device through the shared
// control of core/base/converge.h.
#include <cstddef>
#include <string_view>

#include "core/kernels/backend.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/kernel_args.hpp"
#include "core/kernels/reduce.hpp"

namespace poreflow {

// Dp: the paper's max |p_new - p_old|. Residual: max flux imbalance of a cell relative to the
// through-flux scale (the solver turns the relative tolerance into an absolute threshold).
enum class JacobiMetric { Dp, Residual };
const char* to_string(JacobiMetric m);
JacobiMetric parse_jacobi_metric(std::string_view s);

// Iteration i reads p[i % 2] and writes p[(i + 1) % 2]; points 0 and n - 1 hold the Dirichlet
// values p_left and p_right. It is a check when (i + 1) % check_every == 0: check
// c = (i + 1) / check_every - 1 folds max(metric) into the control block's slot c % 3 (with
// reduce's variant and combine) and clears slot (c + 1) % 3. The launch after a check decides
// (pf_cv_fused_stop: converged when the metric is below `threshold`, stopped on NaN); launches
// after the stop return at once, so the iteration count is exact.
struct Jacobi1DArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;              // points, >= 3
  const Buffer* mface = nullptr;  // n - 1 face mobilities M_{i+1/2}
  Buffer* p[2] = {nullptr, nullptr};
  double p_left = 0, p_right = 0;
  JacobiMetric metric = JacobiMetric::Residual;
  double threshold = 0;  // absolute threshold on max(metric); 0: never converges
  int check_every = 1;
  ReduceConfig reduce;
  Buffer* ctrl = nullptr;  // a control block (kControlBytes)

  // an iteration of parity `parity` (reading p[parity], writing the other): the kernels' leading
  // parameters p, q, mface, n, p_left, p_right, threshold, residual, ctrl (core/kernels/kernel_args.hpp)
  auto kernel_args(int parity) const {
    using namespace karg;
    return std::tuple(In<Real>{p[parity]}, Out<Real>{p[1 - parity]}, In<Real>{mface}, n, Real{p_left}, Real{p_right},
                      Real{threshold}, metric == JacobiMetric::Residual ? 1 : 0, Out<pf_u64>{ctrl});
  }
};

// State of a Jacobi run read back from the control block.
using JacobiStatus = FusedStatus;

class Jacobi1DImpl {
 public:
  virtual ~Jacobi1DImpl() = default;
  // iterations [first, first + count), count > 0, arguments checked
  virtual void iterate(const Jacobi1DArgs& a, long first, long count) = 0;
};

class Jacobi1DKernels {
 public:
  Jacobi1DKernels(Backend& be, Jacobi1DImpl& impl) : be_(be), impl_(impl) {}
  // clears the control block before a solve
  void reset(const Jacobi1DArgs& a);
  void iterate(const Jacobi1DArgs& a, long first, long count);
  // waits and reads the control block; `next` is the first iteration not yet enqueued. A check
  // that ended the batch is decided here, as its next launch would.
  JacobiStatus status(const Jacobi1DArgs& a, long next);

 private:
  void check(const Jacobi1DArgs& a) const;
  Backend& be_;
  Jacobi1DImpl& impl_;
};

}  // namespace poreflow
