// fim on the host backends: the cells of core/physics/fim.h in OpenMP loops.
#include "backends/host/families.hpp"
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
      T *coef = host_ptr<T>(a.coef), *res = host_ptr<T>(a.res);
      const T dt = static_cast<T>(a.dt);
#pragma omp parallel for schedule(static) num_threads(hc_.threads) if (hc_.par(std::size_t(cells) * 32))
      for (long c = 0; c < cells; ++c) {
        const long i = c % b.nx, j = (c / b.nx) % b.ny, k = c / (b.nx * b.ny);
        phys::fim_assemble_cell<T>(prm, b, i, j, k, E, dt, x, mwn, mon, tx, ty, tz, depth, pv0, coef, res);
      }
    });
  }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<FimImpl> make_family(const HostContext& hc, FamilyTag<FimImpl>) { return std::make_shared<HostFim>(hc); }

}  // namespace poreflow
