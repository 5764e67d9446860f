// fim on the opencl backend (kernels_cl/fim.cl).
#include "backends/opencl/families.hpp"
#include "core/kernels/fim.hpp"

namespace poreflow::ocl {
namespace {

class ClFim final : public FimImpl {
 public:
  explicit ClFim(ClContext& ctx) : ctx_(ctx) {}
  void masses(const FimMassesArgs& a) override { run(a, "fim_masses", a.grid.box.extent()); }
  void assemble(const FimAssembleArgs& a) override { run(a, "fim_assemble", static_cast<std::size_t>(a.grid.box.cells())); }

 private:
  template <class A>
  void run(const A& a, const char* name, std::size_t n) {
    ClKernel& k = ctx_.kernel("fim", a.prec, ctx_.fast_block(), name);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, n);
  }
  ClContext& ctx_;
};

}  // namespace

FamilyPtr<FimImpl> make_family(ClContext& ctx, FamilyTag<FimImpl>) { return std::make_shared<ClFim>(ctx); }

}  // namespace poreflow::ocl
