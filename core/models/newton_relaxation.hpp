#pragma once
// OPM Flow's update stabilization (UseUpdateStabilization with NewtonRelaxationType "dampen", both
// its defaults): when each phase's CNV of the last Newton iteration has come back near the value
// of two iterations before while moving away from the one before, the Newton step oscillates. The
// factor of the update then falls by a tenth, down to newton.min_relaxation (OPM Flow's
// --newton-max-relax, 0.5), and every later update of the step moves the cells by dx times it
// (the wells' BHP steps come from dx as solved, as OPM Flow's). A new attempt starts again at 1.
// Host arithmetic on the numbers the step reads anyway (docs/fim.md, "Update stabilization").
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <vector>

namespace poreflow {

// a Newton iteration's convergence measure of each phase (water, oil): its CNV
using PhaseNorms = std::array<double, 2>;

// Whether the norms of iteration `it` oscillate against the two before it: in more than one
// phase (so in both, with two), |F_it - F_it-2| / F_it below tol and |F_it - F_it-1| / F_it above
// it. A zero or non-finite norm makes no phase oscillate.
inline bool newton_oscillates(const std::vector<PhaseNorms>& h, std::size_t it, double tol = 0.2) {
  if (it < 2 || it >= h.size()) return false;
  int phases = 0;
  for (std::size_t p = 0; p < 2; ++p) {
    const double f0 = h[it][p], f1 = h[it - 1][p], f2 = h[it - 2][p];
    const double back2 = std::fabs((f0 - f2) / f0), back1 = std::fabs((f0 - f1) / f0);
    if (back2 < tol && back1 > tol) ++phases;  // NaN compares false either way
  }
  return phases > 1;
}

// The factor the step's updates are scaled by.
class NewtonRelaxation {
 public:
  explicit NewtonRelaxation(double min_factor = 0.5, double decrement = 0.1)
      : min_(min_factor), decrement_(decrement) {}
  void reset() { factor_ = 1.0; }
  // after the solve of iteration `it` (h holds the norms of iterations 0..it): lowers the factor
  // when they oscillate, and says whether they did
  bool observe(const std::vector<PhaseNorms>& h, std::size_t it) {
    if (!newton_oscillates(h, it)) return false;
    factor_ = std::max(factor_ - decrement_, min_);
    return true;
  }
  double factor() const { return factor_; }

 private:
  double min_, decrement_;
  double factor_ = 1.0;
};

}  // namespace poreflow
