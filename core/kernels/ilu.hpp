#pragma once
// The ilu family: ILU(0) and DILU factorisations and their triangular solves in a multicolour
// order, so that each sweep is a sequence of colours whose rows are independent: one parallel
// launch a colour (core/physics/ilu.h has the arithmetic and the form M = (D + Lv) D^-1 (D + Uv)).
// core/linalg/ilu.hpp (Ilu0<T>) is the preconditioner written over these calls.
//
//   7-point stencil (core/linalg/stencil7.hpp's layout, blocks of 1 or 2): red-black by (i + j + k)
//   parity. Every neighbour has the other colour, so ILU(0) in that order keeps the pattern and is
//   DILU. Factor: colour 0 then colour 1 (2 launches). Apply: forward colour 0, forward colour 1,
//   backward colour 0 (3 launches; the backward sweep of colour 1 is the identity).
//
//   Block CSR (core/linalg/csr.hpp): a colouring of the matrix graph made on the host at setup
//   (IluCsrPlan: greedy in row order, the same on every backend); the rows stay where they are and
//   each launch takes the rows of one colour from the plan's order. Factor: C launches (ILU(0):
//   the factors lu in A's pattern and D^-1; DILU: D^-1 only). Apply: C forward and C - 1 backward.
//
// A factorisation reports its first bad pivot (zero, singular or not finite) in two int32 words
// (PF_ILU_NONE while none): reset_pivot before it, read_pivot once after it.
#include <cstddef>
#include <string>
#include <vector>

#include "core/kernels/backend.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

enum class IluVariant { Ilu0, Dilu };
const char* to_string(IluVariant v);

constexpr std::size_t kIluPivotBytes = 2 * sizeof(int);

// The 7-point stencil. coef: 7 planes x block^2 x E (E the box's extent), active: int32 x E (1 an
// unknown); dinv: block^2 x E (the factor, D^-1 at the active cells, 0 elsewhere); r, z: block x E.
//   factor(colour 0): a launch over the extent: dinv of the active red cells, 0 at every entry
//     that is no active cell; records a bad pivot (the cell's box index) in `pivot`.
//   factor(colour 1): one work-item per black half-cell: dinv of the active black cells.
//   lower(colour 0): over the extent: z = dinv r at the active red cells, 0 at every entry that is
//     no active cell (z is 0 off the unknowns, as every vector of a solve).
//   lower(colour 1): the active black cells, z = dinv (r - the red neighbours' terms).
//   upper: the active red cells, z -= dinv (the black neighbours' terms).
// The box's extent must be below 2^31 (indices go through int on the device). With a guard (a
// control block) the sweeps do nothing once it says stop.
struct IluStencilArgs {
  Precision prec = Precision::Double;
  Box3 box;
  int block = 1;
  const Buffer* coef = nullptr;
  const Buffer* active = nullptr;
  Buffer* dinv = nullptr;
  Buffer* pivot = nullptr;      // factor: kIluPivotBytes
  const Buffer* r = nullptr;    // sweeps
  Buffer* z = nullptr;          // sweeps
  // sweeps, optional: sum += the z this launch makes final (forward colour 1 and the backward
  // sweep; the forward colour 0 refuses it), so a caller's z += ILU r takes no launch of its own
  Buffer* sum = nullptr;
  const Buffer* guard = nullptr;

  long extent() const { return static_cast<long>(box.extent()); }
  // a factor kernel's parameters: coef, active, dinv, pivot, b, E (core/kernels/kernel_args.hpp)
  auto factor_args() const {
    using namespace karg;
    return std::tuple(In<Real>{coef}, In<int>{active}, Out<Real>{dinv}, Out<int>{pivot}, box.view(), extent());
  }
  // a sweep's: coef, active, dinv, r, z, sum, guard, b, E (the backward sweep does not read r)
  auto sweep_args() const {
    using namespace karg;
    return std::tuple(In<Real>{coef}, In<int>{active}, In<Real>{dinv}, In<Real>{r}, Out<Real>{z}, OptOut<Real>{sum},
                      Opt<pf_u64>{guard}, box.view(), extent());
  }
};

// Block CSR. A's pattern (ptr, col: int32) and values (val: nnz x block^2), the plan on the device
// (IluCsrPlan's order, ent, dpos: int32), the factors: lu (ILU(0): nnz x block^2, A's pattern; DILU:
// none) and dinv (rows x block^2). A launch takes the rows order[first, first + count), all of
// colour `colour`, whose earlier colours are factored (factor) or swept (lower, upper).
//   factor: ILU(0) writes those rows of lu and dinv, DILU their dinv; records a bad pivot (the row).
//   lower: z_i = dinv_i (r_i - sum V_ik z_k) over the entries before the diagonal.
//   upper: z_i -= dinv_i sum V_ij z_j over the entries after it.
// V is lu for ILU(0), A's values for DILU.
struct IluCsrArgs {
  Precision prec = Precision::Double;
  IluVariant variant = IluVariant::Ilu0;
  int block = 1;
  std::size_t rows = 0, nnz = 0;
  const Buffer* ptr = nullptr;
  const Buffer* col = nullptr;
  const Buffer* val = nullptr;
  const Buffer* order = nullptr;
  const Buffer* ent = nullptr;
  const Buffer* dpos = nullptr;
  Buffer* lu = nullptr;  // ILU(0) only
  Buffer* dinv = nullptr;
  Buffer* pivot = nullptr;    // factor: kIluPivotBytes
  const Buffer* r = nullptr;  // sweeps
  Buffer* z = nullptr;        // sweeps
  // sweeps, optional: sum += z of the launch's rows (give it where their z is final: the last
  // colour's forward launch and every backward one)
  Buffer* sum = nullptr;
  const Buffer* guard = nullptr;
  int first = 0, count = 0, colour = 0;  // the launch

  // a factor kernel's parameters: ptr, col, val, order, ent, dpos, lu (null for DILU), dinv, pivot,
  // first, count, colour
  auto factor_args() const {
    using namespace karg;
    return std::tuple(In<int>{ptr}, In<int>{col}, In<Real>{val}, In<int>{order}, In<int>{ent}, In<int>{dpos},
                      OptOut<Real>{variant == IluVariant::Ilu0 ? lu : nullptr}, Out<Real>{dinv}, Out<int>{pivot}, first,
                      count, colour);
  }
  // a sweep's: ptr, col, V, order, ent, dpos, dinv, r, z, sum, guard, first, count (upper: r unread)
  auto sweep_args() const {
    using namespace karg;
    const Buffer* v = variant == IluVariant::Ilu0 ? lu : val;
    return std::tuple(In<int>{ptr}, In<int>{col}, In<Real>{v}, In<int>{order}, In<int>{ent}, In<int>{dpos},
                      In<Real>{dinv}, In<Real>{r}, Out<Real>{z}, OptOut<Real>{sum}, Opt<pf_u64>{guard}, first, count);
  }
};

// The ordering of a block-CSR matrix, made once on the host from its pattern (the same on every
// backend and machine): colour[i] of each row, the rows by colour (order, colour c at
// order[colour_ptr[c], colour_ptr[c + 1]), increasing rows within a colour), and per row the
// positions of its entries in the order the kernels walk them (ent, in ptr's ranges: those before
// the diagonal in the colour order sorted by (colour, column), the diagonal at dpos[i], those after
// it by column).
struct IluCsrPlan {
  std::size_t rows = 0;
  int colours = 0;
  std::vector<int> colour, colour_ptr, order, ent, dpos;
  int colour_rows(int c) const { return colour_ptr[c + 1] - colour_ptr[c]; }
};

// A greedy colouring of the graph of the pattern made symmetric (rows i and j coupled when either
// (i, j) or (j, i) is an entry): row by row, the smallest colour none of its coupled rows already
// has. Deterministic; on a 7-point grid in natural order it is the (i + j + k) parity.
std::vector<int> ilu_greedy_colours(std::size_t rows, const std::vector<int>& ptr, const std::vector<int>& col);

// The plan of a square pattern (ptr, col: rows + 1 and nnz int32, columns increasing in a row) for
// a colouring (a colour per row, 0 ..; empty: ilu_greedy_colours). ConfigError naming the row when
// a row has no diagonal entry or two coupled rows share a colour.
IluCsrPlan make_ilu_csr_plan(std::size_t rows, const std::vector<int>& ptr, const std::vector<int>& col,
                             std::vector<int> colours = {});

// What read_pivot found: the first row with a bad pivot (the cell's box index for a stencil) and
// its colour, or -1 in both.
struct IluPivot {
  long row = -1;
  int colour = -1;
  bool bad() const { return row >= 0; }
};

class IluImpl {
 public:
  virtual ~IluImpl() = default;
  // arguments checked; colour 0 or 1
  virtual void s7_factor(const IluStencilArgs& a, int colour) = 0;
  virtual void s7_lower(const IluStencilArgs& a, int colour) = 0;
  virtual void s7_upper(const IluStencilArgs& a) = 0;
  // arguments checked; count > 0
  virtual void csr_factor(const IluCsrArgs& a) = 0;
  virtual void csr_lower(const IluCsrArgs& a) = 0;
  virtual void csr_upper(const IluCsrArgs& a) = 0;
};

class IluKernels {
 public:
  IluKernels(Backend& be, IluImpl& impl) : be_(be), impl_(impl) {}
  void s7_factor(const IluStencilArgs& a, int colour);
  void s7_lower(const IluStencilArgs& a, int colour);
  void s7_upper(const IluStencilArgs& a);
  void csr_factor(const IluCsrArgs& a);
  void csr_lower(const IluCsrArgs& a);
  void csr_upper(const IluCsrArgs& a);
  // the pivot words before a factorisation (an upload), and what it found (a download: waits)
  void reset_pivot(Buffer& pivot);
  IluPivot read_pivot(const Buffer& pivot);

 private:
  void check(const IluStencilArgs& a, bool factor) const;
  void check(const IluCsrArgs& a, bool factor) const;
  Backend& be_;
  IluImpl& impl_;
};

}  // namespace poreflow
