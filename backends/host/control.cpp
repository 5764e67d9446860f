// The convergence control on the host backends: the shared decision of core/base/converge.h
// run on the host copy of the block.
#include "core/base/converge.h"
#include "backends/host/families.hpp"
#include "core/kernels/control.hpp"

namespace poreflow {
namespace {

class HostControl final : public ControlImpl {
 public:
  explicit HostControl(const HostContext&) {}
  void decide(const ControlDecideArgs& a) override {
    auto* w = host_ptr<unsigned long long>(*a.ctrl);
    const auto& r = a.rule;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      phys::pf_cv_decide<T>(w, a.it, a.slot, T(r.abs_tol), T(r.rel_tol), r.flags, r.cycle, r.max_iterations);
    });
  }
};

}  // namespace

FamilyPtr<ControlImpl> make_family(const HostContext& hc, FamilyTag<ControlImpl>) { return std::make_shared<HostControl>(hc); }

}  // namespace poreflow
