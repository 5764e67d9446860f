#include "core/kernels/cpr.hpp"

#include <string>

#include "core/base/error.hpp"
#include "core/kernels/control.hpp"

namespace poreflow {

CprKernels Backend::cpr() { return CprKernels(*this, cpr_impl()); }

namespace {
void check_ints(const Buffer* b, std::size_t n, const char* what) {
  if (b) check_range(*b, n * sizeof(int), 0, what);
}
}  // namespace

void CprKernels::weights(const CprWeightsArgs& a) {
  check_precision(be_, a.prec, "cpr weights");
  check_ints(a.diag_pos, a.cells, "cpr weights diag_pos");
  if (!a.diag_pos && a.diag_blocks < a.cells)
    throw BackendError("cpr weights: " + std::to_string(a.cells) + " cells but " + std::to_string(a.diag_blocks) +
                       " diagonal blocks");
  check_values(a.diag, 4 * a.diag_blocks, a.prec, "cpr weights diag");
  check_values(a.w, 2 * a.cells, a.prec, "cpr weights w");
  if (a.cells == 0) return;
  impl_.weights(a);
}

void CprKernels::pressure(const CprPressureArgs& a) {
  check_precision(be_, a.prec, "cpr pressure");
  check_ints(a.rows, a.entries, "cpr pressure rows");
  if (!a.rows && (a.extent == 0 || a.extent > a.cells))
    throw BackendError("cpr pressure: a stencil's extent of " + std::to_string(a.extent) + " for " + std::to_string(a.cells) +
                       " cells");
  check_values(a.w, 2 * a.cells, a.prec, "cpr pressure w");
  check_values(a.a, 4 * a.entries, a.prec, "cpr pressure a");
  check_values(a.ap, a.entries, a.prec, "cpr pressure ap");
  if (a.entries == 0) return;
  impl_.pressure(a);
}

void CprKernels::restrict_residual(const CprRestrictArgs& a) {
  check_precision(be_, a.prec, "cpr restrict");
  check_values(a.w, 2 * a.cells, a.prec, "cpr restrict w");
  check_values(a.r, 2 * a.cells, a.prec, "cpr restrict r");
  check_values(a.rp, a.cells, a.prec, "cpr restrict rp");
  if (a.guard) check_control_block(a.guard, "cpr restrict guard");
  if (a.cells == 0) return;
  impl_.restrict_residual(a);
}

void CprKernels::prolong(const CprProlongArgs& a) {
  check_precision(be_, a.prec, "cpr prolong");
  check_values(a.xp, a.cells, a.prec, "cpr prolong xp");
  check_values(a.z, 2 * a.cells, a.prec, "cpr prolong z");
  if (a.guard) check_control_block(a.guard, "cpr prolong guard");
  if (a.cells == 0) return;
  impl_.prolong(a);
}

}  // namespace poreflow
