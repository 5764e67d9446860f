#pragma once
// The fim family: the fully implicit oil-water scheme's kernels (core/physics/fim.h; docs/fim.md):
// per cell the masses, the residual and Jacobian rows (2 x 2 blocks in the layout of
// core/linalg/stencil7.hpp) with the completions' terms, the Newton update and the state's
// packing; per well (a work-item each) the step's heads, the control equation, its Schur
// complement in the operator and the BHP's update. impes3d's grid arrays and parameters
// (core/kernels/impes3d.hpp).
#include <cstddef>

#include "core/kernels/backend.hpp"
#include "core/kernels/impes3d.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

// The wells' arrays of a fim run. Per well: wp (IMP_NWP parameters), ws (FIM_NWS state: BHP,
// control, equation, rates); per completion: cidx (its cell's box index at 2 c, as impes3d's), cwi,
// cdepth, cwell (its well, int32), cq (FIM_NCQ values); per box entry: ccell (its completion or
// -1, int32; a cell holds at most one). Buffers are never null (at least one element).
struct FimWells {
  long wells = 0, completions = 0;
  const Buffer *wp = nullptr, *cidx = nullptr, *cwi = nullptr, *cdepth = nullptr, *ccell = nullptr, *cwell = nullptr;
  Buffer *ws = nullptr, *cq = nullptr;
};

// masses: mw, mo (extent values) of every cell at the state x (2 x extent: p, s); 0 where inactive.
struct FimMassesArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  const Buffer* prm = nullptr;
  std::size_t prm_values = 0;
  const Buffer* x = nullptr;
  Buffer *mw = nullptr, *mo = nullptr;

  // fim_masses(prm, E, x, pv0, mw, mo)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{prm}, static_cast<long>(grid.box.extent()), In<Real>{x}, In<Real>{grid.pv0}, Out<Real>{mw},
                      Out<Real>{mo});
  }
};

// assemble: for every cell of the box, its residual (res: 2 x extent) and its Jacobian rows (coef:
// 7 planes x 4 x extent) at the state x for a step of dt days from the masses mw_n, mo_n, with its
// completion's rates at the wells' BHPs (their values and derivatives into cq), and the convergence
// measures cnv (2 x extent: B_a |R_a| / V_p0, water then oil), mbw, mbo (R_a, sm3). Entries outside
// the box's cells are not written.
struct FimAssembleArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  const Buffer* prm = nullptr;
  std::size_t prm_values = 0;
  double dt = 0;
  const Buffer *x = nullptr, *mw_n = nullptr, *mo_n = nullptr;
  FimWells wells;
  Buffer *coef = nullptr, *res = nullptr, *cnv = nullptr, *mbw = nullptr, *mbo = nullptr;
  double cnv_tol = 0.01;   // viol: V_p0 of each cell whose CNV is above this, else 0
  Buffer* viol = nullptr;

  // fim_assemble(prm, b, cells, E, dt, x, mw_n, mo_n, tx, ty, tz, depth, pv0, wp, ws, ccell, cwell,
  //              cwi, cq, coef, res, cnv, mbw, mbo, cnv_tol, viol)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{prm}, grid.box.view(), static_cast<long>(grid.box.cells()), static_cast<long>(grid.box.extent()),
                      Real{dt}, In<Real>{x}, In<Real>{mw_n}, In<Real>{mo_n}, In<Real>{grid.tx}, In<Real>{grid.ty},
                      In<Real>{grid.tz}, In<Real>{grid.depth}, In<Real>{grid.pv0}, In<Real>{wells.wp}, In<Real>{wells.ws},
                      In<int>{wells.ccell}, In<int>{wells.cwell}, In<Real>{wells.cwi}, Out<Real>{wells.cq}, Out<Real>{coef},
                      Out<Real>{res}, Out<Real>{cnv}, Out<Real>{mbw}, Out<Real>{mbo}, Real{cnv_tol}, Out<Real>{viol});
  }
};

// well_start (a work-item per well): the wellbore densities and completion heads of a step from the
// state x, and the BHP of each well whose state asks for it (FIM_WS_INIT).
struct FimWellStartArgs {
  Precision prec = Precision::Double;
  const Buffer* prm = nullptr;
  std::size_t prm_values = 0;
  FimWells wells;
  const Buffer *x = nullptr, *pv0 = nullptr;
  std::size_t extent = 0;

  // fim_well_start(prm, nw, wp, ws, cidx, cwi, cdepth, x, pv0, cq)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{prm}, wells.wells, In<Real>{wells.wp}, Out<Real>{wells.ws}, In<long>{wells.cidx},
                      In<Real>{wells.cwi}, In<Real>{wells.cdepth}, In<Real>{x}, In<Real>{pv0}, Out<Real>{wells.cq});
  }
};

// well_equation (a work-item per well), after assemble: the wells' rates and equations into ws, C
// into cq; rate-controlled wells' Schur terms of their own cells into coef's diagonal and res.
struct FimWellEquationArgs {
  Precision prec = Precision::Double;
  FimWells wells;
  double dt = 0;
  std::size_t extent = 0;
  Buffer *coef = nullptr, *res = nullptr;

  // fim_well_equation(nw, wp, ws, cidx, cq, dt, coef, res)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(wells.wells, In<Real>{wells.wp}, Out<Real>{wells.ws}, In<long>{wells.cidx}, Out<Real>{wells.cq}, Real{dt},
                      Out<Real>{coef}, Out<Real>{res});
  }
};

// schur (a work-item per well): y += alpha x the coupling of each rate-controlled well's
// completions through its BHP applied to v (alpha 1 after y = A' v; -1 after y = b - A' v).
// Returns at once when the guard says stop.
struct FimSchurArgs {
  Precision prec = Precision::Double;
  FimWells wells;
  double dt = 0;
  std::size_t extent = 0;
  double alpha = 1;
  const Buffer* v = nullptr;
  Buffer* y = nullptr;
  const Buffer* guard = nullptr;

  // fim_schur(nw, wp, ws, cidx, cq, dt, alpha, v, y, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(wells.wells, In<Real>{wells.wp}, In<Real>{wells.ws}, In<long>{wells.cidx}, In<Real>{wells.cq}, Real{dt},
                      Real{alpha}, In<Real>{v}, Out<Real>{y}, Opt<pf_u64>{guard});
  }
};

// update: the Newton step dx (2 x extent) applied: first each well's BHP (fim_update_well, a
// work-item per well), then each cell's x -= dx within dp_max and ds_max (fim_update_cell).
struct FimUpdateArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  FimWells wells;
  const Buffer* dx = nullptr;
  Buffer* x = nullptr;
  double dp_max = 0, ds_max = 0, dbhp_max = 0;
  // the cells' step the wells' BHP steps are taken from; null: dx. OPM Flow updates its wells from
  // the Newton step as solved and damps only the cells' (core/models/newton_relaxation.hpp).
  const Buffer* well_dx = nullptr;

  // fim_update_wells(nw, wp, ws, cidx, cq, dx, dbhp_max)
  auto well_args() const {
    using namespace karg;
    return std::tuple(wells.wells, In<Real>{wells.wp}, Out<Real>{wells.ws}, In<long>{wells.cidx}, In<Real>{wells.cq},
                      In<Real>{well_dx ? well_dx : dx}, Real{dbhp_max});
  }
  // fim_update_cells(E, pv0, dx, x, dp_max, ds_max)
  auto cell_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(grid.box.extent()), In<Real>{grid.pv0}, In<Real>{dx}, Out<Real>{x}, Real{dp_max},
                      Real{ds_max});
  }
};

// unpack: x into the model's p and sw with the step's changes dp, ds (extent values each, 0 where
// inactive); pack: p and sw into x (0 where inactive).
struct FimUnpackArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  const Buffer* x = nullptr;
  Buffer *p = nullptr, *sw = nullptr, *dp = nullptr, *ds = nullptr;

  // fim_unpack(E, pv0, x, p, sw, dp, ds)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(grid.box.extent()), In<Real>{grid.pv0}, In<Real>{x}, Out<Real>{p}, Out<Real>{sw},
                      Out<Real>{dp}, Out<Real>{ds});
  }
};
struct FimPackArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  const Buffer *p = nullptr, *sw = nullptr;
  Buffer* x = nullptr;

  // fim_pack(E, pv0, p, sw, x)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(grid.box.extent()), In<Real>{grid.pv0}, In<Real>{p}, In<Real>{sw}, Out<Real>{x});
  }
};

class FimImpl {
 public:
  virtual ~FimImpl() = default;
  virtual void masses(const FimMassesArgs& a) = 0;
  virtual void assemble(const FimAssembleArgs& a) = 0;
  virtual void well_start(const FimWellStartArgs& a) = 0;
  virtual void well_equation(const FimWellEquationArgs& a) = 0;
  virtual void schur(const FimSchurArgs& a) = 0;
  virtual void update(const FimUpdateArgs& a) = 0;
  virtual void unpack(const FimUnpackArgs& a) = 0;
  virtual void pack(const FimPackArgs& a) = 0;
};

class FimKernels {
 public:
  FimKernels(Backend& be, FimImpl& impl) : be_(be), impl_(impl) {}
  void masses(const FimMassesArgs& a);
  void assemble(const FimAssembleArgs& a);
  void well_start(const FimWellStartArgs& a);
  void well_equation(const FimWellEquationArgs& a);
  void schur(const FimSchurArgs& a);
  void update(const FimUpdateArgs& a);
  void unpack(const FimUnpackArgs& a);
  void pack(const FimPackArgs& a);

 private:
  Backend& be_;
  FimImpl& impl_;
};

}  // namespace poreflow
