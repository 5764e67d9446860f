#pragma once
// The stencil7 family: the kernels of a 7-point operator on a box (core/linalg/stencil7.hpp's
// layout: 7 planes of block^2 x extent coefficients, scalar or 2 x 2 blocks, an int32 `active` mask
// per entry of the box's arrays). The kernels run over every entry of the arrays (extent of them),
// not only the box's cells: entries that are no unknown (the halo, inactive cells, anything of a
// larger array outside the box) get 0 in every output, so the vectors of a solve hold 0 there
// without a pass of their own.
#include <cstddef>

#include "core/kernels/backend.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/kernel_args.hpp"
#include "core/physics/stencil7.h"

namespace poreflow {

// y = A x, or y = b - A x when b is given (the residual). For an active entry L:
//   (A x)_L = sum_q C_qL x_(L + offset_q)   (q = 0 the diagonal; a block times a cell's 2 values)
// A neighbour is read whatever its mask (its coefficient is 0 when it is no unknown), so the box's
// halo must be at least 1. y may not be x or b.
struct Stencil7ApplyArgs {
  Precision prec = Precision::Double;
  Box3 box;
  int block = 1;
  const Buffer* coef = nullptr;
  const Buffer* active = nullptr;
  const Buffer* x = nullptr;
  const Buffer* b = nullptr;  // optional: the residual
  Buffer* y = nullptr;
  const Buffer* guard = nullptr;

  // s7_apply(coef, active, x, b, y, extent, sy, sz, guard) (core/kernels/kernel_args.hpp)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{coef}, In<int>{active}, In<Real>{x}, Opt<Real>{b}, Out<Real>{y}, long(box.extent()), box.sy,
                      box.sz, Opt<pf_u64>{guard});
  }
};

// One step of a Chebyshev smoother of a scalar operator (block 1; AMG's finest level,
// core/linalg/amg.cpp) in one pass: for an active entry L
//   r = b_L - (A x)_L,  d_L = alpha d_L + beta dinv_L r  (core/physics/amg.h),  x_out_L = x_L + d_L
// and d_L = x_out_L = 0 elsewhere. A residual and the smoother's update take two passes: in float
// 44 + 24 bytes an entry against this one's 56 (no r written and read back, x read once).
// x_out may not be x (the step reads x's neighbours) nor any other input.
// start != 0: x is not read (it may be null); the step starts from x = start D^-1 b and d = x (the
// smoother's first step from zero, core/physics/amg.h, amg_smooth_point, taken in the same pass;
// an operator whose neighbours lie on another process exchanges x, not b: there it cannot).
// With start and r: the step stops at the residual, r = b - A x (0 off the active entries), and
// writes d = x_out = x.
struct Stencil7ChebyshevArgs {
  Precision prec = Precision::Double;
  Box3 box;
  const Buffer* coef = nullptr;
  const Buffer* active = nullptr;
  const Buffer* dinv = nullptr;
  const Buffer* b = nullptr;
  const Buffer* x = nullptr;
  Buffer* d = nullptr;
  Buffer* x_out = nullptr;
  double alpha = 0, beta = 1;
  const Buffer* guard = nullptr;
  double start = 0;     // not 0: the first step from zero, x = start D^-1 b (above)
  Buffer* r = nullptr;  // with start: the residual of that x, and no update

  // s7_chebyshev(coef, active, dinv, b, x, d, x_out, r, alpha, beta, start, extent, sy, sz, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{coef}, In<int>{active}, In<Real>{dinv}, In<Real>{b}, Opt<Real>{start != 0 ? nullptr : x},
                      Out<Real>{d}, Out<Real>{x_out}, OptOut<Real>{r}, Real{alpha}, Real{beta}, Real{start},
                      long(box.extent()), box.sy, box.sz, Opt<pf_u64>{guard});
  }
};

// dinv = the inverse of each active entry's diagonal (block 1: 1 / C_0L) or diagonal block (block
// 2: the 2 x 2 inverse, row-major at 4 L), 0 elsewhere; status (one 64-bit word) = the code of the
// first active entry (lowest L) whose diagonal has no inverse, PF_S7_NONE when there is none
// (core/physics/stencil7.h: (L * 2 + unknown) * 2 + kind).
struct Stencil7InvertArgs {
  Precision prec = Precision::Double;
  Box3 box;
  int block = 1;
  const Buffer* coef = nullptr;
  const Buffer* active = nullptr;
  Buffer* dinv = nullptr;
  Buffer* status = nullptr;

  // s7_invert(coef, active, dinv, extent, status)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{coef}, In<int>{active}, Out<Real>{dinv}, long(box.extent()), Out<pf_u64>{status});
  }
};

// from_sor: a scalar operator's planes and right-hand side b (extent values each plane) for the
// cells of the box from sor3d's colour-packed coefficients `rb` (core/physics/stencil7_sor.h),
// each row times scale[L] where scale is given and positive. Entries outside the box's cells are
// not written (a Stencil7Matrix holds 0 there from its construction; b must too).
struct Stencil7FromSorArgs {
  Precision prec = Precision::Double;
  Box3 box;
  const Buffer* rb = nullptr;
  const Buffer* scale = nullptr;  // extent values, or null
  Buffer* coef = nullptr;
  Buffer* b = nullptr;

  // s7_from_sor(box, cells, rb, scale, coef, b, extent)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(box.view(), static_cast<long>(box.cells()), In<Real>{rb}, Opt<Real>{scale}, Out<Real>{coef}, Out<Real>{b},
                      long(box.extent()));
  }
};

class Stencil7Impl {
 public:
  virtual ~Stencil7Impl() = default;
  virtual void apply(const Stencil7ApplyArgs& a) = 0;    // arguments checked
  virtual void chebyshev(const Stencil7ChebyshevArgs& a) = 0;  // arguments checked
  virtual void invert(const Stencil7InvertArgs& a) = 0;  // arguments checked; status may start anywhere
  virtual void from_sor(const Stencil7FromSorArgs& a) = 0;
};

class Stencil7Kernels {
 public:
  Stencil7Kernels(Backend& be, Stencil7Impl& impl) : be_(be), impl_(impl) {}
  void apply(const Stencil7ApplyArgs& a);
  void chebyshev(const Stencil7ChebyshevArgs& a);
  // enqueues the inversion and waits for the status word: -1, or its code (PF_S7_*)
  long invert(const Stencil7InvertArgs& a);
  void from_sor(const Stencil7FromSorArgs& a);

 private:
  Backend& be_;
  Stencil7Impl& impl_;
};

}  // namespace poreflow
