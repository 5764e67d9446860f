#include "core/kernels/fim.hpp"

#include <string>

#include "core/base/error.hpp"

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
  if (a.grid.box.cells() == 0) return;
  impl_.assemble(a);
}

}  // namespace poreflow
