// impes3d on the host backends: the semantics every backend follows (core/kernels/impes3d.hpp);
// box loops around the shared cell and well functions of core/physics/impes3d.h.
#include <cmath>
#include <limits>

#include "core/base/converge.h"
#include "core/physics/impes3d.h"
#include "backends/host/families.hpp"
#include "core/kernels/impes3d.hpp"

namespace poreflow {
namespace {

template <class T>
struct GridPtrs {
  pf_box3 b;
  long E;
  const T *tx, *ty, *tz, *depth, *pv0;
  explicit GridPtrs(const Impes3DGrid& g)
      : b(g.box.view()),
        E(static_cast<long>(g.box.extent())),
        tx(host_ptr<T>(g.tx)),
        ty(host_ptr<T>(g.ty)),
        tz(host_ptr<T>(g.tz)),
        depth(host_ptr<T>(g.depth)),
        pv0(host_ptr<T>(g.pv0)) {}
};

// a step's statistic as its word: the bits of a non-negative T (NaN above everything)
template <class T>
unsigned long long word_of(T v) {
  return phys::pf_to_word(v);
}

class HostImpes3D final : public Impes3DImpl {
 public:
  explicit HostImpes3D(const HostContext& hc) : hc_(hc) {}

  void props(const Impes3DPropsArgs& a) override {
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      const GridPtrs<T> g(a.grid);
      const T* prm = host_ptr<T>(a.tables.prm);
      const T *p = host_ptr<T>(a.p), *mw = host_ptr<T>(a.mw), *mo = host_ptr<T>(a.mo);
      T* props = host_ptr<T>(a.props);
      for_box(hc_, a.grid.box, [&](long i, long j, long k) {
        phys::imp_props_cell<T>(prm, phys::pf_box_at(g.b, i, j, k), g.E, p, mw, mo, g.pv0, props);
      });
    });
  }

  void assemble(const Impes3DAssembleArgs& a) override {
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      const GridPtrs<T> g(a.grid);
      const T *p = host_ptr<T>(a.p), *props = host_ptr<T>(a.props);
      T* coef = host_ptr<T>(a.coef);
      const T dt = T(a.dt);
      for_box(hc_, a.grid.box, [&](long i, long j, long k) {
        phys::imp_assemble_cell<T>(g.b, i, j, k, g.E, dt, p, props, g.tx, g.ty, g.tz, g.depth, g.pv0, coef);
      });
    });
  }

  void wells_prepare(const Impes3DWellArgs& a) override {
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      const GridPtrs<T> g(a.grid);
      const long m2 = 2 * phys::pf_rb_m(g.b);
      auto* words = host_ptr<unsigned long long>(a.words);
      for (long w = 0; w < a.wells; ++w)
        phys::imp_well_prepare<T>(host_ptr<T>(a.tables.prm), host_ptr<T>(a.wp) + w * IMP_NWP, host_ptr<long>(a.cidx),
                                  host_ptr<T>(a.cwi), host_ptr<T>(a.cdepth), host_ptr<T>(a.props), g.E, m2,
                                  host_ptr<T>(a.p), g.pv0, T(a.dt), host_ptr<T>(a.comp), host_ptr<T>(a.coef),
                                  words + IMP_NSTAT + w * IMP_NWO);
    });
  }

  void wells_finish(const Impes3DWellArgs& a) override {
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      auto* words = host_ptr<unsigned long long>(a.words);
      for (long w = 0; w < a.wells; ++w)
        phys::imp_well_finish<T>(host_ptr<T>(a.wp) + w * IMP_NWP, host_ptr<long>(a.cidx), host_ptr<T>(a.comp),
                                 host_ptr<T>(a.p), words + IMP_NSTAT + w * IMP_NWO);
    });
  }

  void wells_couple(const Impes3DWellArgs& a) override {
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      const GridPtrs<T> g(a.grid);
      const long m2 = 2 * phys::pf_rb_m(g.b);
      for (long w = 0; w < a.wells; ++w)
        phys::imp_well_couple<T>(host_ptr<T>(a.wp) + w * IMP_NWP, host_ptr<long>(a.cidx), host_ptr<T>(a.comp),
                                 host_ptr<T>(a.props), g.E, m2, host_ptr<T>(a.p), host_ptr<T>(a.dp), g.pv0, T(a.dt),
                                 host_ptr<T>(a.coef));
    });
  }

  void wells_apply(const Impes3DWellArgs& a) override {
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      if (a.guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*a.guard))) return;
      const long E = static_cast<long>(a.grid.box.extent());
      for (long w = 0; w < a.wells; ++w)
        phys::imp_well_apply<T>(host_ptr<T>(a.wp) + w * IMP_NWP, host_ptr<long>(a.cidx), host_ptr<T>(a.comp),
                                host_ptr<T>(a.props), E, T(a.dt), T(a.sign), host_ptr<T>(a.x), host_ptr<T>(a.y));
    });
  }

  void update(const Impes3DUpdateArgs& a) override {
    with_type(a.prec, [&](auto t) {
      using T = decltype(t);
      const GridPtrs<T> g(a.grid);
      const T* prm = host_ptr<T>(a.tables.prm);
      const T *po = host_ptr<T>(a.p_old), *pn = host_ptr<T>(a.p_new), *props = host_ptr<T>(a.props);
      const T *mwi = host_ptr<T>(a.mw_in), *moi = host_ptr<T>(a.mo_in);
      const int* ccell = host_ptr<int>(a.ccell);
      const T* comp = host_ptr<T>(a.comp);
      T *mwo = host_ptr<T>(a.mw_out), *moo = host_ptr<T>(a.mo_out), *sw = host_ptr<T>(a.sw);
      const T dt = T(a.dt);
      const pf_box3 b = g.b;
      T best[IMP_NSTAT] = {};
      bool nan[IMP_NSTAT] = {};
#pragma omp parallel num_threads(hc_.threads) if (hc_.par(std::size_t(a.grid.box.cells())))
      {
        T mine[IMP_NSTAT] = {};
        bool my_nan[IMP_NSTAT] = {};
#pragma omp for collapse(2) schedule(static)
        for (long k = 0; k < b.nz; ++k)
          for (long j = 0; j < b.ny; ++j)
            for (long i = 0; i < b.nx; ++i) {
              T st[IMP_NSTAT];
              phys::imp_update_cell<T>(prm, b, i, j, k, g.E, dt, po, pn, props, g.tx, g.ty, g.tz, g.depth, g.pv0, mwi, moi,
                                       ccell, comp, mwo, moo, sw, st);
              for (int s = 0; s < IMP_NSTAT; ++s) {
                if (std::isnan(st[s])) my_nan[s] = true;
                else if (st[s] > mine[s]) mine[s] = st[s];
              }
            }
#pragma omp critical
        for (int s = 0; s < IMP_NSTAT; ++s) {
          nan[s] = nan[s] || my_nan[s];
          if (mine[s] > best[s]) best[s] = mine[s];
        }
      }
      auto* words = host_ptr<unsigned long long>(a.words);
      for (int s = 0; s < IMP_NSTAT; ++s) {
        const T v = nan[s] ? std::numeric_limits<T>::quiet_NaN() : best[s];
        // the fold of the GPUs' atomic max on the bits (a float in the low half of its word)
        const unsigned long long x = word_of(v), old = words[s];
        words[s] = x > old ? x : old;
      }
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<Impes3DImpl> make_family(const HostContext& hc, FamilyTag<Impes3DImpl>) { return std::make_shared<HostImpes3D>(hc); }

}  // namespace poreflow
