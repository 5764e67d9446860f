// bl1d on the host backends: loops around core/physics/bl1d.h.
#include "core/physics/bl1d.h"
#include "backends/host/families.hpp"
#include "core/kernels/bl1d.hpp"

namespace poreflow {
namespace {

class HostBl1d final : public Bl1dImpl {
 public:
  explicit HostBl1d(const HostContext& hc) : hc_(hc) {}

  void face_mobility(const BLFaceMobilityArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* s = host_ptr<T>(*a.s);
      T* m = host_ptr<T>(*a.mface);
      const T k = T(a.phys.k), mw = T(a.phys.mu_w), mo = T(a.phys.mu_o);
      const long nf = static_cast<long>(a.n) - 1;
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.n))
      for (long i = 0; i < nf; ++i) m[i] = phys::bl_face_mobility<T>(s[i], s[i + 1], k, mw, mo);
    });
  }

  void face_velocity(const BLFaceVelocityArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* p = host_ptr<T>(*a.p);
      const T* m = host_ptr<T>(*a.mface);
      T* u = host_ptr<T>(*a.u);
      const T inv_h = T(a.inv_h);
      const long nf = static_cast<long>(a.n) - 1;
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.n))
      for (long i = 0; i < nf; ++i) u[i] = phys::bl_face_velocity<T>(m[i], p[i], p[i + 1], inv_h);
    });
  }

  void saturation(const BLSaturationArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* s = host_ptr<T>(*a.s_old);
      const T* u = host_ptr<T>(*a.u);
      T* q = host_ptr<T>(*a.s_new);
      const T c = T(a.c), mw = T(a.phys.mu_w), mo = T(a.phys.mu_o);
      const long n = static_cast<long>(a.n);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.n))
      for (long i = 1; i < n - 1; ++i)
        q[i] = phys::bl_saturation_point<T>(s[i - 1], s[i], s[i + 1], u[i - 1], u[i], c, mw, mo);
      q[0] = T(a.s_inj);
      q[n - 1] = q[n - 2];  // dS/dx = 0 at the producer (eq. 8)
    });
  }

  void pressure_system(const BLPressureSystemArgs& s) override {
    with_type(s.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* m = host_ptr<T>(s.mface);
      T *a = host_ptr<T>(*s.a), *b = host_ptr<T>(*s.b), *c = host_ptr<T>(*s.c), *d = host_ptr<T>(*s.d);
      const long n = static_cast<long>(s.n);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(s.n))
      for (long i = 0; i < n; ++i)
        phys::bl_pressure_row<T>(i, n, i > 0 ? m[i - 1] : T(0), i < n - 1 ? m[i] : T(0), T(s.p_left), T(s.p_right),
                                 &a[i], &b[i], &c[i], &d[i]);
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<Bl1dImpl> make_family(const HostContext& hc, FamilyTag<Bl1dImpl>) { return std::make_shared<HostBl1d>(hc); }

}  // namespace poreflow
