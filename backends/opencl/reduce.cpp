// The reduce family on the opencl backend (kernels_cl/reduce.cl): the paper variants take their
// work-group size from ReduceConfig::block; Fast picks its own launch shape and always combines
// on the device.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "backends/opencl/families.hpp"
#include "core/kernels/reduce.hpp"

namespace poreflow::ocl {
namespace {

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// An order-preserving unsigned key of x, as the kernels' pf_order_key computes it.
std::uint64_t order_key(Precision p, double x) {
  if (p == Precision::Float) {
    float f = static_cast<float>(x);
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  }
  std::uint64_t b;
  std::memcpy(&b, &x, 8);
  return (b & (1ull << 63)) ? ~b : (b | (1ull << 63));
}

double from_order_key(Precision p, std::uint64_t key) {
  if (p == Precision::Float) {
    auto k = static_cast<std::uint32_t>(key);
    std::uint32_t b = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  std::uint64_t b = (key & (1ull << 63)) ? (key & ~(1ull << 63)) : ~key;
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

double from_bits(Precision p, std::uint64_t bits) {
  if (p == Precision::Float) {
    auto b = static_cast<std::uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

double identity_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return 0;
    case ReduceOp::Min: return std::numeric_limits<double>::infinity();
    case ReduceOp::Max: return -std::numeric_limits<double>::infinity();
    default: return 0;  // MaxAbs, MaxAbsDiff: the values are non-negative
  }
}

class ClReduce final : public ReduceImpl {
 public:
  explicit ClReduce(ClContext& ctx) : ctx_(ctx) {
    const cl::Context& c = ctx_.context();
    slot_ = std::make_unique<ClBuffer>(c, 8);
    counter_ = std::make_unique<ClBuffer>(c, 8);
    result_ = std::make_unique<ClBuffer>(c, 8);
    partials_ = std::make_unique<ClBuffer>(c, 1 << 16);
    ctx_.fill_bytes(counter_->mem, std::uint64_t{0}, 8);  // the last-group counter starts at 0; kernels reset it
  }

  std::vector<ReduceVariant> variants() const override {
    return {ReduceVariant::Fast,       ReduceVariant::CompleteUnroll, ReduceVariant::UnrollLastWarp,
            ReduceVariant::Sequential, ReduceVariant::Interleaved,    ReduceVariant::InterleavedDivergent};
  }

  void enqueue(const ReduceArgs& a) override {
    pending_ = Pending{};
    pending_.prec = a.prec;
    pending_.op = a.op;
    if (a.n == 0) {  // the identity, without a launch
      pending_.kind = Pending::Done;
      pending_.value = identity_of(a.op);
      return;
    }
    const std::string op = to_string(a.op);
    if (a.cfg.variant == ReduceVariant::Fast) {
      // at least 16 elements per work-item before the grid grows
      const std::size_t groups = std::min(ctx_.fast_groups(), ceil_div(a.n, std::size_t(ctx_.fast_block()) * 16));
      ClKernel& k = ctx_.kernel("reduce", a.prec, ctx_.fast_block(), "reduce_fast_" + op);
      ctx_.ensure(partials_, groups * 8);
      ctx_.set_args(k, a.prec, a.kernel_args(), partials_->mem, counter_->mem, result_->mem);
      ctx_.launch(k, groups * ctx_.fast_block(), ctx_.fast_block());
      pending_.kind = Pending::Result;
      return;
    }
    const int block = a.cfg.block;
    const bool host = a.cfg.combine == Combine::Host;
    if (!host) ctx_.require_int64_atomics(a.prec);
    const std::size_t groups = ceil_div(a.n, block);
    ClKernel& k = ctx_.kernel("reduce", a.prec, block, "reduce_" + std::string(to_string(a.cfg.variant)) + "_" + op);
    if (host) {
      ctx_.ensure(partials_, groups * 8);
    } else {  // the slot starts at the identity: 0 for a sum, the order key of +-inf or 0 otherwise
      const std::uint64_t init = a.op == ReduceOp::Sum ? 0 : order_key(a.prec, identity_of(a.op));
      ctx_.fill_bytes(slot_->mem, init, 8);
    }
    ctx_.set_args(k, a.prec, a.kernel_args(), partials_->mem, slot_->mem, cl_int(host));
    ctx_.launch(k, groups * block, block);
    pending_.kind = host ? Pending::Partials : Pending::Slot;
    pending_.groups = groups;
  }

  double fetch() override {
    Pending& p = pending_;
    switch (p.kind) {
      case Pending::Done:
        break;
      case Pending::Result: {  // Fast: one value of the field's precision
        std::uint64_t bits = 0;
        read(*result_, &bits, size_of(p.prec));
        p.value = from_bits(p.prec, bits);
        break;
      }
      case Pending::Slot: {  // Atomic: a sum's bits or a min/max order key
        std::uint64_t word = 0;
        read(*slot_, &word, 8);
        p.value = p.op == ReduceOp::Sum ? from_bits(p.prec, word) : from_order_key(p.prec, word);
        break;
      }
      case Pending::Partials: {  // Host: the group results, combined here in double
        std::vector<double> v(p.groups);
        if (p.prec == Precision::Float) {
          std::vector<float> f(p.groups);
          read(*partials_, f.data(), f.size() * sizeof(float));
          v.assign(f.begin(), f.end());
        } else {
          read(*partials_, v.data(), v.size() * sizeof(double));
        }
        double r = identity_of(p.op);
        for (double x : v) r = p.op == ReduceOp::Sum ? r + x : p.op == ReduceOp::Min ? std::min(r, x) : std::max(r, x);
        p.value = r;
        break;
      }
    }
    p.kind = Pending::Done;
    return p.value;
  }

 private:
  struct Pending {
    enum Kind { Done, Result, Slot, Partials } kind = Done;
    Precision prec = Precision::Double;
    ReduceOp op = ReduceOp::Sum;
    std::size_t groups = 0;
    double value = 0;
  };

  void read(const ClBuffer& b, void* dst, std::size_t bytes) {
    TallyTimer timed(TallyTimer::Wait);
    PF_CHECK_CL(ctx_.queue().enqueueReadBuffer(b.mem, CL_TRUE, 0, bytes, dst));
  }

  ClContext& ctx_;
  std::unique_ptr<ClBuffer> slot_, counter_, result_, partials_;
  Pending pending_;
};

}  // namespace

FamilyPtr<ReduceImpl> make_family(ClContext& ctx, FamilyTag<ReduceImpl>) { return std::make_shared<ClReduce>(ctx); }

}  // namespace poreflow::ocl
