#pragma once
// The modes of AMG's coarse level across processes (core/linalg/amg_global.hpp, docs/mpi.md), and
// their names in cases (linear.amg_across, pressure.amg_across).
#include <optional>
#include <string_view>

namespace poreflow::linalg {

// none (each process's hierarchy alone: block Jacobi across them), added to the cycle (additive:
// one combine an application), before the cycle and after it on its residual (multiplicative,
// symmetric, for CG: two combines and two products with the operator an application), or only
// after it (not symmetric, for BiCGSTAB and FGMRES: one combine and one product)
enum class AmgAcross { None, Additive, Multiplicative, After };

inline constexpr const char* kAmgAcrossNames = "none, additive, multiplicative, after";

inline std::optional<AmgAcross> amg_across_of(std::string_view name) {
  if (name == "none") return AmgAcross::None;
  if (name == "additive") return AmgAcross::Additive;
  if (name == "multiplicative") return AmgAcross::Multiplicative;
  if (name == "after") return AmgAcross::After;
  return std::nullopt;
}

}  // namespace poreflow::linalg
