// amg on the opencl backend (kernels_cl/amg.cl).
#include <algorithm>

#include "backends/opencl/families.hpp"
#include "core/kernels/amg.hpp"

namespace poreflow::ocl {
namespace {

constexpr std::size_t kTailBlock = 1024;

class ClAmg final : public AmgImpl {
 public:
  explicit ClAmg(ClContext& ctx) : ctx_(ctx) {}
  void p_values(const AmgPValuesArgs& a) override { run(a, "amg_p_values", a.rows); }
  void galerkin(const AmgGalerkinArgs& a) override { run(a, "amg_galerkin", a.c_values); }  // an entry a work-item
  void smooth(const AmgSmoothArgs& a) override { run(a, "amg_smooth", a.n); }
  // one work-group (the CUDA twin's block of kTailBlock), or the device's largest if smaller
  void tail_cycle(const AmgTailArgs& a) override {
    const int block = static_cast<int>(std::min<std::size_t>(kTailBlock, ctx_.traits().max_group));
    ClKernel& k = ctx_.kernel("amg", a.prec, block, "amg_tail");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, static_cast<std::size_t>(block), static_cast<std::size_t>(block));
  }

 private:
  template <class A>
  void run(const A& a, const char* name, std::size_t n) {
    ClKernel& k = ctx_.kernel("amg", a.prec, ctx_.fast_block(), name);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, n);
  }
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<AmgImpl> make_family(ClContext& ctx, FamilyTag<AmgImpl>) { return std::make_shared<ClAmg>(ctx); }

}  // namespace poreflow::ocl
