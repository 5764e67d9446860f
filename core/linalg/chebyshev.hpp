#pragma once
// The kinds of AMG's Chebyshev smoother (core/linalg/amg.hpp, docs/linalg.md) and their names in
// cases and benches (pressure.amg_chebyshev, bench linalg --amg-chebyshev).
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace poreflow::linalg {

// Chebyshev's polynomial of the first kind over [lower hi, hi], or of the fourth kind over [0, hi]
// (Lottes, "Optimal polynomial smoothers for multigrid V-cycles", 2023), which needs no lower end
// and smooths Poisson more per step of the same cost.
enum class Chebyshev { First, Fourth };

inline constexpr const char* kChebyshevNames = "first, fourth";

// The (alpha, beta) of the `degree` steps of Chebyshev's recurrence on D^-1 A, d = alpha d + beta
// D^-1 r, x += d (first kind over [lo, hi]: Saad, Iterative Methods, alg. 12.1; fourth kind over
// [0, hi]: Lottes 2023). Step 0 has alpha 0.
inline std::vector<std::pair<double, double>> chebyshev_steps(Chebyshev kind, double lo, double hi, int degree) {
  std::vector<std::pair<double, double>> s;
  const double theta = 0.5 * (hi + lo), delta = 0.5 * (hi - lo), sigma = theta / delta;
  double rho = 1 / sigma;
  for (int k = 0; k < degree; ++k) {
    if (kind == Chebyshev::Fourth) {  // d_k = (2k-1)/(2k+3) d_(k-1) + (8k+4)/(2k+3) D^-1 r_k / hi
      s.emplace_back(k == 0 ? 0.0 : (2.0 * k - 1) / (2.0 * k + 3), k == 0 ? 4.0 / (3.0 * hi) : (8.0 * k + 4) / ((2.0 * k + 3) * hi));
    } else if (k == 0) {
      s.emplace_back(0.0, 1 / theta);
    } else {
      const double next = 1 / (2 * sigma - rho);
      s.emplace_back(next * rho, 2 * next / delta);
      rho = next;
    }
  }
  return s;
}

inline std::optional<Chebyshev> chebyshev_of(std::string_view name) {
  if (name == "first") return Chebyshev::First;
  if (name == "fourth") return Chebyshev::Fourth;
  return std::nullopt;
}

}  // namespace poreflow::linalg
