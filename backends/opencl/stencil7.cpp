// stencil7 on the opencl backend (kernels_cl/stencil7.cl), a program per block size.
#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>

#include "backends/opencl/families.hpp"
#include "core/kernels/stencil7.hpp"

namespace poreflow::ocl {
namespace {

class ClStencil7 final : public Stencil7Impl {
 public:
  explicit ClStencil7(ClContext& ctx) : ctx_(ctx) {
    partials_ = std::make_unique<ClBuffer>(ctx_.context(), 8 * ctx_.fast_groups());
    counter_ = std::make_unique<ClBuffer>(ctx_.context(), 8);
    ctx_.fill_bytes(counter_->mem, std::uint32_t{0}, 8);  // the last group re-arms it
  }

  void apply(const Stencil7ApplyArgs& a) override {
    ClKernel& k = kernel(a.prec, a.block, "s7_apply");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, a.box.extent());
  }

  void chebyshev(const Stencil7ChebyshevArgs& a) override {
    ClKernel& k = kernel(a.prec, 1, "s7_chebyshev");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, a.box.extent());
  }

  void invert(const Stencil7InvertArgs& a) override {
    const std::size_t b = static_cast<std::size_t>(ctx_.fast_block());
    const std::size_t g = std::clamp<std::size_t>((a.box.extent() + 16 * b - 1) / (16 * b), 1, ctx_.fast_groups());
    ClKernel& k = kernel(a.prec, a.block, "s7_invert");
    ctx_.set_args(k, a.prec, a.kernel_args(), partials_->mem, counter_->mem);
    ctx_.launch(k, g * b, b);
  }

  void from_sor(const Stencil7FromSorArgs& a) override {
    ClKernel& k = kernel(a.prec, 1, "s7_from_sor");
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, static_cast<std::size_t>(a.box.cells()));
  }

 private:
  ClKernel& kernel(Precision prec, int block, const char* name) {
    return ctx_.kernel("stencil7", prec, ctx_.fast_block(), name, "#define PF_S7_BLOCK " + std::to_string(block) + "\n");
  }

  ClContext& ctx_;
  std::unique_ptr<ClBuffer> partials_, counter_;
};

}  // namespace

FamilyPtr<Stencil7Impl> make_family(ClContext& ctx, FamilyTag<Stencil7Impl>) { return std::make_shared<ClStencil7>(ctx); }

}  // namespace poreflow::ocl
