// blas on the host backends.
#include "core/base/converge.h"
#include "backends/host/families.hpp"
#include "core/kernels/blas.hpp"

namespace poreflow {
namespace {

class HostBlas final : public BlasImpl {
 public:
  explicit HostBlas(const HostContext& hc) : hc_(hc) {}
  void axpy(const AxpyArgs& a) override {
    if (a.guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*a.guard))) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* x = host_ptr<T>(*a.x);
      T* y = host_ptr<T>(*a.y);
      const T alpha = static_cast<T>(a.alpha);
      const std::size_t n = a.n;
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(n))
      for (std::size_t i = 0; i < n; ++i) y[i] += alpha * x[i];
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<BlasImpl> make_family(const HostContext& hc, FamilyTag<BlasImpl>) { return std::make_shared<HostBlas>(hc); }

}  // namespace poreflow
