#include "core/kernels/amg.hpp"

#include "core/base/error.hpp"
#include "core/kernels/control.hpp"
#include "core/physics/amg_tail.h"

namespace poreflow {

AmgKernels Backend::amg() { return AmgKernels(*this, amg_impl()); }

namespace {
void check_ints(const Buffer* b, std::size_t n, const char* what) {
  if (!b) throw BackendError(std::string(what) + ": missing");
  check_range(*b, n * sizeof(int), 0, what);
}
}  // namespace

void AmgKernels::p_values(const AmgPValuesArgs& a) {
  check_precision(be_, a.prec, "amg p_values");
  check_ints(a.p_ptr, a.rows + 1, "amg p_values p_ptr");
  check_ints(a.diag_pos, a.rows, "amg p_values diag_pos");
  check_ints(a.weak_ptr, a.rows + 1, "amg p_values weak_ptr");
  for (const Buffer* b : {a.weak, a.src_ptr, a.src, a.own})
    if (!b) throw BackendError("amg p_values: a plan array is missing");
  check_values(a.a, a.a_values, a.prec, "amg p_values a");
  check_values(a.p, a.p_values, a.prec, "amg p_values p");
  if (a.rows == 0) return;
  impl_.p_values(a);
}

void AmgKernels::galerkin(const AmgGalerkinArgs& a) {
  check_precision(be_, a.prec, "amg galerkin");
  check_ints(a.r_ptr, a.rows + 1, "amg galerkin r_ptr");
  check_ints(a.c_ptr, a.rows + 1, "amg galerkin c_ptr");
  for (const Buffer* b : {a.r_col, a.r_val, a.a_ptr, a.a_col, a.a_val, a.p_ptr, a.p_col, a.p_val, a.c_col})
    if (!b) throw BackendError("amg galerkin: a matrix array is missing");
  check_values(a.c_val, a.c_values, a.prec, "amg galerkin c_val");
  if (a.rows == 0) return;
  impl_.galerkin(a);
}

void AmgKernels::smooth(const AmgSmoothArgs& a) {
  check_precision(be_, a.prec, "amg smooth");
  for (const Buffer* b : {a.r, a.dinv, static_cast<const Buffer*>(a.d), static_cast<const Buffer*>(a.x)})
    check_values(b, a.n, a.prec, "amg smooth");
  if (a.guard) check_control_block(a.guard, "amg smooth guard");
  if (a.n == 0) return;
  impl_.smooth(a);
}

void AmgKernels::tail_cycle(const AmgTailArgs& a, const std::vector<int>& table) {
  check_precision(be_, a.prec, "amg tail_cycle");
  if (a.levels < 1 || a.levels > PF_AMG_TAIL_MAX)
    throw BackendError("amg tail_cycle: " + std::to_string(a.levels) + " levels, not 1 to " + std::to_string(PF_AMG_TAIL_MAX));
  if (table.size() != static_cast<std::size_t>(a.levels) * PF_AMG_TAIL_FIELDS)
    throw BackendError("amg tail_cycle: the table has " + std::to_string(table.size()) + " entries for " +
                       std::to_string(a.levels) + " levels");
  check_ints(a.table, table.size(), "amg tail_cycle table");
  check_ints(a.ints, a.ints_n, "amg tail_cycle ints");
  check_values(a.vals, a.vals_n, a.prec, "amg tail_cycle vals");
  check_values(a.work, a.work_n, a.prec, "amg tail_cycle work");
  check_values(a.b, a.first_rows, a.prec, "amg tail_cycle b");
  check_values(a.x, a.first_rows, a.prec, "amg tail_cycle x");
  if (a.guard) check_control_block(a.guard, "amg tail_cycle guard");
  // every offset inside its array, for the level's rows (a matrix's entries past its row pointers
  // are the packer's to keep inside: ints and vals hold them)
  auto inside = [&](long off, long count, std::size_t size, int l, const char* what) {
    if (off < 0 || count < 0 || static_cast<std::size_t>(off + count) > size)
      throw BackendError("amg tail_cycle: level " + std::to_string(l) + "'s " + what + " (offset " + std::to_string(off) +
                         ", " + std::to_string(count) + " values) lies outside its array of " + std::to_string(size));
  };
  for (int l = 0; l < a.levels; ++l) {
    const int* t = table.data() + static_cast<std::size_t>(l) * PF_AMG_TAIL_FIELDS;
    const long n = t[PF_AT_ROWS];
    const bool last = l + 1 == a.levels;
    if (n < 1 || (l == 0 && static_cast<std::size_t>(n) != a.first_rows))
      throw BackendError("amg tail_cycle: level " + std::to_string(l) + " has " + std::to_string(n) + " rows" +
                         (l == 0 ? ", the vectors " + std::to_string(a.first_rows) : std::string()));
    if (t[PF_AT_DEGREE] < 1) throw BackendError("amg tail_cycle: level " + std::to_string(l) + "'s smoother has no step");
    inside(t[PF_AT_A_PTR], n + 1, a.ints_n, l, "A's row pointers");
    inside(t[PF_AT_A_COL], 0, a.ints_n, l, "A's columns");
    inside(t[PF_AT_A_VAL], 0, a.vals_n, l, "A's values");
    inside(t[PF_AT_DINV], n, a.vals_n, l, "inverse diagonal");
    inside(t[PF_AT_COEF], 2L * t[PF_AT_DEGREE], a.vals_n, l, "smoother's coefficients");
    if (l == 0 && (t[PF_AT_B] != -1 || t[PF_AT_X] != -1))
      throw BackendError("amg tail_cycle: the first level's vectors are b and x, not the work array's");
    if (l > 0) {
      inside(t[PF_AT_B], n, a.work_n, l, "right-hand side");
      inside(t[PF_AT_X], n, a.work_n, l, "iterate");
    }
    inside(t[PF_AT_Y], n, a.work_n, l, "second iterate");
    inside(t[PF_AT_D], n, a.work_n, l, "direction");
    if (!last) {
      const long nc = t[PF_AMG_TAIL_FIELDS + PF_AT_ROWS];
      inside(t[PF_AT_R_PTR], nc + 1, a.ints_n, l, "restriction's row pointers");
      inside(t[PF_AT_R_COL], 0, a.ints_n, l, "restriction's columns");
      inside(t[PF_AT_R_VAL], 0, a.vals_n, l, "restriction's values");
      inside(t[PF_AT_P_PTR], n + 1, a.ints_n, l, "prolongator's row pointers");
      inside(t[PF_AT_P_COL], 0, a.ints_n, l, "prolongator's columns");
      inside(t[PF_AT_P_VAL], 0, a.vals_n, l, "prolongator's values");
    } else if (t[PF_AT_CINV] >= 0) {
      inside(t[PF_AT_CINV], n * n, a.vals_n, l, "dense inverse");
    }
  }
  impl_.tail_cycle(a);
}

}  // namespace poreflow
