#include "core/kernels/control.hpp"

#include <cstdint>
#include <cstring>
#include <string>

#include "core/base/error.hpp"

namespace poreflow {

ControlKernels Backend::control() { return ControlKernels(*this, control_impl()); }

IterationControl check_slots(Buffer& ctrl, long c) {
  IterationControl ic;
  ic.ctrl = &ctrl;
  ic.check_slot = static_cast<int>(c % PF_CV_NSLOTS);
  ic.clear_slot = static_cast<int>((c + 1) % PF_CV_NSLOTS);
  return ic;
}

const char* to_string(StopReason r) {
  switch (r) {
    case StopReason::Running: return "running";
    case StopReason::Converged: return "converged";
    case StopReason::Stagnated: return "stagnated";
    case StopReason::Limit: return "iteration limit";
    case StopReason::NonFinite: return "non-finite metric";
    case StopReason::Breakdown: return "breakdown";
  }
  return "?";
}

ConvergeStatus decode_status(const unsigned long long* w, Precision prec) {
  auto value = [&](int word) -> double {
    if (prec == Precision::Float) {
      const auto b = static_cast<std::uint32_t>(w[word]);
      float f;
      std::memcpy(&f, &b, sizeof f);
      return f;
    }
    double d;
    std::memcpy(&d, &w[word], sizeof d);
    return d;
  };
  ConvergeStatus s;
  s.reason = static_cast<StopReason>(w[PF_CV_STOP]);
  s.iterations = static_cast<long>(w[PF_CV_ITER]);
  s.checks = static_cast<long>(w[PF_CV_CHECKS]);
  if (s.checks > 0) {
    s.first = value(PF_CV_FIRST);
    s.last = value(PF_CV_LAST);
    s.best = value(PF_CV_BEST);
    s.best_iteration = static_cast<long>(w[PF_CV_BEST_IT]);
    s.best_buffer = static_cast<int>(w[PF_CV_BEST_BUF]);
  }
  return s;
}

void check_control_block(const Buffer* ctrl, const char* what) {
  if (!ctrl) throw BackendError(std::string(what) + ": missing control block");
  check_range(*ctrl, kControlBytes, 0, what);
}

void check_control(const IterationControl& c, const char* what) {
  if (!c.ctrl) {
    if (c.check_slot >= 0) throw BackendError(std::string(what) + ": a check needs a control block");
    return;
  }
  check_control_block(c.ctrl, what);
  if (c.check_slot >= PF_CV_NSLOTS || (c.check_slot >= 0 && (c.clear_slot < 0 || c.clear_slot >= PF_CV_NSLOTS ||
                                                              c.clear_slot == c.check_slot)))
    throw BackendError(std::string(what) + ": check slots outside the control block's ring");
}

FusedPlan fused_plan(long it, int check_every) {
  const long k = check_every;
  FusedPlan p;
  if (it >= k && it % k == 0) p.decide_slot = static_cast<int>((it / k - 1) % PF_CV_NSLOTS);
  p.check = (it + 1) % k == 0;
  if (p.check) {
    const long c = (it + 1) / k - 1;
    p.check_slot = static_cast<int>(c % PF_CV_NSLOTS);
    p.clear_slot = static_cast<int>((c + 1) % PF_CV_NSLOTS);
  }
  return p;
}

FusedStatus read_fused_status(Backend& be, const Buffer& ctrl, Precision prec, double threshold, int check_every,
                              long next) {
  check_control_block(&ctrl, "fused status");
  unsigned long long w[PF_CV_WORDS];
  be.download(ctrl, w, sizeof w);
  const FusedPlan plan = fused_plan(next, check_every);
  if (w[PF_CV_STOP] == 0 && plan.decide_slot >= 0) {
    if (prec == Precision::Float)
      phys::pf_cv_fused_stop<float>(w, next, plan.decide_slot, static_cast<float>(threshold), PF_CV_TEST, 1);
    else
      phys::pf_cv_fused_stop<double>(w, next, plan.decide_slot, threshold, PF_CV_TEST, 1);
  }
  const ConvergeStatus cs = decode_status(w, prec);
  FusedStatus st;
  st.converged = cs.reason == StopReason::Converged;
  st.non_finite = cs.reason == StopReason::NonFinite;
  st.iterations = cs.stopped() ? cs.iterations : next;
  const long checks = st.iterations / check_every;  // checks completed
  if (checks > 0) {
    const unsigned long long bits = w[PF_CV_SLOT0 + (checks - 1) % PF_CV_NSLOTS];
    st.last_metric = prec == Precision::Float ? double(phys::pf_from_word<float>(bits)) : phys::pf_from_word<double>(bits);
  }
  return st;
}

void ControlKernels::reset(Buffer& ctrl) {
  check_control_block(&ctrl, "control reset");
  be_.fill(ctrl, Precision::Double, 0.0, PF_CV_WORDS);  // all bits zero
}

ConvergeStatus ControlKernels::read(const Buffer& ctrl, Precision prec) {
  check_control_block(&ctrl, "control read");
  unsigned long long w[PF_CV_WORDS];
  be_.download(ctrl, w, sizeof w);
  return decode_status(w, prec);
}

void ControlKernels::decide(const ControlDecideArgs& a) {
  check_precision(be_, a.prec, "control decide");
  check_control_block(a.ctrl, "control decide");
  if (a.slot < 0 || a.slot >= PF_CV_NSLOTS) throw BackendError("control decide: slot outside the ring");
  if (a.it < 0) throw BackendError("control decide: negative iteration");
  impl_.decide(a);
}

}  // namespace poreflow
