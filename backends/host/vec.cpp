// vec on the host backends: serial (the reference) and omp run the same loops. Dot products sum
// fixed chunks of kVecChunk values in double and add the chunks' sums in order, so serial and omp,
// with any thread count, give the same bits.
#include <algorithm>
#include <cstdint>
#include <vector>

#include "backends/host/families.hpp"
#include "core/base/converge.h"
#include "core/kernels/vec.hpp"
#include "core/physics/vec.h"

namespace poreflow {
namespace {

using Word = unsigned long long;

bool stopped(const Buffer* guard) { return guard && !phys::pf_cv_running(host_ptr<Word>(*guard)); }

// out[0, count) = the sums f adds over [0, n): f(begin, end, acc) adds one chunk's into acc[0, count)
template <class F>
void chunked_sums(const HostContext& hc, std::size_t n, int count, double* out, F&& f) {
  const std::size_t chunks = std::max<std::size_t>(1, (n + kVecChunk - 1) / kVecChunk);
  const std::size_t c = static_cast<std::size_t>(count);
  std::vector<double> part(chunks * c, 0.0);
#pragma omp parallel for schedule(static) num_threads(hc.threads) if (hc.par(n))
  for (std::size_t k = 0; k < chunks; ++k) f(k * kVecChunk, std::min(n, (k + 1) * kVecChunk), part.data() + k * c);
  for (std::size_t q = 0; q < c; ++q) {
    double s = 0;
    for (std::size_t k = 0; k < chunks; ++k) s += part[k * c + q];
    out[q] = s;
  }
}

template <class T>
T coef(const VecCoef& k, const T* s) {
  return phys::pf_coef_value<T>(s, static_cast<T>(k.c), k.packed());
}

class HostVec final : public VecImpl {
 public:
  explicit HostVec(const HostContext& hc) : hc_(hc) {}

  void dot(const VecDotArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T *x1 = host_ptr<T>(a.x1), *y1 = host_ptr<T>(a.y1), *x2 = host_ptr<T>(a.x2), *y2 = host_ptr<T>(a.y2);
      const bool two = x2 != nullptr;
      double r[2] = {0, 0};
      chunked_sums(hc_, a.n, two ? 2 : 1, r, [&](std::size_t b, std::size_t e, double* acc) {
        for (std::size_t i = b; i < e; ++i) acc[0] += double(x1[i]) * double(y1[i]);
        if (two)
          for (std::size_t i = b; i < e; ++i) acc[1] += double(x2[i]) * double(y2[i]);
      });
      T* s = host_ptr<T>(a.s);
      s[a.slot1] = static_cast<T>(r[0]);
      if (two) s[a.slot2] = static_cast<T>(r[1]);
    });
  }

  void multi_dot(const VecMultiDotArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* v = host_ptr<T>(a.v) + a.v_at;
      const T* w = host_ptr<T>(a.w);
      std::vector<double> r(static_cast<std::size_t>(a.count));
      chunked_sums(hc_, a.n, a.count, r.data(), [&](std::size_t b, std::size_t e, double* acc) {
        for (int q = 0; q < a.count; ++q) {
          const T* vq = v + static_cast<std::size_t>(q) * a.ldv;
          double s = 0;
          for (std::size_t i = b; i < e; ++i) s += double(vq[i]) * double(w[i]);
          acc[q] += s;
        }
      });
      T* s = host_ptr<T>(a.s);
      for (int q = 0; q < a.count; ++q) s[a.slot + q] = static_cast<T>(r[static_cast<std::size_t>(q)]);
    });
  }

  void axpby(const VecAxpbyArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* s = host_ptr<T>(a.s);
      const T ca = coef(a.a, s), cb = coef(a.b, s);
      const bool read_y = !a.b.is_zero();
      const T* x = host_ptr<T>(a.x);
      T* y = host_ptr<T>(a.y);
      const std::size_t n = a.n;
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(n))
      for (std::size_t i = 0; i < n; ++i) y[i] = read_y ? ca * x[i] + cb * y[i] : ca * x[i];
    });
  }

  void axpbypcz(const VecAxpbypczArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* s = host_ptr<T>(a.s);
      const T ca = coef(a.a, s), cb = coef(a.b, s), cc = coef(a.c, s);
      const bool use_y = !a.b.is_zero(), use_z = !a.c.is_zero();
      const T *x = host_ptr<T>(a.x), *y = host_ptr<T>(a.y);
      T* z = host_ptr<T>(a.z);
      const std::size_t n = a.n;
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(n))
      for (std::size_t i = 0; i < n; ++i) {
        T v = ca * x[i];
        if (use_y) v += cb * y[i];
        if (use_z) v += cc * z[i];
        z[i] = v;
      }
    });
  }

  void update2(const VecUpdate2Args& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      T* s = host_ptr<T>(a.s);
      const T a1 = coef(a.a1, static_cast<const T*>(s)), b1 = coef(a.b1, static_cast<const T*>(s));
      const T a2 = coef(a.a2, static_cast<const T*>(s)), b2 = coef(a.b2, static_cast<const T*>(s));
      const bool r1 = !a.b1.is_zero(), r2 = !a.b2.is_zero();
      const T *x1 = host_ptr<T>(a.x1), *x2 = host_ptr<T>(a.x2), *w = host_ptr<T>(a.w);
      T *y1 = host_ptr<T>(a.y1), *y2 = host_ptr<T>(a.y2);
      const bool wy = a.slot_wy >= 0, yy = a.slot_yy >= 0;
      double r[2] = {0, 0};
      chunked_sums(hc_, a.n, 2, r, [&](std::size_t b, std::size_t e, double* acc) {
        for (std::size_t i = b; i < e; ++i) {
          y1[i] = r1 ? a1 * x1[i] + b1 * y1[i] : a1 * x1[i];
          const T v = r2 ? a2 * x2[i] + b2 * y2[i] : a2 * x2[i];
          y2[i] = v;
          if (wy) acc[0] += double(w[i]) * double(v);
          if (yy) acc[1] += double(v) * double(v);
        }
      });
      if (wy) s[a.slot_wy] = static_cast<T>(r[0]);
      if (yy) s[a.slot_yy] = static_cast<T>(r[1]);
    });
  }

  void multi_axpy(const VecMultiAxpyArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      T* s = host_ptr<T>(a.s);
      int count = a.count;
      if (a.count_slot >= 0) {
        const T k = s[a.count_slot];
        count = k > 0 ? std::min(count, static_cast<int>(k)) : 0;
      }
      std::vector<T> c(static_cast<std::size_t>(std::max(count, 0)));
      for (int q = 0; q < count; ++q) c[static_cast<std::size_t>(q)] = static_cast<T>(a.c) * s[a.slot + q];
      const T* v = host_ptr<T>(a.v) + a.v_at;
      T* y = host_ptr<T>(a.y);
      double nn = 0;
      chunked_sums(hc_, a.n, 1, &nn, [&](std::size_t b, std::size_t e, double* acc) {
        for (std::size_t i = b; i < e; ++i) {
          T yi = y[i];
          for (int q = 0; q < count; ++q) yi += c[static_cast<std::size_t>(q)] * v[static_cast<std::size_t>(q) * a.ldv + i];
          y[i] = yi;
          acc[0] += double(yi) * double(yi);
        }
      });
      if (a.norm_slot >= 0) s[a.norm_slot] = static_cast<T>(nn);
    });
  }

  void store(const VecStoreArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T ca = coef(a.a, host_ptr<T>(a.s));
      const T* w = host_ptr<T>(a.w);
      T* vb = host_ptr<T>(a.basis) + a.v_at;
      T* v = host_ptr<T>(a.v);
      const T* z = host_ptr<T>(a.z);
      T* zb = host_ptr<T>(a.basis) + a.z_at;
      const std::size_t n = a.n;
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(n))
      for (std::size_t i = 0; i < n; ++i) {
        const T x = ca * w[i];
        vb[i] = x;
        if (v) v[i] = x;
        if (z) zb[i] = z[i];
      }
    });
  }

  void diag(const VecDiagArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T *d = host_ptr<T>(a.d), *r = host_ptr<T>(a.r);
      T* z = host_ptr<T>(a.z);
      const std::size_t n = a.cells;
      if (a.block == 1) {
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(n))
        for (std::size_t i = 0; i < n; ++i) z[i] = d[i] * r[i];
      } else {
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(n))
        for (std::size_t i = 0; i < n; ++i) {
          const T r0 = r[2 * i], r1 = r[2 * i + 1];
          z[2 * i] = d[4 * i] * r0 + d[4 * i + 1] * r1;
          z[2 * i + 1] = d[4 * i + 2] * r0 + d[4 * i + 3] * r1;
        }
      }
    });
  }

  void convert(const VecConvertArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const std::size_t n = a.n;
      if (a.to_float) {
        const T* x = host_ptr<T>(a.x);
        float* y = host_ptr<float>(a.y);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(n))
        for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<float>(x[i]);
      } else {
        const float* x = host_ptr<float>(a.x);
        T* y = host_ptr<T>(a.y);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(n))
        for (std::size_t i = 0; i < n; ++i) y[i] = static_cast<T>(x[i]);
      }
    });
  }

  void gather(const VecGatherArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const int* map = host_ptr<int>(a.map);
      const T* x = host_ptr<T>(a.x);
      T* y = host_ptr<T>(a.y);
      const std::size_t n = a.n;
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(n))
      for (std::size_t i = 0; i < n; ++i) y[i] = x[map[i]];
    });
  }

  void check(const VecCheckArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      phys::pf_kr_check<T>(host_ptr<Word>(*a.ctrl), host_ptr<T>(a.s), host_ptr<T>(a.hist), a.it, a.rr, a.ref, a.breakdown,
                           static_cast<T>(a.tol * a.tol), a.max_it);
    });
  }

  void gmres_column(const VecGmresColumnArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      phys::pf_gm_column<T>(host_ptr<Word>(*a.ctrl), host_ptr<T>(a.s), host_ptr<T>(a.hist), a.it, a.j, a.m, a.base, a.ref,
                            a.two_pass ? 1 : 0, static_cast<T>(a.tol * a.tol), a.max_it);
    });
  }

  void gmres_solve(const VecGmresSolveArgs& a) override {
    if (stopped(a.guard)) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      phys::pf_gm_solve<T>(host_ptr<T>(a.s), a.m, a.base);
    });
  }

  void first_nonfinite(const VecFirstNonfiniteArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* x = host_ptr<T>(a.x);
      std::uint64_t first = ~std::uint64_t{0};
      for (std::size_t i = 0; i < a.n; ++i)
        if (!phys::pf_cv_finite(x[i])) {
          first = i;
          break;
        }
      *host_ptr<std::uint64_t>(*a.word) = first;
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<VecImpl> make_family(const HostContext& hc, FamilyTag<VecImpl>) { return std::make_shared<HostVec>(hc); }

}  // namespace poreflow
