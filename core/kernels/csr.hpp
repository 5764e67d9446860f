#pragma once
// The csr family: products and diagonals of block-CSR matrices (core/linalg/csr.hpp holds the
// format and the operator over these kernels; docs/linalg.md, "The csr family").
//
//   ptr: rows + 1 int32, col: nnz int32 (increasing in a row), val: nnz x block^2 values, block
//   (r, c) of entry k at k * block^2 + r * block + c; vectors hold block values per row, a row's
//   unknowns adjacent. Blocks of 1 or 2.
//
// A row without entries is the row of no unknown (a halo or inactive cell of a stencil's layout):
// its products are 0, it has no diagonal to invert and is not singular.
//
// The block size selects a specialised kernel, as the precision does; it is no kernel parameter.
// On the GPU backends a row is summed by one work-item or by a group of `lanes` work-items of one
// warp (sub-group); csr_lanes says which (by the mean row length, measured: docs/linalg.md).
#include <cstddef>
#include <string>

#include "core/kernels/backend.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

// A block-CSR matrix in device buffers. The pattern's consistency (ptr increasing from 0 to nnz,
// columns inside [0, cols)) is checked on the host where it is built (linalg::CsrPattern::check);
// the kernels trust it.
struct CsrRef {
  std::size_t rows = 0, cols = 0, nnz = 0;  // block rows, block columns, stored blocks
  int block = 1;
  const Buffer* ptr = nullptr;  // int32, rows + 1
  const Buffer* col = nullptr;  // int32, nnz (at least one int even when nnz is 0)
  const Buffer* val = nullptr;  // nnz * block^2 values of the call's precision
  std::size_t vector_rows() const { return rows * static_cast<std::size_t>(block); }
  std::size_t vector_cols() const { return cols * static_cast<std::size_t>(block); }
};

// The rule of the GPU backends: lanes summing one row (1: a row per work-item). `requested` 0 asks
// for the rule, a power of two in [1, 32] forces it. gpu false (an OpenCL CPU device): 1, since a
// work-item there is a loop iteration and lanes only add local-memory reductions.
int csr_lanes(const CsrRef& a, int requested, bool gpu);
constexpr int kCsrMaxLanes = 32;

// spmv: y = alpha A x + beta z, z = y unless given. y (and z) have vector_rows values, x
// vector_cols; x and y are distinct. beta == 0 reads neither (y may hold NaN). Nothing once the
// guard says stop.
struct CsrSpmvArgs {
  Precision prec = Precision::Double;
  CsrRef a;
  double alpha = 1, beta = 0;
  const Buffer* x = nullptr;
  Buffer* y = nullptr;
  const Buffer* guard = nullptr;  // a control block (core/base/converge.h); null: always run
  int lanes = 0;                  // GPU backends: 0 the rule of csr_lanes, else forced
  const Buffer* z = nullptr;      // the addend beta scales; null: y itself (a prolongation into another vector)

  const Buffer* addend() const { return beta == 0 ? nullptr : z ? z : y; }

  // csr_spmv(rows, ptr, col, val, x, alpha, beta, z, y, guard) (core/kernels/kernel_args.hpp):
  // y = alpha A x + beta z, z null when beta is 0 (never read)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(a.rows), In<int>{a.ptr}, In<int>{a.col}, In<Real>{a.val}, In<Real>{x},
                      Real{alpha}, Real{beta}, Opt<Real>{addend()}, Out<Real>{y}, Opt<pf_u64>{guard});
  }
};

// residual: r = b - A x, the same kernel as spmv with alpha -1, beta 1 and b in the place of y's
// old value. r is distinct from b and x.
struct CsrResidualArgs {
  Precision prec = Precision::Double;
  CsrRef a;
  const Buffer* b = nullptr;
  const Buffer* x = nullptr;
  Buffer* r = nullptr;
  const Buffer* guard = nullptr;
  int lanes = 0;

  // csr_spmv(rows, ptr, col, val, x, -1, 1, b, r, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(a.rows), In<int>{a.ptr}, In<int>{a.col}, In<Real>{a.val}, In<Real>{x},
                      Real{-1.0}, Real{1.0}, Opt<Real>{b}, Out<Real>{r}, Opt<pf_u64>{guard});
  }
};

// chebyshev: one step of a Chebyshev (or Jacobi) smoother of a square scalar matrix (block 1;
// AMG's coarse levels, core/linalg/amg.cpp) in one pass: for each row i
//   r = b_i - (A x)_i,  d_i = alpha d_i + beta dinv_i r  (core/physics/amg.h),  x_out_i = x_i + d_i.
// A residual and the smoother's update take two launches and write r and read it back; this one
// takes one. A row without entries gets d_i = alpha d_i + beta dinv_i b_i (dinv_i is 0 there:
// diag_inv). x_out may not be x (the step reads x's other entries) nor any other input.
// start != 0: x is not read (it may be null); the step starts from x = start D^-1 b and d = x (the
// smoother's first step from zero, core/physics/amg.h, amg_smooth_point, taken in the same pass).
// With start and r: the step stops at the residual, r = b - A x, and writes d = x_out = x.
struct CsrChebyshevArgs {
  Precision prec = Precision::Double;
  CsrRef a;
  const Buffer* dinv = nullptr;
  const Buffer* b = nullptr;
  const Buffer* x = nullptr;
  Buffer* d = nullptr;
  Buffer* x_out = nullptr;
  double alpha = 0, beta = 1;
  const Buffer* guard = nullptr;
  int lanes = 0;  // GPU backends: 0 the rule of csr_lanes, else forced
  double start = 0;     // not 0: the first step from zero, x = start D^-1 b (above)
  Buffer* r = nullptr;  // with start: the residual of that x, and no update

  // csr_chebyshev(rows, ptr, col, val, x, b, dinv, d, x_out, r, alpha, beta, start, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(a.rows), In<int>{a.ptr}, In<int>{a.col}, In<Real>{a.val}, Opt<Real>{start != 0 ? nullptr : x},
                      In<Real>{b}, In<Real>{dinv}, Out<Real>{d}, Out<Real>{x_out}, OptOut<Real>{r}, Real{alpha}, Real{beta},
                      Real{start}, Opt<pf_u64>{guard});
  }
};

// diag_inv: dinv (rows x block^2 values, block (r, c) of row i at i * block^2 + r * block + c) =
// the inverse of each row's diagonal block; 0 for a row without entries. A row with entries whose
// diagonal block is missing, zero (scalar), of zero determinant (2 x 2) or gives a non-finite
// inverse is singular: its dinv holds what the division gave, and `bad` (one int32) records the
// first such row. CsrKernels::diag_inv zeroes `bad` before the launch; singular_row reads it (once
// per setup, a host round trip).
struct CsrDiagInvArgs {
  Precision prec = Precision::Double;
  CsrRef a;
  Buffer* dinv = nullptr;
  Buffer* bad = nullptr;  // int32: 0 none, else ~row (a max over the singular rows keeps the first)
  const Buffer* guard = nullptr;

  // csr_diag_inv(rows, ptr, col, val, dinv, bad, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(a.rows), In<int>{a.ptr}, In<int>{a.col}, In<Real>{a.val}, Out<Real>{dinv},
                      Out<int>{bad}, Opt<pf_u64>{guard});
  }
};

// dinv_bound: out (vector_rows values) = the row sums of |D^-1 A|: scalar, |dinv_i| sum_j |a_ij|;
// 2 x 2, for unknown (i, r) sum_j sum_c |(D_i^-1 A_ij)_rc|. Their max bounds the spectral radius
// of D^-1 A (Gershgorin): AMG's Chebyshev and Jacobi smoothers take it (reduced by the reduce
// family). dinv is diag_inv's output; rows without entries give 0.
struct CsrDinvBoundArgs {
  Precision prec = Precision::Double;
  CsrRef a;
  const Buffer* dinv = nullptr;
  Buffer* out = nullptr;
  const Buffer* guard = nullptr;

  // csr_dinv_bound(rows, ptr, val, dinv, out, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(a.rows), In<int>{a.ptr}, In<Real>{a.val}, In<Real>{dinv}, Out<Real>{out},
                      Opt<pf_u64>{guard});
  }
};

// gather: val[k * block^2 + e] = src[map[k] * block^2 + e] for k < nnz, e < block^2: a matrix's
// values from another array of blocks (a 7-point stencil's coefficients through
// linalg::stencil7_to_csr_map, a Galerkin product's terms). map: nnz int64 entries, each the index
// of a block of src, which holds src_blocks blocks.
struct CsrGatherArgs {
  Precision prec = Precision::Double;
  std::size_t nnz = 0;
  int block = 1;
  const Buffer* map = nullptr;  // int64, nnz
  const Buffer* src = nullptr;
  std::size_t src_blocks = 0;
  Buffer* val = nullptr;  // nnz * block^2 values
  const Buffer* guard = nullptr;

  // csr_gather(nnz, map, src, val, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(nnz), In<long>{map}, In<Real>{src}, Out<Real>{val}, Opt<pf_u64>{guard});
  }
};

class CsrImpl {
 public:
  virtual ~CsrImpl() = default;
  // arguments checked, rows > 0 (gather: nnz > 0)
  virtual void spmv(const CsrSpmvArgs& a) = 0;
  virtual void residual(const CsrResidualArgs& a) = 0;
  virtual void chebyshev(const CsrChebyshevArgs& a) = 0;
  virtual void diag_inv(const CsrDiagInvArgs& a) = 0;
  virtual void dinv_bound(const CsrDinvBoundArgs& a) = 0;
  virtual void gather(const CsrGatherArgs& a) = 0;
  // the lanes a launch of a uses (1 on the host backends)
  virtual int lanes(const CsrRef& a, int requested) const;

  // A vendor library's y = A x (beta 0) of the same buffers (the bench's comparison); empty name:
  // none for that block size.
  virtual std::string vendor_name(int block) const;
  virtual void vendor_spmv(const CsrSpmvArgs& a);
};

class CsrKernels {
 public:
  CsrKernels(Backend& be, CsrImpl& impl) : be_(be), impl_(impl) {}
  void spmv(const CsrSpmvArgs& a);
  void residual(const CsrResidualArgs& a);
  void chebyshev(const CsrChebyshevArgs& a);
  // zeroes a.bad, then launches (no wait)
  void diag_inv(const CsrDiagInvArgs& a);
  // waits and reads the word diag_inv wrote: the first singular row, or -1
  long singular_row(const Buffer& bad);
  // NumericalError naming `what` and the first singular row, if there is one (waits)
  void check_diagonal(const Buffer& bad, const char* what);
  void dinv_bound(const CsrDinvBoundArgs& a);
  void gather(const CsrGatherArgs& a);
  int lanes(const CsrRef& a, int requested = 0) const;
  std::string vendor_name(int block) const { return impl_.vendor_name(block); }
  void vendor_spmv(const CsrSpmvArgs& a);

  // the minimal bytes one spmv (beta 0) or residual must move: the values, the column indices and
  // row pointers once, x once (x_read values: the columns that occur, by default all of them), y
  // (and b) once
  static double spmv_bytes(const CsrRef& a, Precision prec, std::size_t x_read = 0, bool residual = false);

 private:
  void check_matrix(const CsrRef& a, Precision prec, const char* what) const;
  Backend& be_;
  CsrImpl& impl_;
};

}  // namespace poreflow
