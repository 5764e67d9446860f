// vec on the opencl backend (kernels_cl/vec.cl): element-wise kernels one work-item per element,
// reductions on a persistent grid of at most fast_groups() groups with the last group combining
// (kernels_cl/last_group.cl), the one-work-item kernels as one group.
#include <algorithm>
#include <cstdint>
#include <memory>

#include "backends/opencl/families.hpp"
#include "core/kernels/vec.hpp"

namespace poreflow::ocl {
namespace {

class ClVec final : public VecImpl {
 public:
  explicit ClVec(ClContext& ctx) : ctx_(ctx) {
    partials_ = std::make_unique<ClBuffer>(ctx_.context(), 1 << 16);
    counter_ = std::make_unique<ClBuffer>(ctx_.context(), 8);
    ctx_.fill_bytes(counter_->mem, std::uint32_t{0}, 8);  // the last group re-arms it after each launch
  }

  void dot(const VecDotArgs& a) override { reduce(a, "vec_dot", a.n, 2); }
  void multi_dot(const VecMultiDotArgs& a) override {
    reduce(a, "vec_multi_dot", a.n, (static_cast<std::size_t>(a.count) + 7) / 8 * 8);  // whole passes of 8 vectors
  }
  void update2(const VecUpdate2Args& a) override {
    if (a.dots()) reduce(a, "vec_update2_dots", a.n, 2);
    else points(a, "vec_update2", a.n, true);
  }
  void multi_axpy(const VecMultiAxpyArgs& a) override {
    if (a.norm_slot >= 0) reduce(a, "vec_multi_axpy_norm", a.n, 1);
    else points(a, "vec_multi_axpy", a.n, true);
  }

  void axpby(const VecAxpbyArgs& a) override { points(a, "vec_axpby", a.n); }
  void axpbypcz(const VecAxpbypczArgs& a) override { points(a, "vec_axpbypcz", a.n); }
  void store(const VecStoreArgs& a) override { points(a, "vec_store", a.n); }
  void diag(const VecDiagArgs& a) override { points(a, a.block == 1 ? "vec_diag1" : "vec_diag2", a.cells); }
  void gather(const VecGatherArgs& a) override { points(a, "vec_gather", a.n); }
  void convert(const VecConvertArgs& a) override {
    ClKernel& k = kernel(a.prec, a.to_float ? "vec_narrow" : "vec_widen");
    if (a.to_float) ctx_.set_args(k, a.prec, a.narrow_args());
    else ctx_.set_args(k, a.prec, a.widen_args());
    ctx_.launch_points(k, a.n);
  }

  void check(const VecCheckArgs& a) override { single(a, "vec_check"); }
  void gmres_column(const VecGmresColumnArgs& a) override { single(a, "vec_gmres_column"); }
  void gmres_solve(const VecGmresSolveArgs& a) override { single(a, "vec_gmres_solve"); }

  void first_nonfinite(const VecFirstNonfiniteArgs& a) override { reduce(a, "vec_first_nonfinite", a.n, 1); }

 private:
  ClKernel& kernel(Precision prec, const char* name) { return ctx_.kernel("vec", prec, ctx_.fast_block(), name); }

  // a persistent grid: at least 16 elements per work-item before it grows
  std::size_t groups(std::size_t n) const {
    const std::size_t b = static_cast<std::size_t>(ctx_.fast_block());
    return std::clamp<std::size_t>((n + 16 * b - 1) / (16 * b), 1, ctx_.fast_groups());
  }

  template <class A>
  void reduce(const A& a, const char* name, std::size_t n, std::size_t values) {
    const std::size_t g = groups(n);
    ctx_.ensure(partials_, std::max<std::size_t>(values, 1) * g * 8);
    ClKernel& k = kernel(a.prec, name);
    ctx_.set_args(k, a.prec, a.kernel_args(), partials_->mem, counter_->mem);
    ctx_.launch(k, g * ctx_.fast_block(), ctx_.fast_block());
  }

  // one work-item per element; scratch: the kernel shares its parameters with a reducing twin
  template <class A>
  void points(const A& a, const char* name, std::size_t n, bool scratch = false) {
    ClKernel& k = kernel(a.prec, name);
    if (scratch) ctx_.set_args(k, a.prec, a.kernel_args(), partials_->mem, counter_->mem);
    else ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch_points(k, n);
  }

  template <class A>
  void single(const A& a, const char* name) {
    ClKernel& k = kernel(a.prec, name);
    ctx_.set_args(k, a.prec, a.kernel_args());
    ctx_.launch(k, ctx_.fast_block(), ctx_.fast_block());
  }

  ClContext& ctx_;
  std::unique_ptr<ClBuffer> partials_, counter_;
};

}  // namespace

FamilyPtr<VecImpl> make_family(ClContext& ctx, FamilyTag<VecImpl>) { return std::make_shared<ClVec>(ctx); }

}  // namespace poreflow::ocl
