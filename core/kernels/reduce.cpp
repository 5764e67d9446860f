#include "core/kernels/reduce.hpp"

#include <algorithm>
#include <string>

#include "core/base/enum_names.hpp"
#include "core/base/error.hpp"

namespace poreflow {
namespace {

constexpr EnumNames<ReduceOp, 5> kOps{{
    {"sum", ReduceOp::Sum},
    {"min", ReduceOp::Min},
    {"max", ReduceOp::Max},
    {"max_abs", ReduceOp::MaxAbs},
    {"max_abs_diff", ReduceOp::MaxAbsDiff},
}};
constexpr EnumNames<ReduceVariant, 9> kVariants{{
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
constexpr EnumNames<Combine, 2> kCombines{{{"atomic", Combine::Atomic}, {"host", Combine::Host}}};

}  // namespace

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

ReduceKernels Backend::reduce() { return ReduceKernels(*this, reduce_impl()); }

void ReduceImpl::vendor_enqueue(const ReduceArgs&) { throw BackendError("this backend has no vendor reduction"); }

void ReduceKernels::check_config(const ReduceConfig& cfg) const {
  auto vs = impl_.variants();
  if (std::find(vs.begin(), vs.end(), cfg.variant) == vs.end()) {
    std::string names;
    for (auto v : vs) names += std::string(names.empty() ? "" : ", ") + to_string(v);
    throw ConfigError("reduction '" + std::string(to_string(cfg.variant)) + "' is not available on the " + be_.name() +
                      " backend (available: " + names + ", auto)");
  }
  if (cfg.block < 32 || cfg.block > 1024 || (cfg.block & (cfg.block - 1)) != 0)
    throw ConfigError("block size " + std::to_string(cfg.block) + " must be a power of two in [32, 1024]");
}

void ReduceKernels::check_args(const ReduceArgs& a, const char* what) const {
  check_precision(be_, a.prec, what);
  if (a.op == ReduceOp::MaxAbsDiff && !a.b) throw BackendError(std::string(what) + ": max_abs_diff needs two inputs");
  check_values(a.a, a.n, a.prec, what);
  if (a.op == ReduceOp::MaxAbsDiff) check_values(a.b, a.n, a.prec, what);
}

void ReduceKernels::enqueue(const ReduceArgs& a) {
  check_args(a, "reduce");
  check_config(a.cfg);
  impl_.enqueue(a);
}

void ReduceKernels::vendor_enqueue(const ReduceArgs& a) {
  if (impl_.vendor_name().empty())
    throw BackendError("the " + be_.name() + " backend has no vendor reduction");
  check_args(a, "vendor reduce");
  impl_.vendor_enqueue(a);
}

}  // namespace poreflow
