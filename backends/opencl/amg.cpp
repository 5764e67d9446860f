// amg on the opencl backend (kernels_cl/amg.cl).
#include "backends/opencl/families.hpp"
#include "core/kernels/amg.hpp"

namespace poreflow::ocl {
namespace {

class ClAmg final : public AmgImpl {
 public:
  explicit ClAmg(ClContext& ctx) : ctx_(ctx) {}
  void p_values(const AmgPValuesArgs& a) override { run(a, "amg_p_values", a.rows); }
  void galerkin(const AmgGalerkinArgs& a) override { run(a, "amg_galerkin", a.rows); }
  void smooth(const AmgSmoothArgs& a) override { run(a, "amg_smooth", a.n); }

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
