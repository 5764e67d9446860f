// sor3d on the host backends: the semantics every backend follows (core/kernels/sor3d.hpp). Both
// designs are the same loop here: rows of one colour shared among the threads.
#include <cmath>
#include <limits>

#include "core/base/converge.h"
#include "core/physics/sor3d.h"
#include "backends/host/families.hpp"
#include "core/kernels/sor3d.hpp"

namespace poreflow {
namespace {

// one colour sweep of columns (zline)
template <class T>
T sweep_lines(const HostContext& hc, const Sor3DArgs& a, int c, bool check) {
  const pf_box3 b = a.box.view();
  const T* coef = host_ptr<T>(*a.coef);
  T* p = host_ptr<T>(*a.p);
  T* scratch = host_ptr<T>(*a.scratch);
  const long E = static_cast<long>(a.box.extent());
  const T omega = T(a.omega);
  T m = 0;
  bool nan = false;
#pragma omp parallel for schedule(static) num_threads(hc.threads) if (hc.par(std::size_t(a.box.cells()))) \
    reduction(max : m) reduction(|| : nan)
  for (long j = 0; j < b.ny; ++j) {
    const long n = (b.nx - ((c + j) & 1) + 1) / 2;  // columns of colour c in the row
    for (long ih = 0; ih < n; ++ih) {
      const T r = phys::sor_zline_column<T>(coef, p, scratch, E, b, c, ih, j, omega);
      if (check) {
        m = r > m ? r : m;
        nan = nan || std::isnan(r);
      }
    }
  }
  return nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

// one colour sweep; returns max |residual| (NaN when one was NaN) when `check`
template <class T>
T sweep(const HostContext& hc, const Sor3DArgs& a, int c, bool check) {
  if (a.design == SorDesign::Zline) return sweep_lines<T>(hc, a, c, check);
  const pf_box3 b = a.box.view();
  const T* coef = host_ptr<T>(*a.coef);
  T* p = host_ptr<T>(*a.p);
  const T omega = T(a.omega);
  const long ny = b.ny, nz = b.nz, m2 = 2 * phys::pf_rb_m(b);
  T m = 0;
  bool nan = false;
  // sor_point's update, a row at a time: the row's coefficient arrays are contiguous and the cells
  // of one colour do not read each other, so the compiler may vectorize across the row
#pragma omp parallel for collapse(2) schedule(static) num_threads(hc.threads) if (hc.par(std::size_t(a.box.cells()))) \
    reduction(max : m) reduction(|| : nan)
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j) {
      const long s = phys::pf_rb_shift(c, j, k);
      const long n = (b.nx - s + 1) / 2;  // cells of colour c in the row
      const T* __restrict cw = coef + phys::pf_rb_at(b, c, 0, j, k);
      T* __restrict pr = p + phys::pf_box_at(b, s, j, k);  // the row's first cell of colour c
      const long sy = b.sy, sz = b.sz;
      T rm = 0;
      bool rn = false;
#pragma omp simd reduction(max : rm) reduction(|| : rn)
      for (long ih = 0; ih < n; ++ih) {
        T* const x = pr + 2 * ih;
        const T pc = x[0], d = cw[ih + PF_SOR_D * m2];
        const T res = phys::sor_residual<T>(cw[ih + PF_SOR_W * m2], cw[ih + PF_SOR_E * m2], cw[ih + PF_SOR_S * m2],
                                            cw[ih + PF_SOR_N * m2], cw[ih + PF_SOR_B * m2], cw[ih + PF_SOR_T * m2], d,
                                            cw[ih + PF_SOR_R * m2], pc, x[-1], x[1], x[-sy], x[sy], x[-sz], x[sz]);
        x[0] = pc + omega * res / d;
        const T ar = std::fabs(res);
        rm = ar > rm ? ar : rm;
        rn = rn || res != res;
      }
      if (check) {
        m = rm > m ? rm : m;
        nan = nan || rn;
      }
    }
  return nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

template <class T>
void iterate_t(const HostContext& hc, const Sor3DArgs& a, long first, long count) {
  unsigned long long* ctrl = host_ptr<unsigned long long>(*a.ctrl);
  const T thr = static_cast<T>(a.threshold);
  if (a.design == SorDesign::Zline && first == 0) {
    const pf_box3 b = a.box.view();
    const T* coef = host_ptr<T>(*a.coef);
    T* scratch = host_ptr<T>(*a.scratch);
    const long E = static_cast<long>(a.box.extent());
#pragma omp parallel for schedule(static) num_threads(hc.threads) if (hc.par(std::size_t(a.box.cells())))
    for (long j = 0; j < b.ny; ++j)
      for (long i = 0; i < b.nx; ++i) phys::sor_zline_factor<T>(coef, scratch, E, b, i, j);
  }
  for (long it = first; it < first + count; ++it) {
    const FusedPlan plan = fused_plan(it, a.check_every);
    if (phys::pf_cv_fused_stop<T>(ctrl, it, plan.decide_slot, thr, PF_CV_TEST, 1)) return;
    const T red = sweep<T>(hc, a, 0, plan.check);
    if (a.split) a.split->after_sweep(a, 0, plan);
    const T black = sweep<T>(hc, a, 1, plan.check);
    if (plan.check) {
      const T m = std::isnan(red) || std::isnan(black) ? std::numeric_limits<T>::quiet_NaN() : (red > black ? red : black);
      ctrl[PF_CV_SLOT0 + plan.check_slot] = phys::pf_to_word(m);
      ctrl[PF_CV_SLOT0 + plan.clear_slot] = 0;
    }
    if (a.split) a.split->after_sweep(a, 1, plan);
  }
}

class HostSor3D final : public Sor3DImpl {
 public:
  explicit HostSor3D(const HostContext& hc) : hc_(hc) {}
  void iterate(const Sor3DArgs& a, long first, long count) override {
    if (a.prec == Precision::Float) iterate_t<float>(hc_, a, first, count);
    else iterate_t<double>(hc_, a, first, count);
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<Sor3DImpl> make_family(const HostContext& hc, FamilyTag<Sor3DImpl>) { return std::make_shared<HostSor3D>(hc); }

}  // namespace poreflow
