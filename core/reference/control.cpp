// The convergence control on the host backends: the shared decision of core/kernels/converge.h
// run on the host copy of the block.
#include <algorithm>
#include <cstring>

#include "core/kernels/converge.h"
#include "core/reference/families.hpp"

namespace poreflow {
namespace {

class HostControl final : public ControlImpl {
 public:
  explicit HostControl(const HostContext& hc) : hc_(hc) {}
  void decide(const ControlDecideArgs& a) override {
    auto* w = host_ptr<unsigned long long>(*a.ctrl);
    const auto& r = a.rule;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      phys::pf_cv_decide<T>(w, a.it, a.slot, T(r.abs_tol), T(r.rel_tol), r.flags, r.cycle, r.max_iterations);
    });
  }
  void save(const ControlSaveArgs& a) override {
    if (!phys::pf_cv_save_now(host_ptr<unsigned long long>(*a.ctrl), a.it)) return;
    const std::size_t bytes = a.n * size_of(a.prec);
    const char* s = host_ptr<char>(*a.src);
    char* d = host_ptr<char>(*a.dst);
    const std::size_t chunk = 1 << 20;
    const long nchunks = static_cast<long>((bytes + chunk - 1) / chunk);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.n))
    for (long c = 0; c < nchunks; ++c) {
      const std::size_t off = static_cast<std::size_t>(c) * chunk;
      std::memcpy(d + off, s + off, std::min(chunk, bytes - off));
    }
  }

 private:
  HostContext hc_;
};

}  // namespace

std::unique_ptr<ControlImpl> make_family(const HostContext& hc, FamilyTag<ControlImpl>) { return std::make_unique<HostControl>(hc); }

}  // namespace poreflow
