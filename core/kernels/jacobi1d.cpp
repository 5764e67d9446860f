#include "core/kernels/jacobi1d.hpp"

#include <string>

#include "core/enum_names.hpp"
#include "core/error.hpp"
#include "core/kernels/control.hpp"

namespace poreflow {
namespace {
constexpr EnumNames<JacobiMetric, 2> kMetrics{{{"dp", JacobiMetric::Dp}, {"residual", JacobiMetric::Residual}}};
}

const char* to_string(JacobiMetric m) { return enum_name(m, kMetrics); }
JacobiMetric parse_jacobi_metric(std::string_view s) { return parse_enum(s, kMetrics, "convergence test"); }

Jacobi1DKernels Backend::jacobi1d() { return Jacobi1DKernels(*this, jacobi1d_impl()); }

JacobiPlan jacobi_plan(long it, int check_every) {
  const long k = check_every;
  JacobiPlan p;
  if (it >= k && it % k == 0) p.decide_slot = static_cast<int>((it / k - 1) % PF_CV_NSLOTS);
  p.check = (it + 1) % k == 0;
  if (p.check) {
    const long c = (it + 1) / k - 1;
    p.check_slot = static_cast<int>(c % PF_CV_NSLOTS);
    p.clear_slot = static_cast<int>((c + 1) % PF_CV_NSLOTS);
  }
  return p;
}

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
  unsigned long long w[PF_CV_WORDS];
  be_.download(*a.ctrl, w, sizeof w);
  const long k = a.check_every;
  JacobiStatus st;
  // the check of iteration next - 1 is decided by launch `next`, which has not run: decide it here
  const JacobiPlan plan = jacobi_plan(next, a.check_every);
  if (w[PF_CV_STOP] == 0 && plan.decide_slot >= 0) {
    if (a.prec == Precision::Float)
      phys::pf_cv_fused_stop<float>(w, next, plan.decide_slot, static_cast<float>(a.threshold), PF_CV_TEST, 1);
    else
      phys::pf_cv_fused_stop<double>(w, next, plan.decide_slot, a.threshold, PF_CV_TEST, 1);
  }
  const ConvergeStatus cs = decode_status(w, a.prec);
  st.converged = cs.reason == StopReason::Converged;
  st.non_finite = cs.reason == StopReason::NonFinite;
  st.iterations = cs.stopped() ? cs.iterations : next;
  const long checks = st.iterations / k;  // checks completed
  if (checks > 0) {
    const unsigned long long bits = w[PF_CV_SLOT0 + (checks - 1) % PF_CV_NSLOTS];
    st.last_metric = a.prec == Precision::Float ? double(phys::pf_from_word<float>(bits)) : phys::pf_from_word<double>(bits);
  }
  return st;
}

}  // namespace poreflow
