// fluids3d on the host backends: the semantics every backend follows (core/kernels/fluids3d.hpp),
// loops around the per-cell functions of core/physics/fluids3d.h. serial is paper 001's sequential
// program; omp shares rows among the threads as its OpenMP phase did, reduction(max) for the
// sweep's largest change.
#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/converge.h"
#include "core/base/rb3.h"
#include "core/physics/fluids3d.h"
#include "backends/host/families.hpp"
#include "core/kernels/fluids3d.hpp"

namespace poreflow {
namespace {

// One colour sweep of lin_solve on the colour-packed arrays; returns max |change| (NaN when one
// was NaN). In a row the colour's cells and their neighbours of the other colour are contiguous:
// the cells off the walls run as a plain unit-stride loop the compiler vectorises, the few next to
// a wall through fl_lin_update_packed.
template <class T>
T sweep(const HostContext& hc, const FluidsSolveArgs& a, int c, long k_begin, long k_end) {
  const pf_box3 bx = a.box.view();
  T* xp = host_ptr<T>(a.x);
  const T* x0p = host_ptr<T>(a.x0);
  const T aa = T(a.a), inv_c = T(1.0 / a.c);
  const long nx = bx.nx, ny = bx.ny, nz = bx.nz, hx = phys::pf_rb_hx(bx), m = phys::fl_rb_part(bx), plane = ny * hx;
  const int b = a.b, walls = a.walls;
  // layers off the z walls: a face shared with another process's box reads its extra plane
  const long k_lo = (walls & PF_FL_WALL_B) ? 1 : 0, k_hi = (walls & PF_FL_WALL_T) ? nz - 1 : nz;
  T mx = 0;
  bool nan = false;
#pragma omp parallel for collapse(2) schedule(static) num_threads(hc.threads) if (hc.par(std::size_t(a.box.cells()))) \
    reduction(max : mx) reduction(|| : nan)
  for (long k = k_begin; k < k_end; ++k)
    for (long j = 0; j < ny; ++j) {
      const long s = phys::pf_rb_shift(c, j, k);
      const long n = (nx - s + 1) / 2;  // cells of colour c in the row
      T rm = 0;
      bool rn = false;
      auto edge = [&](long ih) {
        const T d = phys::fl_lin_update_packed<T>(xp, x0p, bx, b, c, ih, j, k, aa, inv_c, walls);
        rm = d > rm ? d : rm;
        rn = rn || d != d;
      };
      // [lo, hi): the cells of the row off the walls
      long lo = n, hi = n;
      if (j > 0 && j < ny - 1 && k >= k_lo && k < k_hi) {
        lo = s == 0 ? 1 : 0;
        hi = std::max(lo, 2 * (n - 1) + s == nx - 1 ? n - 1 : n);
      }
      for (long ih = 0; ih < lo; ++ih) edge(ih);
      const long row = ((k + 1) * ny + j) * hx;
      T* __restrict xr = xp + c * m + row;
      const T* __restrict x0r = x0p + c * m + row;
      const T* __restrict o = xp + (1 - c) * m + row;  // the other colour's row: i - 1 and i + 1 at ih - 1 + s, ih + s
      // a NaN change is found from the changes' sum (NaN exactly when one is: they are >= 0): a
      // flag or-ed per cell halved the loop's speed (tools/experiments/fl_omp_sweep.cpp)
      T sum = 0;
#pragma omp simd reduction(max : rm) reduction(+ : sum)
      for (long ih = lo; ih < hi; ++ih) {
        const T old = xr[ih];
        const T v = phys::fl_lin_point<T>(x0r[ih], o[ih - 1 + s], o[ih + s], o[ih - hx], o[ih + hx], o[ih - plane], o[ih + plane],
                                          aa, inv_c);
        xr[ih] = v;
        const T d = std::fabs(v - old);
        rm = d > rm ? d : rm;
        sum += d;
      }
      rn = rn || sum != sum;
      for (long ih = hi; ih < n; ++ih) edge(ih);
      mx = rm > mx ? rm : mx;
      nan = nan || rn;
    }
  return nan ? std::numeric_limits<T>::quiet_NaN() : mx;
}

template <class T>
void solve_t(const HostContext& hc, const FluidsSolveArgs& a, long first, long count) {
  unsigned long long* ctrl = host_ptr<unsigned long long>(a.ctrl) + static_cast<std::size_t>(a.ctrl_block) * PF_CV_WORDS;
  const T tol = static_cast<T>(a.tolerance);
  for (long it = first; it < first + count; ++it) {
    const FusedPlan plan = fused_plan(it, 1);
    if (phys::pf_cv_fused_stop<T>(ctrl, it, plan.decide_slot, tol, PF_CV_TEST, 1)) return;
    // a colour in the parts fluids3d_sweep_parts gives (with a split: the outer layers first)
    const FluidsSweepParts parts = fluids3d_sweep_parts(a.box.nz, a.split != nullptr);
    auto colour = [&](int c) {
      T m = 0;
      for (int q = 0; q <= parts.n; ++q) {
        if (q == parts.outer && a.split) a.split->outer_swept(a, c, plan);
        if (q == parts.n) break;
        const T r = sweep<T>(hc, a, c, parts.first[q], parts.first[q] + parts.count[q]);
        m = std::isnan(r) || std::isnan(m) ? std::numeric_limits<T>::quiet_NaN() : (r > m ? r : m);
      }
      return m;
    };
    const T red = colour(0);
    if (a.split) a.split->after_sweep(a, 0, plan);
    const T black = colour(1);
    const T m = std::isnan(red) || std::isnan(black) ? std::numeric_limits<T>::quiet_NaN() : (red > black ? red : black);
    ctrl[PF_CV_SLOT0 + plan.check_slot] = phys::pf_to_word(m);
    ctrl[PF_CV_SLOT0 + plan.clear_slot] = 0;
    if (a.split) a.split->after_sweep(a, 1, plan);
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

  void pack(const FluidsPackArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* x = host_ptr<T>(a.x);
      T* xp = host_ptr<T>(a.xp);
      const pf_box3 bx = a.box.view();
      for_box(hc_, a.box, [&](long i, long j, long k) { phys::fl_pack_cell<T>(x, xp, bx, i, j, k, phys::pf_box_at(bx, i, j, k)); });
    });
  }

  void unpack(const FluidsUnpackArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const T* xp = host_ptr<T>(a.xp);
      T* x = host_ptr<T>(a.x);
      const pf_box3 bx = a.box.view();
      for_box(hc_, a.box, [&](long i, long j, long k) { phys::fl_unpack_cell<T>(xp, x, bx, a.b, i, j, k, phys::pf_box_at(bx, i, j, k)); });
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
      const auto t = a.kernel_args();  // the values the device kernels get, in T
      const T dtx = T(std::get<7>(t).v), dty = T(std::get<8>(t).v), dtz = T(std::get<9>(t).v);
      const T z_lo = T(std::get<10>(t).v), z_hi = T(std::get<11>(t).v);
      for_box(hc_, a.box,
              [&](long i, long j, long k) {
                phys::fl_advect_cell<T>(d, d0, u, v, w, bx, a.b, i, j, k, phys::pf_box_at(bx, i, j, k), dtx, dty, dtz, z_lo, z_hi);
              });
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
      for_box(hc_, a.box, [&](long i, long j, long k) { 
        phys::fl_div_cell<T>(u, v, w, div, p, has_p, bx, i, j, k, phys::pf_box_at(bx, i, j, k), h);
      });
    });
  }

  void gradient(const FluidsGradientArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      T *u = host_ptr<T>(a.u), *v = host_ptr<T>(a.v), *w = host_ptr<T>(a.w);
      const T* p = host_ptr<T>(a.p);
      const pf_box3 bx = a.box.view();
      const T scale = T(a.scale);
      for_box(hc_, a.box, [&](long i, long j, long k) { 
        phys::fl_grad_cell<T>(u, v, w, p, bx, i, j, k, phys::pf_box_at(bx, i, j, k), scale);
      });
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<Fluids3DImpl> make_family(const HostContext& hc, FamilyTag<Fluids3DImpl>) {
  return std::make_shared<HostFluids3D>(hc);
}

}  // namespace poreflow
