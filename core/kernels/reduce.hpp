#pragma once
// The reduce family: sum, min, max, max|a| and max|a - b| of n values, with paper 000's five
// block-level variants on the GPU backends, poreflow's fastest reduction per backend, and a vendor
// library's reduction for comparison (CUB on cuda).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "core/kernels/backend.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

enum class ReduceOp { Sum, Min, Max, MaxAbs, MaxAbsDiff };
const char* to_string(ReduceOp op);
ReduceOp parse_reduce_op(std::string_view s);

// The block-level algorithm. The first five are paper 000's variants (GPU backends only);
// Fast is poreflow's best GPU reduction; OmpReduction/OmpBlocked belong to omp; Serial to serial.
enum class ReduceVariant {
  InterleavedDivergent,
  Interleaved,
  Sequential,
  UnrollLastWarp,
  CompleteUnroll,
  Fast,
  OmpReduction,
  OmpBlocked,
  Serial,
};
const char* to_string(ReduceVariant v);
// Accepts every variant name and "auto" (then *is_auto is set and Fast returned).
ReduceVariant parse_reduce_variant(std::string_view s, bool* is_auto = nullptr);
std::vector<ReduceVariant> paper_variants();
inline bool is_paper_variant(ReduceVariant v) { return v <= ReduceVariant::CompleteUnroll; }

// How the per-block results of a paper variant are combined: on the device with atomics
// (paper 000) or by copying them to the host (papers 001, 003).
enum class Combine { Atomic, Host };
const char* to_string(Combine c);
Combine parse_combine(std::string_view s);

struct ReduceConfig {
  ReduceVariant variant = ReduceVariant::Fast;
  Combine combine = Combine::Atomic;
  int block = 512;  // threads per block / work-items per group for the paper variants
};

// The reduction of a[0, n) (MaxAbsDiff: of |a[i] - b[i]|). Sums accumulate in the field's
// precision on the devices, in double on the serial reference; n = 0 gives the op's identity
// (0, +inf for min, -inf for max). Max and min propagate NaN.
struct ReduceArgs {
  Precision prec = Precision::Double;
  ReduceOp op = ReduceOp::Sum;
  ReduceConfig cfg;
  const Buffer* a = nullptr;
  const Buffer* b = nullptr;  // second input of MaxAbsDiff
  std::size_t n = 0;

  // the reduction kernels' leading parameters: a, b (null unless MaxAbsDiff), n
  // (core/kernels/kernel_args.hpp)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{a}, Opt<Real>{op == ReduceOp::MaxAbsDiff ? b : nullptr}, n);
  }
};

class ReduceImpl {
 public:
  virtual ~ReduceImpl() = default;
  // variants this backend implements, best first
  virtual std::vector<ReduceVariant> variants() const = 0;
  // enqueue keeps the result on the device; fetch waits and returns the last one (again if asked twice)
  virtual void enqueue(const ReduceArgs& a) = 0;
  virtual double fetch() = 0;
  // a vendor library's reduction of the same data, read with fetch(); empty name: none
  virtual std::string vendor_name() const { return ""; }
  virtual void vendor_enqueue(const ReduceArgs& a);
};

class ReduceKernels {
 public:
  ReduceKernels(Backend& be, ReduceImpl& impl) : be_(be), impl_(impl) {}
  std::vector<ReduceVariant> variants() const { return impl_.variants(); }
  ReduceVariant default_variant() const { return impl_.variants().front(); }
  // Throws ConfigError naming the supported variants when cfg cannot run on this backend.
  void check_config(const ReduceConfig& cfg) const;

  void enqueue(const ReduceArgs& a);
  double fetch() { return impl_.fetch(); }
  double run(const ReduceArgs& a) {
    enqueue(a);
    return fetch();
  }
  std::string vendor_name() const { return impl_.vendor_name(); }
  void vendor_enqueue(const ReduceArgs& a);

 private:
  void check_args(const ReduceArgs& a, const char* what) const;
  Backend& be_;
  ReduceImpl& impl_;
};

}  // namespace poreflow
