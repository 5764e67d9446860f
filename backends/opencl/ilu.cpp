// ilu on the opencl backend (kernels_cl/ilu.cl): one launch a colour, a program per block size.
#include <string>

#include "backends/opencl/families.hpp"
#include "core/kernels/ilu.hpp"
#include "core/physics/ilu.h"

namespace poreflow::ocl {
namespace {

class ClIlu final : public IluImpl {
 public:
  explicit ClIlu(ClContext& ctx) : ctx_(ctx) {}

  void s7_factor(const IluStencilArgs& a, int colour) override {
    ClKernel& k = kernel(a.prec, a.block, colour == 0 ? "ilu_s7_factor0" : "ilu_s7_factor1");
    ctx_.set_args(k, a.prec, a.factor_args());
    ctx_.launch_points(k, colour == 0 ? static_cast<std::size_t>(a.extent()) : half_cells(a));
  }

  void s7_lower(const IluStencilArgs& a, int colour) override {
    ClKernel& k = kernel(a.prec, a.block, colour == 0 ? "ilu_s7_lower0" : "ilu_s7_lower1");
    ctx_.set_args(k, a.prec, a.sweep_args());
    ctx_.launch_points(k, colour == 0 ? static_cast<std::size_t>(a.extent()) : half_cells(a));
  }

  void s7_upper(const IluStencilArgs& a) override {
    ClKernel& k = kernel(a.prec, a.block, "ilu_s7_upper0");
    ctx_.set_args(k, a.prec, a.sweep_args());
    ctx_.launch_points(k, half_cells(a));
  }

  void csr_factor(const IluCsrArgs& a) override {
    ClKernel& k = kernel(a.prec, a.block, "ilu_csr_factor");
    ctx_.set_args(k, a.prec, a.factor_args());
    ctx_.launch_points(k, static_cast<std::size_t>(a.count));
  }

  void csr_lower(const IluCsrArgs& a) override {
    ClKernel& k = kernel(a.prec, a.block, "ilu_csr_lower");
    ctx_.set_args(k, a.prec, a.sweep_args());
    ctx_.launch_points(k, static_cast<std::size_t>(a.count));
  }

  void csr_upper(const IluCsrArgs& a) override {
    ClKernel& k = kernel(a.prec, a.block, "ilu_csr_upper");
    ctx_.set_args(k, a.prec, a.sweep_args());
    ctx_.launch_points(k, static_cast<std::size_t>(a.count));
  }

 private:
  ClKernel& kernel(Precision prec, int block, const char* name) {
    return ctx_.kernel("ilu", prec, ctx_.fast_block(), name, "#define PF_ILU_B " + std::to_string(block) + "\n");
  }
  static std::size_t half_cells(const IluStencilArgs& a) { return static_cast<std::size_t>(phys::pf_rb_m(a.box.view())); }

  ClContext& ctx_;
};

}  // namespace

FamilyPtr<IluImpl> make_family(ClContext& ctx, FamilyTag<IluImpl>) { return std::make_shared<ClIlu>(ctx); }

}  // namespace poreflow::ocl
