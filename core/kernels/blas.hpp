#pragma once
// The blas family: vector updates the solvers need (adi2d adds its pressure increments; the Krylov
// solvers of the roadmap will add dot products here).
#include <cstddef>

#include "core/kernels/backend.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

// y[i] += alpha x[i] for i < n. x and y are distinct buffers of at least n values. With a guard
// (a control block, core/base/converge.h) nothing is done once the block says stop: the update
// of an iteration that runs after its solver converged.
struct AxpyArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  double alpha = 1;
  const Buffer* x = nullptr;
  Buffer* y = nullptr;
  const Buffer* guard = nullptr;

  // axpy(n, alpha, x, y, guard) (core/kernels/kernel_args.hpp)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(n, Real{alpha}, In<Real>{x}, Out<Real>{y}, Opt<pf_u64>{guard});
  }
};

class BlasImpl {
 public:
  virtual ~BlasImpl() = default;
  virtual void axpy(const AxpyArgs& a) = 0;  // n > 0, arguments checked
};

class BlasKernels {
 public:
  BlasKernels(Backend& be, BlasImpl& impl) : be_(be), impl_(impl) {}
  void axpy(const AxpyArgs& a);

 private:
  Backend& be_;
  BlasImpl& impl_;
};

}  // namespace poreflow
