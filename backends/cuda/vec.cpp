// vec on the cuda backend (kernels_cu/vec.cu): the reductions' partials and last-block counter are
// the family's scratch, grown when a launch needs more (which waits, once).
#include <algorithm>

#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/vec.hpp"
#include "kernels_cu/reduce.cuh"
#include "kernels_cu/vec.cuh"

namespace poreflow::cuda_detail {
namespace {

class CudaVec final : public VecImpl {
 public:
  explicit CudaVec(CudaContext& ctx) : ctx_(ctx) {
    ctx_.activate();
    counter_ = DeviceMem(sizeof(unsigned int));
    PF_CHECK_CUDA(cudaMemsetAsync(counter_.get(), 0, counter_.bytes(), ctx_.stream()));  // atomicInc re-arms it
    ctx_.sync();
  }

  void dot(const VecDotArgs& a) override {
    run(a, "vec dot", [&](auto t) { cu_launch<decltype(t)>(&cu::launch_vec_dot<decltype(t)>, a.kernel_args(), shape(a, a.n, 2), ctx_.stream()); });
  }
  void multi_dot(const VecMultiDotArgs& a) override {
    run(a, "vec multi_dot", [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_vec_multi_dot<T>, a.kernel_args(), shape(a, a.n, static_cast<std::size_t>(a.count)),
                   ctx_.stream());
    });
  }
  void axpby(const VecAxpbyArgs& a) override {
    run(a, "vec axpby", [&](auto t) { cu_launch<decltype(t)>(&cu::launch_vec_axpby<decltype(t)>, a.kernel_args(), ctx_.stream()); });
  }
  void axpbypcz(const VecAxpbypczArgs& a) override {
    run(a, "vec axpbypcz",
        [&](auto t) { cu_launch<decltype(t)>(&cu::launch_vec_axpbypcz<decltype(t)>, a.kernel_args(), ctx_.stream()); });
  }
  void update2(const VecUpdate2Args& a) override {
    run(a, "vec update2", [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_vec_update2<T>, a.kernel_args(), shape(a, a.n, 2), ctx_.stream());
    });
  }
  void multi_axpy(const VecMultiAxpyArgs& a) override {
    run(a, "vec multi_axpy", [&](auto t) {
      using T = decltype(t);
      cu_launch<T>(&cu::launch_vec_multi_axpy<T>, a.kernel_args(), shape(a, a.n, 1), ctx_.stream());
    });
  }
  void store(const VecStoreArgs& a) override {
    run(a, "vec store", [&](auto t) { cu_launch<decltype(t)>(&cu::launch_vec_store<decltype(t)>, a.kernel_args(), ctx_.stream()); });
  }
  void diag(const VecDiagArgs& a) override {
    run(a, "vec diag",
        [&](auto t) { cu_launch<decltype(t)>(&cu::launch_vec_diag<decltype(t)>, a.kernel_args(), a.block, ctx_.stream()); });
  }
  void gather(const VecGatherArgs& a) override {
    run(a, "vec gather", [&](auto t) { cu_launch<decltype(t)>(&cu::launch_vec_gather<decltype(t)>, a.kernel_args(), ctx_.stream()); });
  }
  void convert(const VecConvertArgs& a) override {
    run(a, a.to_float ? "vec narrow" : "vec widen", [&](auto t) {
      using T = decltype(t);
      if (a.to_float) cu_launch<T>(&cu::launch_vec_narrow<T>, a.narrow_args(), ctx_.stream());
      else cu_launch<T>(&cu::launch_vec_widen<T>, a.widen_args(), ctx_.stream());
    });
  }
  void check(const VecCheckArgs& a) override {
    run(a, "vec check", [&](auto t) { cu_launch<decltype(t)>(&cu::launch_vec_check<decltype(t)>, a.kernel_args(), ctx_.stream()); });
  }
  void gmres_column(const VecGmresColumnArgs& a) override {
    run(a, "vec gmres_column",
        [&](auto t) { cu_launch<decltype(t)>(&cu::launch_vec_gmres_column<decltype(t)>, a.kernel_args(), ctx_.stream()); });
  }
  void gmres_solve(const VecGmresSolveArgs& a) override {
    run(a, "vec gmres_solve",
        [&](auto t) { cu_launch<decltype(t)>(&cu::launch_vec_gmres_solve<decltype(t)>, a.kernel_args(), ctx_.stream()); });
  }
  void first_nonfinite(const VecFirstNonfiniteArgs& a) override {
    run(a, "vec first_nonfinite", [&](auto t) {
      using T = decltype(t);
      cu::VecLaunch l = shape(a, a.n, 1);
      cu_launch<T>(&cu::launch_vec_first_nonfinite<T>, a.kernel_args(), l, ctx_.stream());
    });
  }

  std::string vendor_name() const override { return "cub"; }
  // CUB's DeviceReduce::Sum over x[i] y[i], straight into the slot; its temporary storage is
  // allocated once and grown when needed
  void vendor_dot(const VecDotArgs& a) override {
    run(a, "cub::DeviceReduce (dot)", [&](auto t) {
      using T = decltype(t);
      const auto [n, x, y, x2, y2, s, slot1, slot2, guard] = device_args<T>(a.kernel_args());
      (void)x2, (void)y2, (void)slot2, (void)guard;
      std::size_t bytes = 0;
      PF_CHECK_CUDA(cu::cub_dot<T>(x, y, n, s + slot1, nullptr, bytes, ctx_.stream()));
      ctx_.ensure(cub_temp_, std::max<std::size_t>(bytes, 1));
      bytes = cub_temp_.bytes();
      PF_CHECK_CUDA(cu::cub_dot<T>(x, y, n, s + slot1, cub_temp_.get(), bytes, ctx_.stream()));
    });
  }

 private:
  template <class A, class F>
  void run(const A& a, const char* what, F&& f) {
    ctx_.activate();
    with_type(a.prec, f);
    PF_CHECK_LAUNCH(what);
  }

  // the persistent grid for n elements and partials for `values` sums of it (8 bytes each: a double
  // or a u64 word, enough for a float)
  template <class A>
  cu::VecLaunch shape(const A&, std::size_t n, std::size_t values) {
    cu::VecLaunch l;
    l.grid = cu::vec_grid(n, ctx_.sm_count());
    ctx_.ensure(partials_, std::max<std::size_t>(values, 1) * l.grid * 8);
    l.partials = partials_.get();
    l.counter = static_cast<unsigned int*>(counter_.get());
    return l;
  }

  CudaContext& ctx_;
  DeviceMem partials_, counter_, cub_temp_;
};

}  // namespace

FamilyPtr<VecImpl> make_family(CudaContext& ctx, FamilyTag<VecImpl>) { return std::make_shared<CudaVec>(ctx); }

}  // namespace poreflow::cuda_detail
