#include "core/kernels/csr.hpp"

#include <climits>
#include <string>

#include "core/base/error.hpp"
#include "core/kernels/control.hpp"

namespace poreflow {

CsrKernels Backend::csr() { return CsrKernels(*this, csr_impl()); }

int csr_lanes(const CsrRef& a, int requested, bool gpu) {
  if (requested > 0) return requested;
  if (!gpu || a.rows == 0) return 1;
  // Measured on an H200 (docs/linalg.md, "The csr family"): lanes enough for about 8 values of a
  // row each. A 7-point scalar row (7 values) is fastest on one thread: the 32 rows of a warp read
  // 32 neighbouring stretches of val and col that the L1 keeps until each row is done (0.84 x copy
  // at 256^3 in double; 2 lanes 0.70, 8 lanes 0.47). A 2 x 2 row of 7 blocks (28 values) on 4
  // lanes (0.98 x copy; 1 lane 0.51), a dense row of 500 on a whole warp. Checked on an H100 in
  // float and double: within 3 % of the fastest strategy on every matrix of bench linalg.
  const double values = double(a.nnz) / double(a.rows) * a.block * a.block;  // per row
  int lanes = 1;
  while (lanes < kCsrMaxLanes && values > 8.0 * lanes) lanes *= 2;
  return lanes;
}

int CsrImpl::lanes(const CsrRef&, int) const { return 1; }
std::string CsrImpl::vendor_name(int) const { return ""; }
void CsrImpl::vendor_spmv(const CsrSpmvArgs&) { throw BackendError("csr: no vendor sparse product on this backend"); }

void CsrKernels::check_matrix(const CsrRef& a, Precision prec, const char* what) const {
  check_precision(be_, prec, what);
  if (a.block != 1 && a.block != 2)
    throw BackendError(std::string(what) + ": blocks of 1 or 2 unknowns, not " + std::to_string(a.block));
  // 32-bit indices: the kernels form row, column and entry numbers in int
  if (a.rows >= std::size_t(INT_MAX) || a.cols >= std::size_t(INT_MAX) || a.nnz >= std::size_t(INT_MAX))
    throw BackendError(std::string(what) + ": " + std::to_string(a.rows) + " rows, " + std::to_string(a.cols) +
                       " columns, " + std::to_string(a.nnz) + " blocks: 32-bit indices hold fewer than 2^31 each");
  if (!a.ptr || !a.col) throw BackendError(std::string(what) + ": the pattern's buffers are missing");
  check_range(*a.ptr, (a.rows + 1) * sizeof(int), 0, what);
  check_range(*a.col, (a.nnz > 0 ? a.nnz : 1) * sizeof(int), 0, what);
  check_values(a.val, a.nnz * static_cast<std::size_t>(a.block * a.block), prec, what, "the values");
}

void CsrKernels::spmv(const CsrSpmvArgs& a) {
  check_matrix(a.a, a.prec, "csr spmv");
  check_values(a.x, a.a.vector_cols(), a.prec, "csr spmv x");
  check_values(a.y, a.a.vector_rows(), a.prec, "csr spmv y");
  if (a.x == a.y) throw BackendError("csr spmv: x and y must be distinct buffers");
  if (a.y == a.a.val) throw BackendError("csr spmv: y must not be the matrix's values");
  if (a.z && a.beta != 0) check_values(a.z, a.a.vector_rows(), a.prec, "csr spmv z");
  if (a.lanes != 0 && (a.lanes < 0 || a.lanes > kCsrMaxLanes || (a.lanes & (a.lanes - 1)) != 0))
    throw ConfigError("csr spmv: lanes " + std::to_string(a.lanes) + " is not 0 (the rule) or a power of two up to 32");
  if (a.guard) check_control_block(a.guard, "csr spmv guard");
  if (a.a.rows == 0) return;
  impl_.spmv(a);
}

void CsrKernels::residual(const CsrResidualArgs& a) {
  check_matrix(a.a, a.prec, "csr residual");
  check_values(a.b, a.a.vector_rows(), a.prec, "csr residual b");
  check_values(a.x, a.a.vector_cols(), a.prec, "csr residual x");
  check_values(a.r, a.a.vector_rows(), a.prec, "csr residual r");
  if (a.r == a.x || a.r == a.b) throw BackendError("csr residual: r must be distinct from b and x");
  if (a.r == a.a.val) throw BackendError("csr residual: r must not be the matrix's values");
  if (a.lanes != 0 && (a.lanes < 0 || a.lanes > kCsrMaxLanes || (a.lanes & (a.lanes - 1)) != 0))
    throw ConfigError("csr residual: lanes " + std::to_string(a.lanes) + " is not 0 (the rule) or a power of two up to 32");
  if (a.guard) check_control_block(a.guard, "csr residual guard");
  if (a.a.rows == 0) return;
  impl_.residual(a);
}

void CsrKernels::chebyshev(const CsrChebyshevArgs& a) {
  const char* w = "csr chebyshev";
  check_matrix(a.a, a.prec, w);
  if (a.a.block != 1) throw BackendError(std::string(w) + ": a scalar matrix's step, not of " + std::to_string(a.a.block) +
                                         " x " + std::to_string(a.a.block) + " blocks");
  if (a.a.rows != a.a.cols)
    throw BackendError(std::string(w) + ": the matrix is not square (" + std::to_string(a.a.rows) + " x " +
                       std::to_string(a.a.cols) + ")");
  const std::size_t n = a.a.rows;
  check_values(a.dinv, n, a.prec, w, "inverse diagonal");
  check_values(a.b, n, a.prec, w, "b");
  const Buffer* x = a.start != 0 ? nullptr : a.x;  // from zero: x is not read
  if (x) check_values(x, n, a.prec, w, "x");
  check_values(a.d, n, a.prec, w, "direction");
  check_values(a.x_out, n, a.prec, w, "x_out");
  if (a.r && a.start == 0) throw BackendError(std::string(w) + ": a residual r is the step from zero's (start), not another's");
  if (a.r) check_values(a.r, n, a.prec, w, "r");
  for (const Buffer* in : {x, a.b, a.dinv, a.a.val}) {
    if (in && in == a.x_out) throw BackendError(std::string(w) + ": x_out must not be one of the inputs");
    if (in && in == a.d) throw BackendError(std::string(w) + ": the direction must not be one of the inputs");
    if (in && in == a.r) throw BackendError(std::string(w) + ": r must not be one of the inputs");
  }
  if (a.d == a.x_out || (a.r && (a.r == a.d || a.r == a.x_out)))
    throw BackendError(std::string(w) + ": the direction, x_out and r must differ");
  if (a.lanes != 0 && (a.lanes < 0 || a.lanes > kCsrMaxLanes || (a.lanes & (a.lanes - 1)) != 0))
    throw ConfigError(std::string(w) + ": lanes " + std::to_string(a.lanes) + " is not 0 (the rule) or a power of two up to 32");
  if (a.guard) check_control_block(a.guard, w);
  if (n == 0) return;
  impl_.chebyshev(a);
}

void CsrKernels::diag_inv(const CsrDiagInvArgs& a) {
  check_matrix(a.a, a.prec, "csr diag_inv");
  if (a.a.rows != a.a.cols) throw BackendError("csr diag_inv: the matrix is not square (" + std::to_string(a.a.rows) + " x " +
                                               std::to_string(a.a.cols) + " blocks)");
  check_values(a.dinv, a.a.rows * static_cast<std::size_t>(a.a.block * a.a.block), a.prec, "csr diag_inv dinv");
  if (a.dinv == a.a.val) throw BackendError("csr diag_inv: dinv must not be the matrix's values");
  if (!a.bad) throw BackendError("csr diag_inv: the word of the first singular row is missing");
  check_range(*a.bad, sizeof(int), 0, "csr diag_inv bad");
  if (a.guard) check_control_block(a.guard, "csr diag_inv guard");
  be_.fill(*a.bad, Precision::Float, 0.0, 1);  // 0: no singular row (float 0 is 32 zero bits)
  if (a.a.rows == 0) return;
  impl_.diag_inv(a);
}

long CsrKernels::singular_row(const Buffer& bad) {
  check_range(bad, sizeof(int), 0, "csr singular_row");
  unsigned w = 0;
  be_.download(bad, &w, sizeof w);
  return w == 0 ? -1 : static_cast<long>(~w);
}

void CsrKernels::check_diagonal(const Buffer& bad, const char* what) {
  const long row = singular_row(bad);
  if (row >= 0)
    throw NumericalError(std::string(what) + ": row " + std::to_string(row) +
                         " has a missing, zero or singular diagonal block (its inverse is not finite)");
}

void CsrKernels::dinv_bound(const CsrDinvBoundArgs& a) {
  check_matrix(a.a, a.prec, "csr dinv_bound");
  if (a.a.rows != a.a.cols) throw BackendError("csr dinv_bound: the matrix is not square");
  check_values(a.dinv, a.a.rows * static_cast<std::size_t>(a.a.block * a.a.block), a.prec, "csr dinv_bound dinv");
  check_values(a.out, a.a.vector_rows(), a.prec, "csr dinv_bound out");
  if (a.out == a.dinv || a.out == a.a.val) throw BackendError("csr dinv_bound: out must be distinct from dinv and the values");
  if (a.guard) check_control_block(a.guard, "csr dinv_bound guard");
  if (a.a.rows == 0) return;
  impl_.dinv_bound(a);
}

void CsrKernels::gather(const CsrGatherArgs& a) {
  check_precision(be_, a.prec, "csr gather");
  if (a.block != 1 && a.block != 2) throw BackendError("csr gather: blocks of 1 or 2 unknowns, not " + std::to_string(a.block));
  if (a.nnz >= std::size_t(INT_MAX)) throw BackendError("csr gather: more than 2^31 blocks");
  const std::size_t b2 = static_cast<std::size_t>(a.block * a.block);
  if (!a.map) throw BackendError("csr gather: the map is missing");
  check_range(*a.map, (a.nnz > 0 ? a.nnz : 1) * sizeof(long), 0, "csr gather map");
  check_values(a.src, a.src_blocks * b2, a.prec, "csr gather src");
  check_values(a.val, a.nnz * b2, a.prec, "csr gather val");
  if (a.src == a.val) throw BackendError("csr gather: src and val must be distinct buffers");
  if (a.guard) check_control_block(a.guard, "csr gather guard");
  if (a.nnz == 0) return;
  impl_.gather(a);
}

int CsrKernels::lanes(const CsrRef& a, int requested) const { return impl_.lanes(a, requested); }

void CsrKernels::vendor_spmv(const CsrSpmvArgs& a) {
  check_matrix(a.a, a.prec, "csr vendor_spmv");
  check_values(a.x, a.a.vector_cols(), a.prec, "csr vendor_spmv x");
  check_values(a.y, a.a.vector_rows(), a.prec, "csr vendor_spmv y");
  if (a.x == a.y) throw BackendError("csr vendor_spmv: x and y must be distinct buffers");
  if (a.z && a.z != a.y && a.beta != 0) throw BackendError("csr vendor_spmv: the addend is y itself, not another vector z");
  if (impl_.vendor_name(a.a.block).empty())
    throw BackendError("csr vendor_spmv: no vendor product of " + std::to_string(a.a.block) + " x " +
                       std::to_string(a.a.block) + " blocks on this backend");
  if (a.a.rows == 0) return;
  impl_.vendor_spmv(a);
}

double CsrKernels::spmv_bytes(const CsrRef& a, Precision prec, std::size_t x_read, bool residual) {
  const double v = double(size_of(prec)), b = a.block, b2 = b * b;
  const double xs = x_read > 0 ? double(x_read) : double(a.vector_cols());
  const double ys = double(a.vector_rows()) * (residual ? 2 : 1);  // y written (b read)
  return double(a.nnz) * (b2 * v + 4) + double(a.rows + 1) * 4 + xs * v + ys * v;
}

}  // namespace poreflow
