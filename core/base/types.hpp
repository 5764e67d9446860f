#pragma once
// The precision tag shared by the core, the backends and the apps. Each kernel family's own
// vocabulary (reduction variants, tridiagonal algorithms, ...) is in core/kernels/<family>.hpp.
#include <cstddef>
#include <string_view>

namespace poreflow {

enum class Precision { Float, Double };

inline std::size_t size_of(Precision p) { return p == Precision::Float ? sizeof(float) : sizeof(double); }
const char* to_string(Precision p);
Precision parse_precision(std::string_view s);  // "float" | "double", else ConfigError

template <class T>
constexpr Precision precision_of();
template <>
constexpr Precision precision_of<float>() { return Precision::Float; }
template <>
constexpr Precision precision_of<double>() { return Precision::Double; }

// Calls f with a value of the C++ type of prec, f(float{}) or f(double{}): the one switch from
// the precision tag of the interfaces to the templates behind them.
template <class F>
decltype(auto) with_type(Precision prec, F&& f) {
  return prec == Precision::Float ? f(float{}) : f(double{});
}

}  // namespace poreflow
