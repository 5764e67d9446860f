#include "core/kernels/ilu.hpp"

#include <algorithm>
#include <climits>
#include <cstdint>
#include <string>

#include "core/base/error.hpp"
#include "core/kernels/control.hpp"
#include "core/physics/ilu.h"

namespace poreflow {

const char* to_string(IluVariant v) { return v == IluVariant::Ilu0 ? "ILU(0)" : "DILU"; }

IluKernels Backend::ilu() { return IluKernels(*this, ilu_impl()); }

namespace {

void check_ints(const Buffer* b, std::size_t n, const char* what) {
  if (!b) throw BackendError(std::string(what) + ": missing buffer");
  check_range(*b, n * sizeof(int), 0, what);
}

void check_block(int block, const char* what) {
  if (block != 1 && block != 2) throw BackendError(std::string(what) + ": blocks of 1 or 2 unknowns, not " + std::to_string(block));
}

}  // namespace

void IluKernels::check(const IluStencilArgs& a, bool factor) const {
  check_precision(be_, a.prec, "ilu stencil");
  check_block(a.block, "ilu stencil");
  const std::size_t b2 = static_cast<std::size_t>(a.block * a.block), E = a.box.extent();
  check_box(a.box, a.dinv, a.prec, "ilu stencil dinv");
  if (a.box.halo < 1) throw BackendError("ilu stencil: the box needs a halo of at least 1");
  // 7 planes of 4 values still index in long; the box's own indices go through int
  if (E >= static_cast<std::size_t>(INT_MAX)) throw BackendError("ilu stencil: the box's extent " + std::to_string(E) + " is 2^31 or more");
  check_values(a.coef, 7 * b2 * E, a.prec, "ilu stencil coef");
  check_ints(a.active, E, "ilu stencil active");
  check_values(a.dinv, b2 * E, a.prec, "ilu stencil dinv");
  if (a.dinv == a.coef) throw BackendError("ilu stencil: dinv must not be coef");
  if (factor) {
    check_ints(a.pivot, 2, "ilu stencil pivot");
    return;
  }
  check_values(a.r, a.block * E, a.prec, "ilu stencil r");
  check_values(a.z, a.block * E, a.prec, "ilu stencil z");
  if (a.z == a.r || a.z == a.coef || a.z == a.dinv) throw BackendError("ilu stencil: z must be a buffer of its own");
  if (a.sum) {
    check_values(a.sum, a.block * E, a.prec, "ilu stencil sum");
    if (a.sum == a.r || a.sum == a.z || a.sum == a.coef || a.sum == a.dinv) throw BackendError("ilu stencil: sum must be a buffer of its own");
  }
  if (a.guard) check_control_block(a.guard, "ilu stencil guard");
}

void IluKernels::check(const IluCsrArgs& a, bool factor) const {
  check_precision(be_, a.prec, "ilu csr");
  check_block(a.block, "ilu csr");
  const std::size_t b2 = static_cast<std::size_t>(a.block * a.block);
  if (a.rows >= static_cast<std::size_t>(INT_MAX) || a.nnz >= static_cast<std::size_t>(INT_MAX))
    throw BackendError("ilu csr: 32-bit indices take fewer than 2^31 rows and blocks");
  check_ints(a.ptr, a.rows + 1, "ilu csr ptr");
  check_ints(a.col, a.nnz, "ilu csr col");
  check_values(a.val, a.nnz * b2, a.prec, "ilu csr val");
  check_ints(a.order, a.rows, "ilu csr order");
  check_ints(a.ent, a.nnz, "ilu csr ent");
  check_ints(a.dpos, a.rows, "ilu csr dpos");
  check_values(a.dinv, a.rows * b2, a.prec, "ilu csr dinv");
  if (a.variant == IluVariant::Ilu0) {
    check_values(a.lu, a.nnz * b2, a.prec, "ilu csr lu");
    if (a.lu == a.val || a.lu == a.dinv) throw BackendError("ilu csr: lu must be a buffer of its own");
  }
  if (a.dinv == a.val) throw BackendError("ilu csr: dinv must not be val");
  if (a.first < 0 || a.count < 0 || static_cast<std::size_t>(a.first) + static_cast<std::size_t>(a.count) > a.rows)
    throw BackendError("ilu csr: the rows [" + std::to_string(a.first) + ", " + std::to_string(a.first + a.count) +
                       ") of the order lie outside its " + std::to_string(a.rows));
  if (a.colour < 0) throw BackendError("ilu csr: negative colour");
  if (factor) {
    check_ints(a.pivot, 2, "ilu csr pivot");
    return;
  }
  check_values(a.r, a.rows * a.block, a.prec, "ilu csr r");
  check_values(a.z, a.rows * a.block, a.prec, "ilu csr z");
  if (a.z == a.r || a.z == a.val || a.z == a.dinv || (a.lu && a.z == a.lu))
    throw BackendError("ilu csr: z must be a buffer of its own");
  if (a.sum) {
    check_values(a.sum, a.rows * a.block, a.prec, "ilu csr sum");
    if (a.sum == a.r || a.sum == a.z || a.sum == a.val || a.sum == a.dinv || (a.lu && a.sum == a.lu))
      throw BackendError("ilu csr: sum must be a buffer of its own");
  }
  if (a.guard) check_control_block(a.guard, "ilu csr guard");
}

void IluKernels::s7_factor(const IluStencilArgs& a, int colour) {
  check(a, true);
  if (colour != 0 && colour != 1) throw BackendError("ilu stencil factor: colour " + std::to_string(colour) + " is not 0 or 1");
  impl_.s7_factor(a, colour);
}

void IluKernels::s7_lower(const IluStencilArgs& a, int colour) {
  check(a, false);
  if (colour != 0 && colour != 1) throw BackendError("ilu stencil lower: colour " + std::to_string(colour) + " is not 0 or 1");
  // colour 0's z is not final (the backward sweep changes it)
  if (colour == 0 && a.sum) throw BackendError("ilu stencil lower: colour 0 takes no sum");
  impl_.s7_lower(a, colour);
}

void IluKernels::s7_upper(const IluStencilArgs& a) {
  check(a, false);
  impl_.s7_upper(a);
}

void IluKernels::csr_factor(const IluCsrArgs& a) {
  check(a, true);
  if (a.count > 0) impl_.csr_factor(a);
}

void IluKernels::csr_lower(const IluCsrArgs& a) {
  check(a, false);
  if (a.count > 0) impl_.csr_lower(a);
}

void IluKernels::csr_upper(const IluCsrArgs& a) {
  check(a, false);
  if (a.count > 0) impl_.csr_upper(a);
}

void IluKernels::reset_pivot(Buffer& pivot) {
  check_ints(&pivot, 2, "ilu pivot");
  const int none[2] = {PF_ILU_NONE, PF_ILU_NONE};
  be_.upload(pivot, none, sizeof none);
}

IluPivot IluKernels::read_pivot(const Buffer& pivot) {
  check_ints(&pivot, 2, "ilu pivot");
  int w[2] = {0, 0};
  be_.download(pivot, w, sizeof w);
  IluPivot p;
  if (w[0] != PF_ILU_NONE) p.row = w[0], p.colour = w[1];
  return p;
}

// ---- the CSR ordering ------------------------------------------------------------------------------

std::vector<int> ilu_greedy_colours(std::size_t rows, const std::vector<int>& ptr, const std::vector<int>& col) {
  // the transpose's rows: the j with (j, i) an entry, so both directions of a coupling are seen
  std::vector<int> tptr(rows + 1, 0), tcol(col.size());
  for (int c : col) ++tptr[static_cast<std::size_t>(c) + 1];
  for (std::size_t r = 0; r < rows; ++r) tptr[r + 1] += tptr[r];
  {
    std::vector<int> next(tptr.begin(), tptr.end() - 1);
    for (std::size_t r = 0; r < rows; ++r)
      for (int k = ptr[r]; k < ptr[r + 1]; ++k) tcol[static_cast<std::size_t>(next[static_cast<std::size_t>(col[k])]++)] = static_cast<int>(r);
  }
  std::vector<int> colour(rows, -1);
  std::vector<std::size_t> seen;  // seen[c] == r + 1: colour c is taken by a row coupled to r
  for (std::size_t r = 0; r < rows; ++r) {
    auto mark = [&](int j) {
      const int c = colour[static_cast<std::size_t>(j)];
      if (c < 0) return;
      if (static_cast<std::size_t>(c) >= seen.size()) seen.resize(static_cast<std::size_t>(c) + 1, 0);
      seen[static_cast<std::size_t>(c)] = r + 1;
    };
    for (int k = ptr[r]; k < ptr[r + 1]; ++k) mark(col[k]);
    for (int k = tptr[r]; k < tptr[r + 1]; ++k) mark(tcol[k]);
    int c = 0;
    while (static_cast<std::size_t>(c) < seen.size() && seen[static_cast<std::size_t>(c)] == r + 1) ++c;
    colour[r] = c;
  }
  return colour;
}

IluCsrPlan make_ilu_csr_plan(std::size_t rows, const std::vector<int>& ptr, const std::vector<int>& col,
                             std::vector<int> colours) {
  if (ptr.size() != rows + 1 || static_cast<std::size_t>(ptr[rows]) != col.size())
    throw ConfigError("ILU plan: the pattern's row pointer does not match its " + std::to_string(rows) + " rows");
  if (colours.empty()) colours = ilu_greedy_colours(rows, ptr, col);
  if (colours.size() != rows)
    throw ConfigError("ILU plan: " + std::to_string(colours.size()) + " colours given for " + std::to_string(rows) + " rows");
  IluCsrPlan p;
  p.rows = rows;
  p.colour = std::move(colours);
  int nc = 0;
  for (std::size_t r = 0; r < rows; ++r) {
    if (p.colour[r] < 0) throw ConfigError("ILU plan: row " + std::to_string(r) + " has a negative colour");
    nc = std::max(nc, p.colour[r] + 1);
  }
  p.colours = nc;
  // the rows by colour, increasing within one
  p.colour_ptr.assign(static_cast<std::size_t>(nc) + 1, 0);
  for (int c : p.colour) ++p.colour_ptr[static_cast<std::size_t>(c) + 1];
  for (int c = 0; c < nc; ++c) p.colour_ptr[static_cast<std::size_t>(c) + 1] += p.colour_ptr[static_cast<std::size_t>(c)];
  p.order.resize(rows);
  {
    std::vector<int> next(p.colour_ptr.begin(), p.colour_ptr.end() - 1);
    for (std::size_t r = 0; r < rows; ++r) p.order[static_cast<std::size_t>(next[static_cast<std::size_t>(p.colour[r])]++)] = static_cast<int>(r);
  }
  // each row's entries: before the diagonal by (colour, column), the diagonal, after it by column
  p.ent.resize(col.size());
  p.dpos.resize(rows);
  std::vector<int> lower, upper;
  for (std::size_t r = 0; r < rows; ++r) {
    const int cr = p.colour[r];
    int diag = -1;
    lower.clear();
    upper.clear();
    if (ptr[r + 1] < ptr[r]) throw ConfigError("ILU plan: row " + std::to_string(r) + " ends before it starts");
    for (int k = ptr[r]; k < ptr[r + 1]; ++k) {
      if (k > ptr[r] && col[k] <= col[k - 1]) throw ConfigError("ILU plan: row " + std::to_string(r) + "'s columns do not increase");
      const auto c = static_cast<std::size_t>(col[k]);
      if (c >= rows) throw ConfigError("ILU plan: row " + std::to_string(r) + " has column " + std::to_string(c) + " of a square matrix of " + std::to_string(rows));
      if (c == r) diag = k;
      else if (p.colour[c] < cr) lower.push_back(k);
      else if (p.colour[c] > cr) upper.push_back(k);
      else
        throw ConfigError("ILU plan: rows " + std::to_string(r) + " and " + std::to_string(c) + " are coupled but share colour " +
                          std::to_string(cr));
    }
    if (diag < 0) throw ConfigError("ILU plan: row " + std::to_string(r) + " has no diagonal block");
    std::stable_sort(lower.begin(), lower.end(), [&](int x, int y) {
      return p.colour[static_cast<std::size_t>(col[x])] < p.colour[static_cast<std::size_t>(col[y])];
    });  // stable: columns stay increasing within a colour
    int at = ptr[r];
    for (int k : lower) p.ent[static_cast<std::size_t>(at++)] = k;
    p.dpos[r] = at;
    p.ent[static_cast<std::size_t>(at++)] = diag;
    for (int k : upper) p.ent[static_cast<std::size_t>(at++)] = k;
  }
  return p;
}

}  // namespace poreflow
