// cpr on the opencl backend (kernels_cl/cpr.cl).
#include "backends/opencl/families.hpp"
#include "core/kernels/cpr.hpp"

namespace poreflow::ocl {
namespace {

class ClCpr final : public CprImpl {
 public:
  explicit ClCpr(ClContext& ctx) : ctx_(ctx) {}
  void weights(const CprWeightsArgs& a) override { run(a, "cpr_weights", a.cells); }
  void pressure(const CprPressureArgs& a) override { run(a, "cpr_pressure", a.entries); }
  void restrict_residual(const CprRestrictArgs& a) override { run(a, "cpr_restrict", a.cells); }
  void prolong(const CprProlongArgs& a) override { run(a, "cpr_prolong", a.cells); }

 private:
  template <class A>
  void run(const A& a, const char* name, std::size_t n) {
    ClKernel& k = ctx_.kernel("cpr", a.prec, ctx_.fast_block(), name);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, n);
  }
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<CprImpl> make_family(ClContext& ctx, FamilyTag<CprImpl>) { return std::make_shared<ClCpr>(ctx); }

}  // namespace poreflow::ocl
