#include "core/kernels/fim.hpp"

#include <algorithm>
#include <string>
#include <tuple>

#include "core/base/error.hpp"
#include "core/physics/fim.h"

namespace poreflow {

FimKernels Backend::fim() { return FimKernels(*this, fim_impl()); }

namespace {
void check_grid(const Impes3DGrid& g, Precision prec, const char* what) {
  if (g.box.halo < 1) throw BackendError(std::string(what) + ": the box needs a halo of at least 1");
  const std::size_t E = g.box.extent();
  for (const Buffer* b : {g.tx, g.ty, g.tz, g.depth, g.pv0}) check_values(b, E, prec, what, "grid array");
}
}  // namespace

void FimKernels::masses(const FimMassesArgs& a) {
  const char* w = "fim masses";
  check_precision(be_, a.prec, w);
  check_grid(a.grid, a.prec, w);
  const std::size_t E = a.grid.box.extent();
  check_values(a.prm, a.prm_values, a.prec, w, "parameters");
  check_values(a.x, 2 * E, a.prec, w, "state");
  check_values(a.mw, E, a.prec, w, "water masses");
  check_values(a.mo, E, a.prec, w, "oil masses");
  impl_.masses(a);
}

// the wells' arrays of a launch: sizes of every buffer from the counts (each at least one element)
static void check_wells(const FimWells& w, std::size_t extent, Precision prec, const char* what) {
  if (w.wells < 0 || w.completions < 0) throw BackendError(std::string(what) + ": negative well or completion count");
  const std::size_t nw = std::max<std::size_t>(1, std::size_t(w.wells)), nc = std::max<std::size_t>(1, std::size_t(w.completions));
  check_values(w.wp, nw * IMP_NWP, prec, what, "well parameters");
  check_values(w.ws, nw * FIM_NWS, prec, what, "well state");
  check_values(w.cwi, nc, prec, what, "well indices");
  check_values(w.cdepth, nc, prec, what, "completion depths");
  check_values(w.cq, nc * FIM_NCQ, prec, what, "completion terms");
  for (auto [b, bytes, name] : {std::tuple{w.cidx, 2 * nc * sizeof(long), "completion cells"},
                                std::tuple{w.cwell, nc * sizeof(int), "completion wells"},
                                std::tuple{w.ccell, extent * sizeof(int), "cell completions"}}) {
    if (!b) throw BackendError(std::string(what) + ": missing " + name);
    check_range(*b, bytes, 0, what);
  }
}

void FimKernels::assemble(const FimAssembleArgs& a) {
  const char* w = "fim assemble";
  check_precision(be_, a.prec, w);
  check_grid(a.grid, a.prec, w);
  if (!(a.dt > 0)) throw BackendError(std::string(w) + ": dt = " + std::to_string(a.dt));
  const std::size_t E = a.grid.box.extent();
  check_values(a.prm, a.prm_values, a.prec, w, "parameters");
  check_values(a.x, 2 * E, a.prec, w, "state");
  check_values(a.mw_n, E, a.prec, w, "water masses");
  check_values(a.mo_n, E, a.prec, w, "oil masses");
  check_values(a.coef, 28 * E, a.prec, w, "Jacobian");
  check_values(a.res, 2 * E, a.prec, w, "residual");
  check_values(a.cnv, 2 * E, a.prec, w, "convergence measures");
  check_values(a.mbw, E, a.prec, w, "water balance");
  check_values(a.mbo, E, a.prec, w, "oil balance");
  check_values(a.viol, E, a.prec, w, "pore volume over the CNV tolerance");
  check_wells(a.wells, E, a.prec, w);
  if (a.grid.box.cells() == 0) return;
  impl_.assemble(a);
}

void FimKernels::well_start(const FimWellStartArgs& a) {
  const char* w = "fim well_start";
  check_precision(be_, a.prec, w);
  check_values(a.prm, a.prm_values, a.prec, w, "parameters");
  check_values(a.x, 2 * a.extent, a.prec, w, "state");
  check_values(a.pv0, a.extent, a.prec, w, "pore volumes");
  check_wells(a.wells, a.extent, a.prec, w);
  if (a.wells.wells == 0) return;
  impl_.well_start(a);
}

void FimKernels::well_equation(const FimWellEquationArgs& a) {
  const char* w = "fim well_equation";
  check_precision(be_, a.prec, w);
  check_values(a.coef, 28 * a.extent, a.prec, w, "Jacobian");
  check_values(a.res, 2 * a.extent, a.prec, w, "residual");
  check_wells(a.wells, a.extent, a.prec, w);
  if (a.wells.wells == 0) return;
  impl_.well_equation(a);
}

void FimKernels::schur(const FimSchurArgs& a) {
  const char* w = "fim schur";
  check_precision(be_, a.prec, w);
  check_values(a.v, 2 * a.extent, a.prec, w, "v");
  check_values(a.y, 2 * a.extent, a.prec, w, "y");
  check_wells(a.wells, a.extent, a.prec, w);
  if (a.wells.wells == 0) return;
  impl_.schur(a);
}

void FimKernels::update(const FimUpdateArgs& a) {
  const char* w = "fim update";
  check_precision(be_, a.prec, w);
  check_grid(a.grid, a.prec, w);
  const std::size_t E = a.grid.box.extent();
  check_values(a.dx, 2 * E, a.prec, w, "Newton step");
  if (a.well_dx) check_values(a.well_dx, 2 * E, a.prec, w, "wells' Newton step");
  check_values(a.x, 2 * E, a.prec, w, "state");
  check_wells(a.wells, E, a.prec, w);
  if (!(a.dp_max > 0) || !(a.ds_max > 0) || !(a.dbhp_max > 0)) throw BackendError(std::string(w) + ": the limits must be positive");
  impl_.update(a);
}

void FimKernels::unpack(const FimUnpackArgs& a) {
  const char* w = "fim unpack";
  check_precision(be_, a.prec, w);
  check_grid(a.grid, a.prec, w);
  const std::size_t E = a.grid.box.extent();
  check_values(a.x, 2 * E, a.prec, w, "state");
  for (const Buffer* b : {static_cast<const Buffer*>(a.p), static_cast<const Buffer*>(a.sw), static_cast<const Buffer*>(a.dp),
                          static_cast<const Buffer*>(a.ds)})
    check_values(b, E, a.prec, w, "cell array");
  impl_.unpack(a);
}

void FimKernels::pack(const FimPackArgs& a) {
  const char* w = "fim pack";
  check_precision(be_, a.prec, w);
  check_grid(a.grid, a.prec, w);
  const std::size_t E = a.grid.box.extent();
  check_values(a.p, E, a.prec, w, "pressure");
  check_values(a.sw, E, a.prec, w, "saturation");
  check_values(a.x, 2 * E, a.prec, w, "state");
  impl_.pack(a);
}

}  // namespace poreflow
