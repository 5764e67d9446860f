// jacobi1d on the opencl backend (kernels_cl/jacobi1d.cl): the launches of a batch back to back;
// with Combine::Host every check is followed by a round trip that combines the group maxima.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/opencl/families.hpp"
#include "core/kernels/jacobi1d.hpp"
#include "core/base/converge.h"

namespace poreflow::ocl {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

class ClJacobi1D final : public Jacobi1DImpl {
 public:
  explicit ClJacobi1D(ClContext& ctx) : ctx_(ctx) { partials_ = std::make_unique<ClBuffer>(ctx_.context(), 1 << 16); }

  void iterate(const Jacobi1DArgs& a, long first, long count) override {
    const bool fast = a.reduce.variant == ReduceVariant::Fast;
    const bool host = !fast && a.reduce.combine == Combine::Host;
    if (!host) ctx_.require_int64_atomics(a.prec);
    const int block = fast ? ctx_.fast_block() : a.reduce.block;
    // [check][parity]: a check launch reduces the metric, a step only updates
    const std::string check_name = "jacobi_check_" + std::string(to_string(a.reduce.variant));
    const std::string step_name = fast ? "jacobi_step_fast" : "jacobi_step";
    ClKernel* ks[2][2] = {{&kernel(a, block, step_name, 0), &kernel(a, block, step_name, 1)},
                          {&kernel(a, block, check_name, 0), &kernel(a, block, check_name, 1)}};
    // paper variants: one interior point per work-item; Fast: tiles of 4 points per work-item
    const std::size_t groups = fast ? std::min(ctx_.fast_groups(), ceil_div(a.n, std::size_t(block) * 4))
                                    : ceil_div(a.n - 2, block);
    if (host) ctx_.ensure(partials_, groups * 8);
    // what stays the same over the batch, set once: the description and the partials; a launch
    // sets only its extras `it` and `plan`, which follow
    cl_uint extras = 0;
    for (int parity = 0; parity < 2; ++parity)
      for (int chk = 0; chk < 2; ++chk)
        extras = ctx_.set_args(*ks[chk][parity], a.prec, a.kernel_args(parity), partials_->mem, cl_long(0), cl_int4{});

    for (long it = first; it < first + count; ++it) {
      const FusedPlan p = fused_plan(it, a.check_every);
      cl_int4 plan;
      plan.s[0] = p.decide_slot;
      plan.s[1] = p.check ? p.check_slot : -1;
      plan.s[2] = p.check ? p.clear_slot : -1;
      plan.s[3] = host;
      ClKernel& kern = *ks[p.check][it % 2];
      ctx_.set(kern, extras + 1, cl_long(it));
      ctx_.set(kern, extras + 2, plan);
      ctx_.launch(kern, groups * block, block);
      if (host && p.check && !combine_on_host(a, groups, p)) return;
    }
  }

 private:
  ClKernel& kernel(const Jacobi1DArgs& a, int block, const std::string& name, int instance) {
    return ctx_.kernel("jacobi1d", a.prec, block, name, "", instance);
  }

  // Combine::Host after a check launch: the group maxima come back, their max goes into the slot.
  // Returns false when that launch found the run stopped (the partials are then stale).
  bool combine_on_host(const Jacobi1DArgs& a, std::size_t groups, const FusedPlan& p) {
    auto& q = ctx_.queue();
    std::vector<std::uint64_t> keys(groups);
    TallyTimer timed(TallyTimer::Wait);  // the two reads and the write below
    PF_CHECK_CL(q.enqueueReadBuffer(partials_->mem, CL_TRUE, 0, groups * 8, keys.data()));
    std::uint64_t w[PF_CV_WORDS];
    PF_CHECK_CL(q.enqueueReadBuffer(mem(*a.ctrl), CL_TRUE, 0, sizeof w, w));
    if (w[PF_CV_STOP]) return false;
    w[PF_CV_SLOT0 + p.check_slot] = *std::max_element(keys.begin(), keys.end());
    w[PF_CV_SLOT0 + p.clear_slot] = 0;
    PF_CHECK_CL(q.enqueueWriteBuffer(mem(*a.ctrl), CL_TRUE, PF_CV_SLOT0 * 8, PF_CV_NSLOTS * 8, w + PF_CV_SLOT0));
    return true;
  }

  ClContext& ctx_;
  std::unique_ptr<ClBuffer> partials_;
};

}  // namespace

FamilyPtr<Jacobi1DImpl> make_family(ClContext& ctx, FamilyTag<Jacobi1DImpl>) { return std::make_shared<ClJacobi1D>(ctx); }

}  // namespace poreflow::ocl
