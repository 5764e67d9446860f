// fim on the host backends: the cells and wells of core/physics/fim.h in OpenMP loops (the wells'
// loops run over wells: their completions' cells are disjoint).
#include "backends/host/families.hpp"
#include "core/base/converge.h"
#include "core/kernels/fim.hpp"
#include "core/physics/fim.h"

namespace poreflow {
namespace {

class HostFim final : public FimImpl {
 public:
  explicit HostFim(const HostContext& hc) : hc_(hc) {}

  void masses(const FimMassesArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const long E = static_cast<long>(a.grid.box.extent());
      const T *prm = host_ptr<T>(a.prm), *x = host_ptr<T>(a.x), *pv0 = host_ptr<T>(a.grid.pv0);
      T *mw = host_ptr<T>(a.mw), *mo = host_ptr<T>(a.mo);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(E)))
      for (long L = 0; L < E; ++L) phys::fim_masses_cell<T>(prm, L, x, pv0, mw, mo);
    });
  }

  void assemble(const FimAssembleArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const pf_box3 b = a.grid.box.view();
      const long cells = a.grid.box.cells(), E = static_cast<long>(a.grid.box.extent());
      const T *prm = host_ptr<T>(a.prm), *x = host_ptr<T>(a.x), *mwn = host_ptr<T>(a.mw_n), *mon = host_ptr<T>(a.mo_n);
      const T *tx = host_ptr<T>(a.grid.tx), *ty = host_ptr<T>(a.grid.ty), *tz = host_ptr<T>(a.grid.tz),
              *depth = host_ptr<T>(a.grid.depth), *pv0 = host_ptr<T>(a.grid.pv0);
      const T *wp = host_ptr<T>(a.wells.wp), *ws = host_ptr<T>(a.wells.ws), *cwi = host_ptr<T>(a.wells.cwi);
      const int *ccell = host_ptr<int>(a.wells.ccell), *cwell = host_ptr<int>(a.wells.cwell);
      T *cq = host_ptr<T>(a.wells.cq), *coef = host_ptr<T>(a.coef), *res = host_ptr<T>(a.res), *cnv = host_ptr<T>(a.cnv),
        *mbw = host_ptr<T>(a.mbw), *mbo = host_ptr<T>(a.mbo), *viol = host_ptr<T>(a.viol);
      const T dt = static_cast<T>(a.dt), cnv_tol = static_cast<T>(a.cnv_tol);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(cells) * 32))
      for (long c = 0; c < cells; ++c) {
        const long i = c % b.nx, j = (c / b.nx) % b.ny, k = c / (b.nx * b.ny);
        phys::fim_assemble_cell<T>(prm, b, i, j, k, E, dt, x, mwn, mon, tx, ty, tz, depth, pv0, wp, ws, ccell, cwell, cwi, cq,
                                   coef, res, cnv, mbw, mbo, cnv_tol, viol);
      }
    });
  }

  void well_start(const FimWellStartArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const FimWells& w = a.wells;
      for (long i = 0; i < w.wells; ++i)
        phys::fim_well_start<T>(host_ptr<T>(a.prm), i, host_ptr<T>(w.wp), host_ptr<T>(w.ws), host_ptr<long>(w.cidx),
                                host_ptr<T>(w.cwi), host_ptr<T>(w.cdepth), host_ptr<T>(a.x), host_ptr<T>(a.pv0), host_ptr<T>(w.cq));
    });
  }

  void well_equation(const FimWellEquationArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const FimWells& w = a.wells;
      for (long i = 0; i < w.wells; ++i)
        phys::fim_well_equation<T>(i, host_ptr<T>(w.wp), host_ptr<T>(w.ws), host_ptr<long>(w.cidx), host_ptr<T>(w.cq),
                                   static_cast<T>(a.dt), host_ptr<T>(a.coef), host_ptr<T>(a.res));
    });
  }

  void schur(const FimSchurArgs& a) override {
    if (a.guard && !phys::pf_cv_running(host_ptr<unsigned long long>(*a.guard))) return;
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const FimWells& w = a.wells;
      for (long i = 0; i < w.wells; ++i)
        phys::fim_schur_well<T>(i, host_ptr<T>(w.wp), host_ptr<T>(w.ws), host_ptr<long>(w.cidx), host_ptr<T>(w.cq),
                                static_cast<T>(a.dt), static_cast<T>(a.alpha), host_ptr<T>(a.v), host_ptr<T>(a.y));
    });
  }

  void update(const FimUpdateArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const FimWells& w = a.wells;
      for (long i = 0; i < w.wells; ++i)
        phys::fim_update_well<T>(i, host_ptr<T>(w.wp), host_ptr<T>(w.ws), host_ptr<long>(w.cidx), host_ptr<T>(w.cq),
                                 host_ptr<T>(a.well_dx ? a.well_dx : a.dx), static_cast<T>(a.dbhp_max));
      const long E = static_cast<long>(a.grid.box.extent());
      const T *pv0 = host_ptr<T>(a.grid.pv0), *dx = host_ptr<T>(a.dx);
      T* x = host_ptr<T>(a.x);
      const T dp = static_cast<T>(a.dp_max), ds = static_cast<T>(a.ds_max);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(E)))
      for (long L = 0; L < E; ++L) phys::fim_update_cell<T>(L, pv0, dx, x, dp, ds);
    });
  }

  void unpack(const FimUnpackArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const long E = static_cast<long>(a.grid.box.extent());
      const T *pv0 = host_ptr<T>(a.grid.pv0), *x = host_ptr<T>(a.x);
      T *p = host_ptr<T>(a.p), *sw = host_ptr<T>(a.sw), *dp = host_ptr<T>(a.dp), *ds = host_ptr<T>(a.ds);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(E)))
      for (long L = 0; L < E; ++L) phys::fim_unpack_cell<T>(L, pv0, x, p, sw, dp, ds);
    });
  }

  void pack(const FimPackArgs& a) override {
    with_type(a.prec, [&](auto tag) {
      using T = decltype(tag);
      const long E = static_cast<long>(a.grid.box.extent());
      const T *pv0 = host_ptr<T>(a.grid.pv0), *p = host_ptr<T>(a.p), *sw = host_ptr<T>(a.sw);
      T* x = host_ptr<T>(a.x);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(E)))
      for (long L = 0; L < E; ++L) phys::fim_pack_cell<T>(L, pv0, p, sw, x);
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<FimImpl> make_family(const HostContext& hc, FamilyTag<FimImpl>) { return std::make_shared<HostFim>(hc); }

}  // namespace poreflow
