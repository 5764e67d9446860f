#pragma once
// The impes3d family: the per-cell and per-well kernels of paper 003's black-oil IMPES step
// (core/physics/impes3d.h). A step is: props (the cells' properties at the start of the step),
// assemble (the pressure rows: the paper's PrePoisson), wells_prepare (each well's control and its
// terms in the rows), the pressure solve (sor3d), wells_finish (the wells' rates at the new
// pressure, into the masses) and update (the explicit mass update: the paper's SaturationCalc,
// with the step's statistics reduced on the device). Nothing but the few words of the step's
// statistics and well results comes back to the host.
//
// Cell arrays are in the box layout of one Box3 with a halo of 1 (core/base/box3.h), whose halo
// holds zeros; property q of cell L is at q * extent + L of the props array.
#include <cstddef>
#include <string_view>

#include "core/kernels/backend.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/kernel_args.hpp"
#include "core/physics/impes3d.h"

namespace poreflow {

// Where the kernels read prm (parameters and tables) from. Constant: CUDA __constant__ memory
// (copied there before each launch that reads it) or an OpenCL __constant argument; Global:
// through the caches; Auto: constant where it fits.
enum class TableSpace { Auto, Constant, Global };
const char* to_string(TableSpace t);
TableSpace parse_table_space(std::string_view s);

// the most values of prm that constant memory takes (per precision, CUDA)
constexpr std::size_t kImpesConstantValues = 4096;

// The static grid, in the box layout: transmissibilities of the faces between i and i + 1 (tx,
// stored at i), j and j + 1 (ty), k and k + 1 (tz), in sm3 cP / (day bar), 0 at the boundary and next
// to inactive cells; cell-centre depths (m); reference pore volumes (m3, 0: inactive).
struct Impes3DGrid {
  Box3 box;
  const Buffer *tx = nullptr, *ty = nullptr, *tz = nullptr, *depth = nullptr, *pv0 = nullptr;

  // the grid's leading parameters of the cell kernels: b, E (the box's extent), tx, ty, tz,
  // depth, pv0 (core/kernels/kernel_args.hpp)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(box.view(), static_cast<long>(box.extent()), In<Real>{tx}, In<Real>{ty}, In<Real>{tz}, In<Real>{depth},
                      In<Real>{pv0});
  }
};

struct Impes3DTables {
  const Buffer* prm = nullptr;
  std::size_t values = 0;  // IMP_NPARAMS and the tables
  TableSpace space = TableSpace::Auto;
};

// props: the IMP_NPROPS properties of every cell from its pressure and masses (zeros for inactive
// cells). Reads p, mw, mo, pv0; writes props (IMP_NPROPS x extent).
struct Impes3DPropsArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  Impes3DTables tables;
  const Buffer *p = nullptr, *mw = nullptr, *mo = nullptr;
  Buffer* props = nullptr;
  BoxShape shape;

  // imp_props(grid..., prm, p, mw, mo, props)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple_cat(grid.kernel_args(),
                          std::tuple(In<Real>{tables.prm}, In<Real>{p}, In<Real>{mw}, In<Real>{mo}, Out<Real>{props}));
  }
};

// assemble: every cell's row of the pressure equation into the colour-packed SOR coefficients
// (sor3d_coef_values(box) values), without the wells. Reads p (the start of the step) and props.
struct Impes3DAssembleArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  double dt = 0;  // days, > 0
  const Buffer *p = nullptr, *props = nullptr;
  Buffer* coef = nullptr;
  BoxShape shape;

  // imp_assemble(grid..., dt, p, props, coef)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple_cat(grid.kernel_args(), std::tuple(Real{dt}, In<Real>{p}, In<Real>{props}, Out<Real>{coef}));
  }
};

// The wells: `wells` wells of IMP_NWP parameters each (wp), `completions` completions (cidx: two
// int64 per completion, its cell's index in the box arrays and in the colour-packed coefficients;
// cwi, cdepth: well index and depth), comp: IMP_NCP values per completion, written by prepare and
// by finish (the rates at the new pressure, which update adds to the masses), moved by couple (a
// rate well's BHP is an unknown of the pressure solve: core/physics/impes3d.h). words: the step's IMP_NSTAT statistics words, then IMP_NWO words per well.
struct Impes3DWellArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  Impes3DTables tables;
  long wells = 0, completions = 0;
  const Buffer *wp = nullptr, *cidx = nullptr, *cwi = nullptr, *cdepth = nullptr;
  Buffer* comp = nullptr;
  const Buffer *props = nullptr, *p = nullptr;
  double dt = 0;
  Buffer* coef = nullptr;  // prepare, couple: the rows the wells' terms are added to
  Buffer* words = nullptr;
  const Buffer* dp = nullptr;  // couple: the solve's iterate of the pressure increment
  const Buffer* x = nullptr;   // apply: the operator's input
  Buffer* y = nullptr;         // apply: its output, gaining the rate wells' coupling
  double sign = -1;            // apply: -1 for A x, +1 for b - A x
  const Buffer* guard = nullptr;  // apply: a solve's control block; the launch returns once it says stop

  // imp_wells_prepare(grid..., prm, wells, wp, cidx, cwi, cdepth, comp, props, p, dt, coef, words)
  auto prepare_args() const {
    using namespace karg;
    return std::tuple_cat(grid.kernel_args(),
                          std::tuple(In<Real>{tables.prm}, wells, In<Real>{wp}, In<long>{cidx}, In<Real>{cwi}, In<Real>{cdepth},
                                     Out<Real>{comp}, In<Real>{props}, In<Real>{p}, Real{dt}, Out<Real>{coef},
                                     Out<pf_u64>{words}));
  }
  // imp_wells_couple(grid..., wells, wp, cidx, comp, props, p, dp, dt, coef)
  auto couple_args() const {
    using namespace karg;
    return std::tuple_cat(grid.kernel_args(), std::tuple(wells, In<Real>{wp}, In<long>{cidx}, Out<Real>{comp}, In<Real>{props},
                                                         In<Real>{p}, In<Real>{dp}, Real{dt}, Out<Real>{coef}));
  }
  // imp_wells_apply(E, wells, wp, cidx, comp, props, dt, sign, x, y, guard)
  auto apply_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(grid.box.extent()), wells, In<Real>{wp}, In<long>{cidx}, In<Real>{comp},
                      In<Real>{props}, Real{dt}, Real{sign}, In<Real>{x}, Out<Real>{y}, Opt<pf_u64>{guard});
  }
  // imp_wells_finish(wells, wp, cidx, comp, p, words)
  auto finish_args() const {
    using namespace karg;
    return std::tuple(wells, In<Real>{wp}, In<long>{cidx}, Out<Real>{comp}, In<Real>{p}, Out<pf_u64>{words});
  }
};

// update: the new masses and S_w of every cell (mw_out, mo_out, sw) from the fluxes at p_new and
// the completions' rates (ccell: int32 per cell in the box layout, the completion in the cell or
// -1; comp: as wells_finish left it), and the step's statistics folded into words[0, IMP_NSTAT)
// (zeroed by the caller before the step).
struct Impes3DUpdateArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  Impes3DTables tables;
  double dt = 0;
  const Buffer *p_old = nullptr, *p_new = nullptr, *props = nullptr, *mw_in = nullptr, *mo_in = nullptr;
  const Buffer *ccell = nullptr, *comp = nullptr;
  long completions = 0;
  Buffer *mw_out = nullptr, *mo_out = nullptr, *sw = nullptr;
  Buffer* words = nullptr;
  BoxShape shape;

  // imp_update(grid..., prm, dt, p_old, p_new, props, mw_in, mo_in, ccell, comp, mw_out, mo_out, sw, words)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple_cat(grid.kernel_args(),
                          std::tuple(In<Real>{tables.prm}, Real{dt}, In<Real>{p_old}, In<Real>{p_new}, In<Real>{props},
                                     In<Real>{mw_in}, In<Real>{mo_in}, In<int>{ccell}, In<Real>{comp}, Out<Real>{mw_out},
                                     Out<Real>{mo_out}, Out<Real>{sw}, Out<pf_u64>{words}));
  }
};

// values of the words buffer for `wells` wells
inline std::size_t impes3d_words(long wells) { return IMP_NSTAT + static_cast<std::size_t>(IMP_NWO) * static_cast<std::size_t>(wells); }

class Impes3DImpl {
 public:
  virtual ~Impes3DImpl() = default;
  virtual void props(const Impes3DPropsArgs& a) = 0;
  virtual void assemble(const Impes3DAssembleArgs& a) = 0;
  virtual void wells_prepare(const Impes3DWellArgs& a) = 0;
  virtual void wells_finish(const Impes3DWellArgs& a) = 0;
  virtual void wells_couple(const Impes3DWellArgs& a) = 0;
  virtual void wells_apply(const Impes3DWellArgs& a) = 0;
  virtual void update(const Impes3DUpdateArgs& a) = 0;
};

class Impes3DKernels {
 public:
  Impes3DKernels(Backend& be, Impes3DImpl& impl) : be_(be), impl_(impl) {}
  void props(const Impes3DPropsArgs& a);
  void assemble(const Impes3DAssembleArgs& a);
  void wells_prepare(const Impes3DWellArgs& a);
  void wells_finish(const Impes3DWellArgs& a);
  // the rate wells' BHP from the iterate p + dp, their completions' wellbore pressures and rows'
  // right-hand sides moved with it (between SOR sweeps, and once after any solve)
  void wells_couple(const Impes3DWellArgs& a);
  // y += sign dt g_c (sum_d r_d x_d) / sum_d r_d over each rate well's completions: its coupling in
  // an operator of the rows multiplied by the pore volumes (impes3d's Krylov pressure solve)
  void wells_apply(const Impes3DWellArgs& a);
  void update(const Impes3DUpdateArgs& a);

 private:
  Backend& be_;
  Impes3DImpl& impl_;
};

}  // namespace poreflow
