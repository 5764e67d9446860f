#include "core/types.hpp"

#include <array>
#include <string>
#include <utility>

#include "core/error.hpp"

namespace poreflow {
namespace {

template <class E, std::size_t N>
E parse_enum(std::string_view s, const std::array<std::pair<const char*, E>, N>& table, const char* what) {
  for (const auto& [name, value] : table)
    if (s == name) return value;
  std::string names;
  for (const auto& [name, value] : table) names += std::string(names.empty() ? "" : ", ") + name;
  throw ConfigError("unknown " + std::string(what) + " '" + std::string(s) + "' (expected one of: " + names + ")");
}

template <class E, std::size_t N>
const char* enum_name(E e, const std::array<std::pair<const char*, E>, N>& table) {
  for (const auto& [name, value] : table)
    if (value == e) return name;
  return "?";
}

constexpr std::array<std::pair<const char*, Precision>, 2> kPrecisions{{
    {"float", Precision::Float},
    {"double", Precision::Double},
}};
constexpr std::array<std::pair<const char*, ReduceOp>, 5> kOps{{
    {"sum", ReduceOp::Sum},
    {"min", ReduceOp::Min},
    {"max", ReduceOp::Max},
    {"max_abs", ReduceOp::MaxAbs},
    {"max_abs_diff", ReduceOp::MaxAbsDiff},
}};
constexpr std::array<std::pair<const char*, ReduceVariant>, 9> kVariants{{
    {"interleaved_divergent", ReduceVariant::InterleavedDivergent},
    {"interleaved", ReduceVariant::Interleaved},
    {"sequential", ReduceVariant::Sequential},
    {"unroll_last_warp", ReduceVariant::UnrollLastWarp},
    {"complete_unroll", ReduceVariant::CompleteUnroll},
    {"fast", ReduceVariant::Fast},
    {"omp_reduction", ReduceVariant::OmpReduction},
    {"blocked", ReduceVariant::OmpBlocked},
    {"serial", ReduceVariant::Serial},
}};
constexpr std::array<std::pair<const char*, Combine>, 2> kCombines{{
    {"atomic", Combine::Atomic},
    {"host", Combine::Host},
}};
constexpr std::array<std::pair<const char*, JacobiMetric>, 2> kMetrics{{
    {"dp", JacobiMetric::Dp},
    {"residual", JacobiMetric::Residual},
}};

constexpr std::array<std::pair<const char*, TridiagAlgo>, 6> kTridiag{{
    {"thomas", TridiagAlgo::Thomas},
    {"cr", TridiagAlgo::CR},
    {"pcr", TridiagAlgo::PCR},
    {"cr_pcr", TridiagAlgo::CrPcr},
    {"pcr_thomas", TridiagAlgo::PcrThomas},
    {"auto", TridiagAlgo::Auto},
}};
constexpr std::array<std::pair<const char*, TridiagLayout>, 2> kLayouts{{
    {"contiguous", TridiagLayout::Contiguous},
    {"interleaved", TridiagLayout::Interleaved},
}};

}  // namespace

const char* to_string(TridiagAlgo a) { return enum_name(a, kTridiag); }
TridiagAlgo parse_tridiag_algo(std::string_view s) { return parse_enum(s, kTridiag, "tridiagonal algorithm"); }
std::vector<TridiagAlgo> tridiag_algos() {
  return {TridiagAlgo::Thomas, TridiagAlgo::CR, TridiagAlgo::PCR, TridiagAlgo::CrPcr, TridiagAlgo::PcrThomas};
}
const char* to_string(TridiagLayout l) { return enum_name(l, kLayouts); }
TridiagLayout parse_tridiag_layout(std::string_view s) { return parse_enum(s, kLayouts, "tridiagonal layout"); }

const char* to_string(Precision p) { return enum_name(p, kPrecisions); }
Precision parse_precision(std::string_view s) { return parse_enum(s, kPrecisions, "precision"); }
const char* to_string(ReduceOp op) { return enum_name(op, kOps); }
ReduceOp parse_reduce_op(std::string_view s) { return parse_enum(s, kOps, "reduction operation"); }
const char* to_string(ReduceVariant v) { return enum_name(v, kVariants); }
ReduceVariant parse_reduce_variant(std::string_view s, bool* is_auto) {
  if (is_auto) *is_auto = (s == "auto");
  if (s == "auto") return ReduceVariant::Fast;
  return parse_enum(s, kVariants, "reduction");
}
std::vector<ReduceVariant> paper_variants() {
  return {ReduceVariant::InterleavedDivergent, ReduceVariant::Interleaved, ReduceVariant::Sequential,
          ReduceVariant::UnrollLastWarp, ReduceVariant::CompleteUnroll};
}
const char* to_string(Combine c) { return enum_name(c, kCombines); }
Combine parse_combine(std::string_view s) { return parse_enum(s, kCombines, "combine mode"); }
const char* to_string(JacobiMetric m) { return enum_name(m, kMetrics); }
JacobiMetric parse_jacobi_metric(std::string_view s) { return parse_enum(s, kMetrics, "convergence test"); }

}  // namespace poreflow
