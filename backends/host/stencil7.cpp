// stencil7 on the host backends: one loop over every entry of the box's arrays.
#include <algorithm>
#include <cstdint>

#include "backends/host/families.hpp"
#include "core/base/converge.h"
#include "core/kernels/stencil7.hpp"
#include "core/physics/amg.h"
#include "core/physics/stencil7.h"
#include "core/physics/stencil7_sor.h"

namespace poreflow {
namespace {

class HostStencil7 final : public Stencil7Impl {
 public:
  explicit HostStencil7(const HostContext& hc) : hc_(hc) {}

  void apply(const Stencil7ApplyArgs& a) override {
    if (a.guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*a.guard))) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* c = host_ptr<T>(a.coef);
      const int* act = host_ptr<int>(a.active);
      const T* x = host_ptr<T>(a.x);
      const T* b = host_ptr<T>(a.b);
      T* y = host_ptr<T>(a.y);
      const long e = static_cast<long>(a.box.extent());
      long off[7] = {0};
      for (int q = 1; q < 7; ++q) off[q] = phys::pf_s7_offset(q, a.box.sy, a.box.sz);
      if (a.block == 1) {
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(e)))
        for (long L = 0; L < e; ++L) {
          if (!act[L]) {
            y[L] = 0;
            continue;
          }
          T v = 0;
          for (int q = 0; q < 7; ++q) v += c[q * e + L] * x[L + off[q]];
          y[L] = b ? b[L] - v : v;
        }
      } else {
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(e)))
        for (long L = 0; L < e; ++L) {
          if (!act[L]) {
            y[2 * L] = y[2 * L + 1] = 0;
            continue;
          }
          T v0 = 0, v1 = 0;
          for (int q = 0; q < 7; ++q) {
            const T* k = c + 4 * (q * e + L);
            const T* xn = x + 2 * (L + off[q]);
            v0 += k[0] * xn[0] + k[1] * xn[1];
            v1 += k[2] * xn[0] + k[3] * xn[1];
          }
          y[2 * L] = b ? b[2 * L] - v0 : v0;
          y[2 * L + 1] = b ? b[2 * L + 1] - v1 : v1;
        }
      }
    });
  }

  void chebyshev(const Stencil7ChebyshevArgs& a) override {
    if (a.guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*a.guard))) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T *c = host_ptr<T>(a.coef), *dinv = host_ptr<T>(a.dinv), *b = host_ptr<T>(a.b);
      const T* x = a.start != 0 ? nullptr : host_ptr<T>(a.x);  // from zero: x = start D^-1 b
      const int* act = host_ptr<int>(a.active);
      T *d = host_ptr<T>(a.d), *xo = host_ptr<T>(a.x_out);
      T* r = a.r ? host_ptr<T>(a.r) : nullptr;
      const T alpha = static_cast<T>(a.alpha), beta = static_cast<T>(a.beta), start = static_cast<T>(a.start);
      auto xv = [&](long j) { return x ? x[j] : start * dinv[j] * b[j]; };
      const long e = static_cast<long>(a.box.extent());
      long off[7] = {0};
      for (int q = 1; q < 7; ++q) off[q] = phys::pf_s7_offset(q, a.box.sy, a.box.sz);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(e)))
      for (long L = 0; L < e; ++L) {
        if (!act[L]) {
          d[L] = xo[L] = 0;
          if (r) r[L] = 0;
          continue;
        }
        T v = 0;
        for (int q = 0; q < 7; ++q) v += c[q * e + L] * xv(L + off[q]);
        const T xi = xv(L);
        if (r) {
          r[L] = b[L] - v;
          d[L] = xo[L] = xi;
          continue;
        }
        const T dn = phys::amg_cheb_direction<T>(alpha, x ? d[L] : xi, beta, dinv[L], b[L] - v);
        d[L] = dn;
        xo[L] = xi + dn;
      }
    });
  }

  void invert(const Stencil7InvertArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* c = host_ptr<T>(a.coef);
      const int* act = host_ptr<int>(a.active);
      T* d = host_ptr<T>(a.dinv);
      const long e = static_cast<long>(a.box.extent());
      std::uint64_t first = PF_S7_NONE;
      // the lowest code over the entries (a min: any order gives it)
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(e))) reduction(min : first)
      for (long L = 0; L < e; ++L) {
        if (a.block == 1) {
          const int st = act[L] ? phys::pf_s7_status1(c[L]) : -1;
          d[L] = act[L] && st < 0 ? T(1) / c[L] : T(0);
          if (st >= 0) first = std::min<std::uint64_t>(first, std::uint64_t(L) * 4 + std::uint64_t(st));
        } else {
          const T* k = c + 4 * L;
          const int st = act[L] ? phys::pf_s7_status2(k[0], k[1], k[2], k[3]) : -1;
          const T det = phys::pf_s7_det2(k[0], k[1], k[2], k[3]);
          for (int q = 0; q < 4; ++q) d[4 * L + q] = act[L] && st < 0 ? phys::pf_s7_inv2(k[0], k[1], k[2], k[3], det, q) : T(0);
          if (st >= 0) first = std::min<std::uint64_t>(first, std::uint64_t(L) * 4 + std::uint64_t(st));
        }
      }
      *host_ptr<std::uint64_t>(*a.status) = first;
    });
  }

  void from_sor(const Stencil7FromSorArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T *rb = host_ptr<T>(a.rb), *sc = a.scale ? host_ptr<T>(a.scale) : nullptr;
      T *c = host_ptr<T>(a.coef), *b = host_ptr<T>(a.b);
      const pf_box3 v = a.box.view();
      const long n = a.box.cells(), e = static_cast<long>(a.box.extent());
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(n)))
      for (long cell = 0; cell < n; ++cell) phys::pf_s7_from_sor_cell<T>(v, cell, rb, sc, c, b, e);
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<Stencil7Impl> make_family(const HostContext& hc, FamilyTag<Stencil7Impl>) {
  return std::make_shared<HostStencil7>(hc);
}

}  // namespace poreflow
