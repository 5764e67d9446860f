// ilu on the host backends: the loops over one colour around core/physics/ilu.h (serial: the
// reference; omp: the same loops shared among the threads).
#include <algorithm>
#include <type_traits>

#include "backends/host/families.hpp"
#include "core/base/converge.h"
#include "core/kernels/ilu.hpp"
#include "core/physics/ilu.h"

namespace poreflow {
namespace {

// f(std::integral_constant block) with the block a compile-time constant, as on the devices
template <class F>
void with_block(int block, F&& f) {
  if (block == 1) f(std::integral_constant<int, 1>{});
  else f(std::integral_constant<int, 2>{});
}

// A bad pivot of `row` in a launch of colour `colour`: the smallest row of the first colour that has
// one (core/physics/ilu.h). Rare: a critical section is cheap enough.
void record_pivot(int* piv, long row, int colour) {
#pragma omp critical(pf_ilu_pivot)
  {
    if (piv[1] >= colour) {
      piv[0] = std::min(piv[0], static_cast<int>(row));
      piv[1] = colour;
    }
  }
}

class HostIlu final : public IluImpl {
 public:
  explicit HostIlu(const HostContext& hc) : hc_(hc) {}

  void s7_factor(const IluStencilArgs& a, int colour) override {
    run(a.prec, a.block, [&](auto t, auto bc) {
      using T = decltype(t);
      constexpr int B = decltype(bc)::value;
      const T* coef = host_ptr<T>(a.coef);
      const int* active = host_ptr<int>(a.active);
      T* dinv = host_ptr<T>(a.dinv);
      int* piv = host_ptr<int>(a.pivot);
      const pf_box3 b = a.box.view();
      const long E = a.extent();
      if (colour == 0) {
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(E)))
        for (long L = 0; L < E; ++L)
          if (!phys::pf_ilu_s7_factor0<T>(B, coef, active, dinv, b, L)) record_pivot(piv, L, 0);
      } else {
        colour_cells(b, 1, [&](long i, long j, long k) {
          if (!phys::pf_ilu_s7_factor1<T>(B, coef, active, dinv, b, E, i, j, k)) record_pivot(piv, phys::pf_box_at(b, i, j, k), 1);
        });
      }
    });
  }

  void s7_lower(const IluStencilArgs& a, int colour) override {
    if (stopped(a.guard)) return;
    run(a.prec, a.block, [&](auto t, auto bc) {
      using T = decltype(t);
      constexpr int B = decltype(bc)::value;
      const T* coef = host_ptr<T>(a.coef);
      const int* active = host_ptr<int>(a.active);
      const T* dinv = host_ptr<T>(a.dinv);
      const T* r = host_ptr<T>(a.r);
      T* z = host_ptr<T>(a.z);
      T* sum = a.sum ? host_ptr<T>(a.sum) : nullptr;
      const pf_box3 b = a.box.view();
      const long E = a.extent();
      if (colour == 0) {
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(E)))
        for (long L = 0; L < E; ++L) phys::pf_ilu_s7_lower0<T>(B, active, dinv, r, z, b, L);
      } else {
        colour_cells(b, 1, [&](long i, long j, long k) { phys::pf_ilu_s7_lower1<T>(B, coef, active, dinv, r, z, sum, b, E, i, j, k); });
      }
    });
  }

  void s7_upper(const IluStencilArgs& a) override {
    if (stopped(a.guard)) return;
    run(a.prec, a.block, [&](auto t, auto bc) {
      using T = decltype(t);
      constexpr int B = decltype(bc)::value;
      const T* coef = host_ptr<T>(a.coef);
      const int* active = host_ptr<int>(a.active);
      const T* dinv = host_ptr<T>(a.dinv);
      T* z = host_ptr<T>(a.z);
      T* sum = a.sum ? host_ptr<T>(a.sum) : nullptr;
      const pf_box3 b = a.box.view();
      const long E = a.extent();
      colour_cells(b, 0, [&](long i, long j, long k) { phys::pf_ilu_s7_upper0<T>(B, coef, active, dinv, z, sum, b, E, i, j, k); });
    });
  }

  void csr_factor(const IluCsrArgs& a) override {
    run(a.prec, a.block, [&](auto t, auto bc) {
      using T = decltype(t);
      constexpr int B = decltype(bc)::value;
      const int *ptr = host_ptr<int>(a.ptr), *col = host_ptr<int>(a.col);
      const int *ent = host_ptr<int>(a.ent), *dpos = host_ptr<int>(a.dpos);
      const T* val = host_ptr<T>(a.val);
      T* lu = host_ptr<T>(a.lu);
      T* dinv = host_ptr<T>(a.dinv);
      int* piv = host_ptr<int>(a.pivot);
      const bool ilu0 = a.variant == IluVariant::Ilu0;
      colour_rows(a, [&](int i) {
        const int ok = ilu0 ? phys::pf_ilu_csr_factor_ilu0<T>(B, ptr, col, val, ent, dpos, lu, dinv, i)
                            : phys::pf_ilu_csr_factor_dilu<T>(B, ptr, col, val, ent, dpos, dinv, i);
        if (!ok) record_pivot(piv, i, a.colour);
      });
    });
  }

  void csr_lower(const IluCsrArgs& a) override { csr_sweep(a, true); }
  void csr_upper(const IluCsrArgs& a) override { csr_sweep(a, false); }

 private:
  template <class F>
  static void run(Precision prec, int block, F&& f) {
    with_type(prec, [&](auto t) { with_block(block, [&](auto bc) { f(t, bc); }); });
  }

  static bool stopped(const Buffer* guard) { return guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*guard)); }

  // f(i, j, k) over the cells of colour c, in the devices' order (half-cells of rows of layers)
  template <class F>
  void colour_cells(const pf_box3& b, int c, F&& f) const {
    const long m = phys::pf_rb_m(b);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(m)))
    for (long t = 0; t < m; ++t) {
      long i, j, k;
      if (phys::pf_ilu_s7_rb_cell(b, c, t, &i, &j, &k)) f(i, j, k);
    }
  }

  // f(row) over the launch's rows of the order
  template <class F>
  void colour_rows(const IluCsrArgs& a, F&& f) const {
    const int* order = host_ptr<int>(a.order);
    const int first = a.first, count = a.count;
#pragma omp parallel for schedule(dynamic, 256) num_threads(hc_.threads) if (hc_.par(std::size_t(count)))
    for (int t = 0; t < count; ++t) f(order[first + t]);
  }

  void csr_sweep(const IluCsrArgs& a, bool lower) {
    if (stopped(a.guard)) return;
    run(a.prec, a.block, [&](auto t, auto bc) {
      using T = decltype(t);
      constexpr int B = decltype(bc)::value;
      const int *ptr = host_ptr<int>(a.ptr), *col = host_ptr<int>(a.col);
      const int *ent = host_ptr<int>(a.ent), *dpos = host_ptr<int>(a.dpos);
      const T* v = host_ptr<T>(a.variant == IluVariant::Ilu0 ? a.lu : a.val);
      const T* dinv = host_ptr<T>(a.dinv);
      const T* r = host_ptr<T>(a.r);
      T* z = host_ptr<T>(a.z);
      T* sum = a.sum ? host_ptr<T>(a.sum) : nullptr;
      if (lower) colour_rows(a, [&](int i) { phys::pf_ilu_csr_lower<T>(B, ptr, col, v, ent, dpos, dinv, r, z, sum, i); });
      else colour_rows(a, [&](int i) { phys::pf_ilu_csr_upper<T>(B, ptr, col, v, ent, dpos, dinv, z, sum, i); });
    });
  }

  HostContext hc_;
};

}  // namespace

FamilyPtr<IluImpl> make_family(const HostContext& hc, FamilyTag<IluImpl>) { return std::make_shared<HostIlu>(hc); }

}  // namespace poreflow
