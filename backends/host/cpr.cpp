// cpr on the host backends: the points of core/physics/cpr.h in OpenMP loops.
#include "backends/host/families.hpp"
#include "core/base/converge.h"
#include "core/kernels/cpr.hpp"
#include "core/physics/cpr.h"

namespace poreflow {
namespace {

class HostCpr final : public CprImpl {
 public:
  explicit HostCpr(const HostContext& hc) : hc_(hc) {}

  void weights(const CprWeightsArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const long n = static_cast<long>(a.cells);
      const int* pos = a.diag_pos ? host_ptr<int>(a.diag_pos) : nullptr;
      const T* d = host_ptr<T>(a.diag);
      T* w = host_ptr<T>(a.w);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.cells))
      for (long i = 0; i < n; ++i) phys::cpr_weights_point<T>(i, pos ? pos[i] : i, d, w);
    });
  }

  void pressure(const CprPressureArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const long n = static_cast<long>(a.entries), ext = static_cast<long>(a.extent);
      const int* rows = a.rows ? host_ptr<int>(a.rows) : nullptr;
      const T *w = host_ptr<T>(a.w), *av = host_ptr<T>(a.a);
      T* ap = host_ptr<T>(a.ap);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.entries))
      for (long k = 0; k < n; ++k) phys::cpr_pressure_entry<T>(k, rows ? rows[k] : k % ext, w, av, ap);
    });
  }

  void restrict_residual(const CprRestrictArgs& a) override {
    if (a.guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*a.guard))) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const long n = static_cast<long>(a.cells);
      const T *w = host_ptr<T>(a.w), *r = host_ptr<T>(a.r);
      T* rp = host_ptr<T>(a.rp);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.cells))
      for (long i = 0; i < n; ++i) phys::cpr_restrict_point<T>(i, w, r, rp);
    });
  }

  void prolong(const CprProlongArgs& a) override {
    if (a.guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*a.guard))) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const long n = static_cast<long>(a.cells);
      const T* xp = host_ptr<T>(a.xp);
      T* z = host_ptr<T>(a.z);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.cells))
      for (long i = 0; i < n; ++i) phys::cpr_prolong_point<T>(i, xp, z);
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<CprImpl> make_family(const HostContext& hc, FamilyTag<CprImpl>) { return std::make_shared<HostCpr>(hc); }

}  // namespace poreflow
