// fluids3d on the host backends: the semantics every backend follows (core/kernels/fluids3d.hpp),
// loops around the per-cell functions of core/physics/fluids3d.h. serial is paper 001's sequential
// program; omp shares rows among the threads as its OpenMP phase did, reduction(max) for the
// sweep's largest change.
#include <cmath>
#include <limits>

#include "core/kernels/converge.h"
#include "core/kernels/rb3.h"
#include "core/physics/fluids3d.h"
#include "core/reference/families.hpp"

namespace poreflow {
namespace {

// One colour sweep of lin_solve; returns max |change| (NaN when one was NaN) when `check`.
// Inner rows are updated by a plain strided loop (no ghost can be next to them except at the
// row's two ends), the rest through fl_lin_update, which also writes the ghosts.
template <class T>
T sweep(const HostContext& hc, const FluidsSolveArgs& a, int c, bool check) {
  const pf_box3 bx = a.box.view();
  T* x = host_ptr<T>(a.x);
  const T* x0 = host_ptr<T>(a.x0);
  const T aa = T(a.a), inv_c = T(1.0 / a.c);
  const long nx = bx.nx, ny = bx.ny, nz = bx.nz, sy = bx.sy, sz = bx.sz;
  const int b = a.b;
  T m = 0;
  bool nan = false;
#pragma omp parallel for collapse(2) schedule(static) num_threads(hc.threads) if (hc.par(std::size_t(a.box.cells()))) \
    reduction(max : m) reduction(|| : nan)
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j) {
      const long s = phys::pf_rb_shift(c, j, k);
      T rm = 0;
      bool rn = false;
      auto edge = [&](long i) {
        const T d = phys::fl_lin_update<T>(x, x0, bx, b, i, j, k, aa, inv_c);
        rm = d > rm ? d : rm;
        rn = rn || d != d;
      };
      if (j == 0 || j == ny - 1 || k == 0 || k == nz - 1) {
        for (long i = s; i < nx; i += 2) edge(i);
      } else {
        long i = s;
        if (i == 0) {
          edge(0);
          i = 2;
        }
        // cells i .. nx - 2 of the colour, none next to a wall
        const long n = i < nx - 1 ? (nx - 1 - i + 1) / 2 : 0;
        T* __restrict xr = x + phys::pf_box_at(bx, i, j, k);
        const T* __restrict x0r = x0 + phys::pf_box_at(bx, i, j, k);
#pragma omp simd reduction(max : rm) reduction(|| : rn)
        for (long q = 0; q < n; ++q) {
          T* const p = xr + 2 * q;
          const T old = p[0];
          const T v = phys::fl_lin_point<T>(x0r[2 * q], p[-1], p[1], p[-sy], p[sy], p[-sz], p[sz], aa, inv_c);
          p[0] = v;
          const T d = std::fabs(v - old);
          rm = d > rm ? d : rm;
          rn = rn || d != d;
        }
        i += 2 * n;
        if (i == nx - 1) edge(i);
      }
      if (check) {
        m = rm > m ? rm : m;
        nan = nan || rn;
      }
    }
  return nan ? std::numeric_limits<T>::quiet_NaN() : m;
}

template <class T>
void solve_t(const HostContext& hc, const FluidsSolveArgs& a, long first, long count) {
  unsigned long long* ctrl = host_ptr<unsigned long long>(a.ctrl) + static_cast<std::size_t>(a.ctrl_block) * PF_CV_WORDS;
  const T tol = static_cast<T>(a.tolerance);
  for (long it = first; it < first + count; ++it) {
    const FusedPlan plan = fused_plan(it, 1);
    if (phys::pf_cv_fused_stop<T>(ctrl, it, plan.decide_slot, tol, PF_CV_TEST, 1)) return;
    const T red = sweep<T>(hc, a, 0, true);
    const T black = sweep<T>(hc, a, 1, true);
    const T m = std::isnan(red) || std::isnan(black) ? std::numeric_limits<T>::quiet_NaN() : (red > black ? red : black);
    ctrl[PF_CV_SLOT0 + plan.check_slot] = phys::pf_to_word(m);
    ctrl[PF_CV_SLOT0 + plan.clear_slot] = 0;
  }
}

class HostFluids3D final : public Fluids3DImpl {
 public:
  explicit HostFluids3D(const HostContext& hc) : hc_(hc) {}

  void add_source(const FluidsSourceArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      T* x = host_ptr<T>(a.x);
      const pf_box3 bx = a.box.view();
      const T value = T(a.value);
      for (long k = a.k0; k <= a.k1; ++k)
        for (long j = a.j0; j <= a.j1; ++j)
          for (long i = a.i0; i <= a.i1; ++i) phys::fl_source_cell<T>(x, bx, a.b, i, j, k, value);
    });
  }

  void boundary(const FluidsBoundaryArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      T* x = host_ptr<T>(a.x);
      const pf_box3 bx = a.box.view();
      const long n = phys::fl_boundary_cells(bx);
      // faces one after the other: cells shared by two faces rewrite the same ghosts
      for (long q = 0; q < n; ++q) phys::fl_boundary_cell<T>(x, bx, a.b, q);
    });
  }

  void solve(const FluidsSolveArgs& a, long first, long count) override {
    if (a.prec == Precision::Float) solve_t<float>(hc_, a, first, count);
    else solve_t<double>(hc_, a, first, count);
  }

  void advect(const FluidsAdvectArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      T* d = host_ptr<T>(a.d);
      const T *d0 = host_ptr<T>(a.d0), *u = host_ptr<T>(a.u), *v = host_ptr<T>(a.v), *w = host_ptr<T>(a.w);
      const pf_box3 bx = a.box.view();
      const T dtx = T(a.dt * double(bx.nx)), dty = T(a.dt * double(bx.ny)), dtz = T(a.dt * double(bx.nz));
      for_box(hc_, a.box,
              [&](long i, long j, long k) { phys::fl_advect_cell<T>(d, d0, u, v, w, bx, a.b, i, j, k, dtx, dty, dtz); });
    });
  }

  void divergence(const FluidsDivergenceArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T *u = host_ptr<T>(a.u), *v = host_ptr<T>(a.v), *w = host_ptr<T>(a.w);
      T* div = host_ptr<T>(a.div);
      T* p = host_ptr<T>(a.p);
      const pf_box3 bx = a.box.view();
      const T h = T(a.h);
      const int has_p = p != nullptr;
      for_box(hc_, a.box, [&](long i, long j, long k) { phys::fl_div_cell<T>(u, v, w, div, p, has_p, bx, i, j, k, h); });
    });
  }

  void gradient(const FluidsGradientArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      T *u = host_ptr<T>(a.u), *v = host_ptr<T>(a.v), *w = host_ptr<T>(a.w);
      const T* p = host_ptr<T>(a.p);
      const pf_box3 bx = a.box.view();
      const T scale = T(a.scale);
      for_box(hc_, a.box, [&](long i, long j, long k) { phys::fl_grad_cell<T>(u, v, w, p, bx, i, j, k, scale); });
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

std::unique_ptr<Fluids3DImpl> make_family(const HostContext& hc, FamilyTag<Fluids3DImpl>) {
  return std::make_unique<HostFluids3D>(hc);
}

}  // namespace poreflow
