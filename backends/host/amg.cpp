// amg on the host backends: the rows of core/physics/amg.h in OpenMP loops.
#include <omp.h>

#include "backends/host/families.hpp"
#include "core/base/converge.h"
#include "core/kernels/amg.hpp"
#include "core/physics/amg.h"
#include "core/physics/amg_tail.h"

namespace poreflow {
namespace {

class HostAmg final : public AmgImpl {
 public:
  explicit HostAmg(const HostContext& hc) : hc_(hc) {}

  void p_values(const AmgPValuesArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const long n = static_cast<long>(a.rows);
      const int *pp = host_ptr<int>(a.p_ptr), *dp = host_ptr<int>(a.diag_pos), *wp = host_ptr<int>(a.weak_ptr),
                *w = host_ptr<int>(a.weak), *sp = host_ptr<int>(a.src_ptr), *s = host_ptr<int>(a.src), *own = host_ptr<int>(a.own);
      const T* av = host_ptr<T>(a.a);
      T* pv = host_ptr<T>(a.p);
      const T omega = static_cast<T>(a.omega);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.rows))
      for (long i = 0; i < n; ++i) phys::amg_p_row<T>(i, pp, dp, wp, w, sp, s, own, omega, av, pv);
    });
  }

  void galerkin(const AmgGalerkinArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const long n = static_cast<long>(a.rows);
      const int *rp = host_ptr<int>(a.r_ptr), *rc = host_ptr<int>(a.r_col), *ap = host_ptr<int>(a.a_ptr),
                *ac = host_ptr<int>(a.a_col), *pp = host_ptr<int>(a.p_ptr), *pc = host_ptr<int>(a.p_col),
                *cp = host_ptr<int>(a.c_ptr), *cc = host_ptr<int>(a.c_col);
      const T *rv = host_ptr<T>(a.r_val), *av = host_ptr<T>(a.a_val), *pv = host_ptr<T>(a.p_val);
      T* cv = host_ptr<T>(a.c_val);
#pragma omp parallel for schedule(dynamic, 64) num_threads(hc_.threads) if (hc_.par(a.rows * 64))
      for (long I = 0; I < n; ++I) phys::amg_galerkin_row<T>(I, rp, rc, rv, ap, ac, av, pp, pc, pv, cp, cc, cv);
    });
  }

  void smooth(const AmgSmoothArgs& a) override {
    if (a.guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*a.guard))) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const long n = static_cast<long>(a.n);
      const T *r = host_ptr<T>(a.r), *dinv = host_ptr<T>(a.dinv);
      T *d = host_ptr<T>(a.d), *x = host_ptr<T>(a.x);
      const T alpha = static_cast<T>(a.alpha), beta = static_cast<T>(a.beta);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.n))
      for (long i = 0; i < n; ++i) phys::amg_smooth_point<T>(i, alpha, beta, r, dinv, d, x, a.start);
    });
  }

  // the cycle on one thread, or a team whose barriers are the cycle's group barriers
  void tail_cycle(const AmgTailArgs& a) override {
    if (a.guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*a.guard))) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const int *table = host_ptr<int>(a.table), *ints = host_ptr<int>(a.ints);
      const T *vals = host_ptr<T>(a.vals), *b = host_ptr<T>(a.b);
      T *work = host_ptr<T>(a.work), *x = host_ptr<T>(a.x);
      const int threads = hc_.par(a.first_rows) ? hc_.threads : 1;
#pragma omp parallel num_threads(threads) if (threads > 1)
      phys::amg_tail_cycle<T>(omp_get_thread_num(), omp_get_num_threads(), a.levels, a.w, table, ints, vals, work, b, x);
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<AmgImpl> make_family(const HostContext& hc, FamilyTag<AmgImpl>) { return std::make_shared<HostAmg>(hc); }

}  // namespace poreflow
