#include "core/kernels/jacobi1d.hpp"

#include <string>

#include "core/base/enum_names.hpp"
#include "core/base/error.hpp"
#include "core/kernels/control.hpp"

namespace poreflow {
namespace {
constexpr EnumNames<JacobiMetric, 2> kMetrics{{{"dp", JacobiMetric::Dp}, {"residual", JacobiMetric::Residual}}};
}

const char* to_string(JacobiMetric m) { return enum_name(m, kMetrics); }
JacobiMetric parse_jacobi_metric(std::string_view s) { return parse_enum(s, kMetrics, "convergence test"); }

Jacobi1DKernels Backend::jacobi1d() { return Jacobi1DKernels(*this, jacobi1d_impl()); }

void Jacobi1DKernels::check(const Jacobi1DArgs& a) const {
  check_precision(be_, a.prec, "jacobi1d");
  if (a.check_every < 1)
    throw ConfigError("jacobi1d: check_every = " + std::to_string(a.check_every) + " must be at least 1");
  if (a.n < 3) throw BackendError("jacobi1d needs at least 3 points (n = " + std::to_string(a.n) + ")");
  be_.reduce().check_config(a.reduce);
  check_values(a.p[0], a.n, a.prec, "jacobi1d p[0]");
  check_values(a.p[1], a.n, a.prec, "jacobi1d p[1]");
  if (a.p[0] == a.p[1]) throw BackendError("jacobi1d: p[0] and p[1] must be distinct buffers");
  check_values(a.mface, a.n - 1, a.prec, "jacobi1d mface");
  check_control_block(a.ctrl, "jacobi1d ctrl");
}

void Jacobi1DKernels::reset(const Jacobi1DArgs& a) {
  check_control_block(a.ctrl, "jacobi1d ctrl");
  be_.control().reset(*a.ctrl);
}

void Jacobi1DKernels::iterate(const Jacobi1DArgs& a, long first, long count) {
  check(a);
  if (first < 0) throw BackendError("jacobi1d: negative first iteration");
  if (count <= 0) return;
  impl_.iterate(a, first, count);
}

JacobiStatus Jacobi1DKernels::status(const Jacobi1DArgs& a, long next) {
  check_control_block(a.ctrl, "jacobi1d ctrl");
  return read_fused_status(be_, *a.ctrl, a.prec, a.threshold, a.check_every, next);
}

}  // namespace poreflow
