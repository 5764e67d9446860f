// csr on the host backends: a row per loop iteration, rows shared among the threads on omp.
#include <algorithm>

#include "backends/host/families.hpp"
#include "core/base/converge.h"
#include "core/kernels/csr.hpp"
#include "core/physics/amg.h"
#include "core/physics/csr.h"

namespace poreflow {
namespace {

bool stopped(const Buffer* guard) { return guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*guard)); }

class HostCsr final : public CsrImpl {
 public:
  explicit HostCsr(const HostContext& hc) : hc_(hc) {}

  void spmv(const CsrSpmvArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      run<T>(a.a, host_ptr<T>(a.x), static_cast<T>(a.alpha), static_cast<T>(a.beta), a.beta != 0 ? host_ptr<T>(*a.addend()) : nullptr,
             host_ptr<T>(*a.y));
    });
  }

  void residual(const CsrResidualArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      run<T>(a.a, host_ptr<T>(a.x), T(-1), T(1), host_ptr<T>(a.b), host_ptr<T>(*a.r));
    });
  }

  void chebyshev(const CsrChebyshevArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      const int* ptr = host_ptr<int>(a.a.ptr);
      const int* col = host_ptr<int>(a.a.col);
      const T* val = host_ptr<T>(a.a.val);
      const T* x = a.start != 0 ? nullptr : host_ptr<T>(a.x);  // from zero: x = start D^-1 b
      const T *b = host_ptr<T>(a.b), *dinv = host_ptr<T>(a.dinv);
      T* d = host_ptr<T>(*a.d);
      T* x_out = host_ptr<T>(*a.x_out);
      T* r = a.r ? host_ptr<T>(*a.r) : nullptr;
      const T alpha = static_cast<T>(a.alpha), beta = static_cast<T>(a.beta), start = static_cast<T>(a.start);
      auto xv = [&](long j) { return x ? x[j] : start * dinv[j] * b[j]; };
      const long rows = static_cast<long>(a.a.rows);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.a.rows + a.a.nnz))
      for (long i = 0; i < rows; ++i) {
        T s = 0;
        for (int k = ptr[i]; k < ptr[i + 1]; ++k) s += val[k] * xv(col[k]);
        const T xi = xv(i);
        if (r) {
          r[i] = b[i] - s;
          d[i] = x_out[i] = xi;
          continue;
        }
        const T di = phys::amg_cheb_direction<T>(alpha, x ? d[i] : xi, beta, dinv[i], b[i] - s);
        d[i] = di;
        x_out[i] = xi + di;
      }
    });
  }

  void diag_inv(const CsrDiagInvArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      const int* ptr = host_ptr<int>(a.a.ptr);
      const int* col = host_ptr<int>(a.a.col);
      const T* val = host_ptr<T>(a.a.val);
      T* dinv = host_ptr<T>(*a.dinv);
      const int b = a.a.block, b2 = b * b;
      const long rows = static_cast<long>(a.a.rows);
      long first = rows;  // the first singular row (rows: none)
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.a.rows)) reduction(min : first)
      for (long i = 0; i < rows; ++i) {
        T* out = dinv + i * b2;
        const int k0 = ptr[i], k1 = ptr[i + 1];
        if (k0 == k1) {  // no unknown
          std::fill(out, out + b2, T(0));
          continue;
        }
        const int k = phys::pf_csr_find(col, k0, k1, static_cast<int>(i));
        int bad = 1;
        if (k < 0) std::fill(out, out + b2, T(0));
        else if (b == 1) bad = phys::pf_csr_inv1(val[k], out);
        else {
          const T* d = val + 4 * static_cast<long>(k);
          bad = phys::pf_csr_inv2(d[0], d[1], d[2], d[3], out);
        }
        if (bad) first = std::min(first, i);
      }
      if (first < rows) host_ptr<unsigned>(*a.bad)[0] = ~static_cast<unsigned>(first);
    });
  }

  void dinv_bound(const CsrDinvBoundArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      const int* ptr = host_ptr<int>(a.a.ptr);
      const T* val = host_ptr<T>(a.a.val);
      const T* dinv = host_ptr<T>(a.dinv);
      T* out = host_ptr<T>(*a.out);
      const long rows = static_cast<long>(a.a.rows);
      if (a.a.block == 1) {
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.a.rows + a.a.nnz))
        for (long i = 0; i < rows; ++i) out[i] = phys::pf_csr_bound1(dinv[i], val, ptr[i], ptr[i + 1]);
      } else {
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.a.rows + a.a.nnz))
        for (long i = 0; i < rows; ++i)
          for (int r = 0; r < 2; ++r) out[2 * i + r] = phys::pf_csr_bound2(dinv + 4 * i, val, ptr[i], ptr[i + 1], r);
      }
    });
  }

  void gather(const CsrGatherArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      const long* map = host_ptr<long>(a.map);
      const T* src = host_ptr<T>(a.src);
      T* val = host_ptr<T>(*a.val);
      const long nnz = static_cast<long>(a.nnz), b2 = a.block * a.block;
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(a.nnz))
      for (long k = 0; k < nnz; ++k)
        for (long e = 0; e < b2; ++e) val[k * b2 + e] = src[map[k] * b2 + e];
    });
  }

 private:
  // y = alpha A x + beta z (z null: beta 0, y not read); z may be y itself
  template <class T>
  void run(const CsrRef& m, const T* x, T alpha, T beta, const T* z, T* y) const {
    const int* ptr = host_ptr<int>(m.ptr);
    const int* col = host_ptr<int>(m.col);
    const T* val = host_ptr<T>(m.val);
    const long rows = static_cast<long>(m.rows);
    // the work is the entries: a small dense coarse level runs on one thread, as it should
    const bool par = hc_.par(m.rows + m.nnz * static_cast<std::size_t>(m.block * m.block));
    if (m.block == 1) {
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (par)
      for (long i = 0; i < rows; ++i) {
        T s = 0;
        for (int k = ptr[i]; k < ptr[i + 1]; ++k) s += val[k] * x[col[k]];
        y[i] = z ? alpha * s + beta * z[i] : alpha * s;
      }
    } else {
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (par)
      for (long i = 0; i < rows; ++i) {
        T s0 = 0, s1 = 0;
        for (int k = ptr[i]; k < ptr[i + 1]; ++k) {
          const T* v = val + 4 * static_cast<long>(k);
          const T x0 = x[2 * static_cast<long>(col[k])], x1 = x[2 * static_cast<long>(col[k]) + 1];
          s0 += v[0] * x0 + v[1] * x1;
          s1 += v[2] * x0 + v[3] * x1;
        }
        if (z) {
          const T z0 = z[2 * i], z1 = z[2 * i + 1];  // both read before y's row is written (z may be y)
          y[2 * i] = alpha * s0 + beta * z0;
          y[2 * i + 1] = alpha * s1 + beta * z1;
        } else {
          y[2 * i] = alpha * s0;
          y[2 * i + 1] = alpha * s1;
        }
      }
    }
  }

  HostContext hc_;
};

}  // namespace

FamilyPtr<CsrImpl> make_family(const HostContext& hc, FamilyTag<CsrImpl>) { return std::make_shared<HostCsr>(hc); }

}  // namespace poreflow
