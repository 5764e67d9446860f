// jacobi1d on the cuda backend (kernels_cu/jacobi1d.cu): the launches of a batch back to back;
// with Combine::Host every check is followed by a round trip that combines the block maxima.
#include <algorithm>
#include <cstdint>
#include <limits>

#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/jacobi1d.hpp"
#include "core/base/converge.h"
#include "kernels_cu/jacobi1d.cuh"
#include "kernels_cu/order_key.hpp"

namespace poreflow::cuda_detail {
namespace {

class CudaJacobi1D final : public Jacobi1DImpl {
 public:
  explicit CudaJacobi1D(CudaContext& ctx) : ctx_(ctx) {
    ctx_.activate();
    h_ctrl_ = PinnedMem(2 * PF_CV_WORDS * sizeof(std::uint64_t));  // read-back block + upload staging
  }

  void iterate(const Jacobi1DArgs& a, long first, long count) override {
    ctx_.activate();
    if (a.prec == Precision::Float) iterate_t<float>(a, first, count);
    else iterate_t<double>(a, first, count);
  }

 private:
  template <class T>
  void iterate_t(const Jacobi1DArgs& args, long first, long count) {
    using K = cu::bits_t<T>;
    cu::JacobiLaunch l;
    l.variant = args.reduce.variant;
    l.block = args.reduce.block;
    l.grid = cu::jacobi_grid(l.variant, l.block, args.n, ctx_.sm_count());
    if (l.grid > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw BackendError("jacobi1d: " + std::to_string(args.n) + " points need more blocks than a grid holds");
    // Fast always combines on the device (as on opencl)
    const bool host = args.reduce.combine == Combine::Host && l.variant != ReduceVariant::Fast;
    if (host) {
      ctx_.ensure(partials_, l.grid * sizeof(K));
      ctx_.ensure(h_partials_, l.grid * sizeof(K));
      l.partials = partials_.get();
    }
    for (long it = first; it < first + count; ++it) {
      const FusedPlan plan = fused_plan(it, args.check_every);
      l.it = it;
      l.decide_slot = plan.decide_slot;
      l.check = plan.check;
      l.check_slot = plan.check_slot;
      l.clear_slot = plan.clear_slot;
      cu_launch<T>(&cu::launch_jacobi1d<T>, args.kernel_args(static_cast<int>(it % 2)), l, ctx_.stream());
      PF_CHECK_LAUNCH("jacobi1d");
      if (l.check && host && !host_check_round_trip<K>(l, dptr<unsigned long long>(args.ctrl))) return;
    }
  }

  // Combine::Host after a check launch: wait, read the control block and the block maxima, and
  // write the check's slot (and the next one, zeroed) back. Returns false once stopped: the
  // launch then wrote no partials, and the launches left would return at once anyway.
  template <class K>
  bool host_check_round_trip(const cu::JacobiLaunch& l, unsigned long long* ctrl) {
    auto* h = static_cast<std::uint64_t*>(h_ctrl_.get());  // [0, 16): read back; [16, 19): upload
    const std::size_t bytes = l.grid * sizeof(K);
    cudaStream_t s = ctx_.stream();
    PF_CHECK_CUDA(cudaMemcpyAsync(h, ctrl, PF_CV_WORDS * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, s));
    PF_CHECK_CUDA(cudaMemcpyAsync(h_partials_.get(), l.partials, bytes, cudaMemcpyDeviceToHost, s));
    ctx_.sync();
    if (h[PF_CV_STOP]) return false;
    const K* part = static_cast<const K*>(h_partials_.get());
    K m = 0;
    for (std::size_t j = 0; j < l.grid; ++j) m = std::max(m, part[j]);  // bit patterns of values >= 0
    std::uint64_t* up = h + PF_CV_WORDS;
    for (int i = 0; i < PF_CV_NSLOTS; ++i) up[i] = h[PF_CV_SLOT0 + i];
    up[l.check_slot] = static_cast<std::uint64_t>(m);  // a float's bits in the low half
    up[l.clear_slot] = 0;
    // the staging words are rewritten only after the next round trip's wait, so this may be async
    PF_CHECK_CUDA(cudaMemcpyAsync(ctrl + PF_CV_SLOT0, up, PF_CV_NSLOTS * sizeof(std::uint64_t), cudaMemcpyHostToDevice, s));
    return true;
  }

  CudaContext& ctx_;
  DeviceMem partials_;
  PinnedMem h_partials_, h_ctrl_;
};

}  // namespace

FamilyPtr<Jacobi1DImpl> make_family(CudaContext& ctx, FamilyTag<Jacobi1DImpl>) { return std::make_shared<CudaJacobi1D>(ctx); }

}  // namespace poreflow::cuda_detail
