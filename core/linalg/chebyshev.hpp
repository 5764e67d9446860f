#pragma once
// The kinds of AMG's Chebyshev smoother (core/linalg/amg.hpp, docs/linalg.md) and their names in
// cases and benches (pressure.amg_chebyshev, bench linalg --amg-chebyshev).
#include <optional>
#include <string_view>

namespace poreflow::linalg {

// Chebyshev's polynomial of the first kind over [lower hi, hi], or of the fourth kind over [0, hi]
// (Lottes, "Optimal polynomial smoothers for multigrid V-cycles", 2023), which needs no lower end
// and smooths Poisson more per step of the same cost.
enum class Chebyshev { First, Fourth };

inline constexpr const char* kChebyshevNames = "first, fourth";

inline std::optional<Chebyshev> chebyshev_of(std::string_view name) {
  if (name == "first") return Chebyshev::First;
  if (name == "fourth") return Chebyshev::Fourth;
  return std::nullopt;
}

}  // namespace poreflow::linalg
