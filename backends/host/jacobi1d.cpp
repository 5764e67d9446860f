// jacobi1d on the host backends: the semantics every backend follows (core/kernels/jacobi1d.hpp).
#include <cmath>
#include <limits>

#include "core/base/converge.h"
#include "core/physics/bl1d.h"
#include "backends/host/families.hpp"
#include "core/kernels/jacobi1d.hpp"

namespace poreflow {
namespace {

template <class T>
void iterate_t(const HostContext& hc, const Jacobi1DArgs& args, long first, long count) {
  const bool par = hc.par(args.n);
  unsigned long long* ctrl = host_ptr<unsigned long long>(*args.ctrl);
  const T* mf = host_ptr<T>(*args.mface);
  const long n = static_cast<long>(args.n);
  const T thr = static_cast<T>(args.threshold);
  const int residual = args.metric == JacobiMetric::Residual;
  for (long it = first; it < first + count; ++it) {
    const FusedPlan plan = fused_plan(it, args.check_every);
    if (phys::pf_cv_fused_stop<T>(ctrl, it, plan.decide_slot, thr, PF_CV_TEST, 1)) return;
    const T* p = host_ptr<T>(*args.p[it % 2]);
    T* q = host_ptr<T>(*args.p[(it + 1) % 2]);
    q[0] = static_cast<T>(args.p_left);
    q[n - 1] = static_cast<T>(args.p_right);
    if (plan.check) {
      T m = 0;
      bool nan = false;
#pragma omp parallel for schedule(static) num_threads(hc.threads) if (par) reduction(max : m) reduction(|| : nan)
      for (long i = 1; i < n - 1; ++i) {
        T v = phys::bl_jacobi_point<T>(p[i - 1], p[i + 1], mf[i - 1], mf[i]);
        q[i] = v;
        T d = phys::bl_jacobi_metric<T>(v, p[i], mf[i - 1], mf[i], residual);
        m = d > m ? d : m;
        nan = nan || std::isnan(d);
      }
      if (nan) m = std::numeric_limits<T>::quiet_NaN();  // like the GPU bit-pattern max: NaN wins
      ctrl[PF_CV_SLOT0 + plan.check_slot] = phys::pf_to_word(m);
      ctrl[PF_CV_SLOT0 + plan.clear_slot] = 0;
    } else {
#pragma omp parallel for schedule(static) num_threads(hc.threads) if (par)
      for (long i = 1; i < n - 1; ++i) q[i] = phys::bl_jacobi_point<T>(p[i - 1], p[i + 1], mf[i - 1], mf[i]);
    }
  }
}

class HostJacobi1D final : public Jacobi1DImpl {
 public:
  explicit HostJacobi1D(const HostContext& hc) : hc_(hc) {}
  void iterate(const Jacobi1DArgs& a, long first, long count) override {
    if (a.prec == Precision::Float) iterate_t<float>(hc_, a, first, count);
    else iterate_t<double>(hc_, a, first, count);
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<Jacobi1DImpl> make_family(const HostContext& hc, FamilyTag<Jacobi1DImpl>) { return std::make_shared<HostJacobi1D>(hc); }

}  // namespace poreflow
