// The reduce family on the cuda backend (kernels_cu/reduce.cu): the paper variants with either
// combine, Fast, and CUB. A result stays on the device until fetch() copies it back, so enqueue
// costs what the kernels cost (as on opencl).
#include <cmath>
#include <cstring>
#include <limits>

#include "backends/cuda/device_args.hpp"
#include "backends/cuda/families.hpp"
#include "core/kernels/reduce.hpp"
#include "kernels_cu/order_key.hpp"
#include "kernels_cu/reduce.cuh"

namespace poreflow::cuda_detail {
namespace {

// the identity each op returns for n == 0 (as the serial reference does)
double reduce_identity(ReduceOp op) {
  switch (op) {
    case ReduceOp::Min: return std::numeric_limits<double>::infinity();
    case ReduceOp::Max: return -std::numeric_limits<double>::infinity();
    default: return 0.0;
  }
}

// One reduction value read back from the device: a T for sums, CUB's results and the non-negative
// maxima, an order key for min and max (kernels_cu/order_key.hpp).
double decode(const unsigned char* p, Precision prec, ReduceOp op, bool raw) {
  const bool key = !raw && cu::uses_order_key(op);
  if (prec == Precision::Float) {
    unsigned int w;
    std::memcpy(&w, p, sizeof w);
    if (key) w = cu::key_bits(w);
    float f;
    std::memcpy(&f, &w, sizeof f);
    return f;
  }
  unsigned long long w;
  std::memcpy(&w, p, sizeof w);
  if (key) w = cu::key_bits(w);
  double d;
  std::memcpy(&d, &w, sizeof d);
  return d;
}

class CudaReduce final : public ReduceImpl {
 public:
  explicit CudaReduce(CudaContext& ctx) : ctx_(ctx) {
    ctx_.activate();
    // fixed scratch: [0, 8) the result, [8, 12) Fast's last-block counter (kept at 0 between
    // calls by the kernel itself), [256, ...) Fast's per-block partials
    fixed_ = DeviceMem(kPartialsOffset + static_cast<std::size_t>(cu::kFastMaxGrid) * sizeof(double));
    PF_CHECK_CUDA(cudaMemsetAsync(fixed_.get(), 0, fixed_.bytes(), ctx_.stream()));
    h_result_ = PinnedMem(sizeof(double));
    ctx_.sync();
  }

  std::vector<ReduceVariant> variants() const override {
    return {ReduceVariant::Fast,       ReduceVariant::CompleteUnroll, ReduceVariant::UnrollLastWarp,
            ReduceVariant::Sequential, ReduceVariant::Interleaved,    ReduceVariant::InterleavedDivergent};
  }

  void enqueue(const ReduceArgs& args) override {
    if (args.n == 0) {
      pending_ = {PendingKind::Value, args.op, args.prec, false, 0, reduce_identity(args.op)};
      return;
    }
    ctx_.activate();
    if (args.prec == Precision::Float) enqueue_t<float>(args);
    else enqueue_t<double>(args);
  }

  double fetch() override {
    switch (pending_.kind) {
      case PendingKind::None: throw BackendError("reduce fetch: no reduction was enqueued");
      case PendingKind::Value: return pending_.value;
      case PendingKind::Result:
        ctx_.activate();
        PF_CHECK_CUDA(cudaMemcpyAsync(h_result_.get(), fixed(kResultOffset), size_of(pending_.prec),
                                      cudaMemcpyDeviceToHost, ctx_.stream()));
        ctx_.sync();
        pending_.value = decode(static_cast<const unsigned char*>(h_result_.get()), pending_.prec, pending_.op, pending_.raw);
        break;
      case PendingKind::Partials: {
        // Combine::Host: the per-block results, copied to the host by enqueue, combined in double
        ctx_.activate();
        ctx_.sync();
        const auto* p = static_cast<const unsigned char*>(h_partials_.get());
        const std::size_t sz = size_of(pending_.prec);
        double r = reduce_identity(pending_.op);
        for (std::size_t j = 0; j < pending_.count; ++j) {
          const double x = decode(p + j * sz, pending_.prec, pending_.op, false);
          if (pending_.op == ReduceOp::Sum) r += x;
          else if (pending_.op == ReduceOp::Min) r = (x < r || std::isnan(x)) ? x : r;
          else r = (x > r || std::isnan(x)) ? x : r;  // NaN wins, as in the device's key max
        }
        pending_.value = r;
        break;
      }
    }
    pending_.kind = PendingKind::Value;  // fetching again returns the same result
    return pending_.value;
  }

  std::string vendor_name() const override { return "cub"; }

  void vendor_enqueue(const ReduceArgs& args) override {
    if (args.n == 0) {
      pending_ = {PendingKind::Value, args.op, args.prec, true, 0, reduce_identity(args.op)};
      return;
    }
    ctx_.activate();
    if (args.prec == Precision::Float) vendor_t<float>(args);
    else vendor_t<double>(args);
  }

 private:
  static constexpr std::size_t kResultOffset = 0;
  static constexpr std::size_t kCounterOffset = 8;
  static constexpr std::size_t kPartialsOffset = 256;

  enum class PendingKind { None, Value, Result, Partials };
  struct Pending {
    PendingKind kind = PendingKind::None;
    ReduceOp op = ReduceOp::Sum;
    Precision prec = Precision::Double;
    bool raw = false;       // the result is a T (CUB), not as the kernels hold it
    std::size_t count = 0;  // partials (Combine::Host)
    double value = 0;       // PendingKind::Value
  };

  char* fixed(std::size_t offset) const { return static_cast<char*>(fixed_.get()) + offset; }

  template <class T>
  void enqueue_t(const ReduceArgs& args) {
    cu::ReduceLaunch l;
    l.op = args.op;
    l.variant = args.cfg.variant;
    l.block = args.cfg.block;
    l.grid = cu::reduce_grid(l.variant, l.block, args.n, ctx_.sm_count());
    if (l.grid > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw BackendError("reduce: " + std::to_string(args.n) + " elements need more blocks than a grid holds");
    const bool fast = l.variant == ReduceVariant::Fast;
    const char* kname = fast ? "reduce (fast)" : "reduce (paper variant)";
    cudaStream_t s = ctx_.stream();

    if (args.cfg.combine == Combine::Host && !fast) {
      // each block's partial goes to the host, which combines them in fetch (papers 001, 003)
      const std::size_t bytes = l.grid * sizeof(T);
      ctx_.ensure(partials_, bytes);
      ctx_.ensure(h_partials_, bytes);
      l.host_combine = true;
      l.partials = partials_.get();
      cu_launch<T>(&cu::launch_reduce<T>, args.kernel_args(), l, s);
      PF_CHECK_LAUNCH(kname);
      PF_CHECK_CUDA(cudaMemcpyAsync(h_partials_.get(), partials_.get(), bytes, cudaMemcpyDeviceToHost, s));
      pending_ = {PendingKind::Partials, args.op, args.prec, false, l.grid, 0.0};
      return;
    }
    l.result = fixed(kResultOffset);
    if (fast) {
      // one pass; the kernel's last block writes the result and re-arms the counter
      l.partials = fixed(kPartialsOffset);
      l.counter = reinterpret_cast<unsigned int*>(fixed(kCounterOffset));
    } else {
      // the atomic slot starts at the op's neutral value: 0 for sums and maxima, all ones for minima
      PF_CHECK_CUDA(cudaMemsetAsync(l.result, args.op == ReduceOp::Min ? 0xff : 0, sizeof(T), s));
    }
    cu_launch<T>(&cu::launch_reduce<T>, args.kernel_args(), l, s);
    PF_CHECK_LAUNCH(kname);
    pending_ = {PendingKind::Result, args.op, args.prec, false, 0, 0.0};
  }

  template <class T>
  void vendor_t(const ReduceArgs& args) {
    const auto [a, b, n] = device_args<T>(args.kernel_args());
    T* out = reinterpret_cast<T*>(fixed(kResultOffset));
    std::size_t bytes = 0;
    PF_CHECK_CUDA(cu::cub_reduce<T>(args.op, a, b, n, out, nullptr, bytes, ctx_.stream()));
    ctx_.ensure(cub_temp_, std::max<std::size_t>(bytes, 1));  // allocated once, grown when needed
    bytes = cub_temp_.bytes();
    PF_CHECK_CUDA(cu::cub_reduce<T>(args.op, a, b, n, out, cub_temp_.get(), bytes, ctx_.stream()));
    PF_CHECK_LAUNCH("cub::DeviceReduce");
    pending_ = {PendingKind::Result, args.op, args.prec, true, 0, 0.0};
  }

  CudaContext& ctx_;
  DeviceMem fixed_;     // result slot, Fast counter and partials
  DeviceMem partials_;  // Combine::Host partials
  DeviceMem cub_temp_;
  PinnedMem h_result_, h_partials_;
  Pending pending_;
};

}  // namespace

FamilyPtr<ReduceImpl> make_family(CudaContext& ctx, FamilyTag<ReduceImpl>) { return std::make_shared<CudaReduce>(ctx); }

}  // namespace poreflow::cuda_detail
