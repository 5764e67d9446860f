#pragma once
// The vec family: the vector kernels of the Krylov solvers (core/linalg, docs/linalg.md). Their
// scalars stay on the device, in a solve's array of scalars `s` (values of the launch's
// precision): dot products write slots of it, updates take expressions of it (VecCoef) that each
// kernel evaluates when it runs, and the one-work-item kernels (check, gmres_column, gmres_solve)
// decide and do the small dense work there, so nothing goes to the host during a solve.
//
// Every kernel takes an optional control block `guard` (core/base/converge.h): once it says stop,
// the kernel does nothing. Dot products are deterministic: each work-group's partial sums are
// combined in a fixed order by the last group to finish (no floating-point atomics), so a launch
// gives the same bits run after run on a backend; the host backends sum fixed chunks of
// kVecChunk values in double, the same with any thread count. Vectors hold n values of the launch's
// precision; the outputs of the element-wise kernels may not be any of their inputs.
#include <cstddef>
#include <string>

#include "core/kernels/backend.hpp"
#include "core/kernels/kernel_args.hpp"
#include "core/physics/vec.h"

namespace poreflow {

// The host backends' chunk of a dot product (its sum runs in double, the chunks' sums in order).
constexpr std::size_t kVecChunk = 4096;

// A scalar computed on the device when a kernel runs (linalg::Coef at the kernel layer):
//   c * s[num0] * s[num1] / (s[den0] * s[den1])     (a slot of -1 is left out)
// with the square root of the denominator when sqrt_den; a zero denominator gives 0. A constant 0
// leaves its term out: that term's vector is not read.
struct VecCoef {
  double c = 1;
  int num0 = -1, num1 = -1, den0 = -1, den1 = -1;
  bool sqrt_den = false;

  static VecCoef constant(double c) { return VecCoef{c}; }
  bool uses_scalars() const { return num0 >= 0 || num1 >= 0 || den0 >= 0 || den1 >= 0; }
  bool is_zero() const { return !uses_scalars() && c == 0; }
  // the slots as the kernels take them (PF_COEF_* of core/physics/vec.h); slots checked first
  long packed() const;
};
// up to four slots (-1: none) packed as a VecCoef's: the check's breakdown slots
long pack_slots(int a, int b = -1, int c = -1, int d = -1);

// s[slot1] = x1 . y1, and s[slot2] = x2 . y2 when x2 is given (CG's r.z and r.r, BiCGSTAB's t.s and
// t.t in one pass).
struct VecDotArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  const Buffer *x1 = nullptr, *y1 = nullptr;
  int slot1 = -1;
  const Buffer *x2 = nullptr, *y2 = nullptr;
  int slot2 = -1;
  Buffer* s = nullptr;
  const Buffer* guard = nullptr;

  // vec_dot(n, x1, y1, x2, y2, s, slot1, slot2, guard) (core/kernels/kernel_args.hpp)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(n, In<Real>{x1}, In<Real>{y1}, Opt<Real>{x2}, Opt<Real>{y2}, Out<Real>{s}, slot1, slot2,
                      Opt<pf_u64>{guard});
  }
};

// s[slot + q] = V_q . w for q < count, V_q the n values at v[v_at + q * ldv] (a basis stored as one
// buffer): Gram-Schmidt's coefficients in one pass over w.
struct VecMultiDotArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  const Buffer* v = nullptr;
  std::size_t v_at = 0, ldv = 0;
  int count = 0;
  const Buffer* w = nullptr;
  Buffer* s = nullptr;
  int slot = -1;
  const Buffer* guard = nullptr;

  // vec_multi_dot(n, v, v_at, ldv, count, w, s, slot, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(n, In<Real>{v}, v_at, ldv, count, In<Real>{w}, Out<Real>{s}, slot, Opt<pf_u64>{guard});
  }
};

// y = a x + b y
struct VecAxpbyArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  VecCoef a, b;
  const Buffer* x = nullptr;
  Buffer* y = nullptr;
  const Buffer* s = nullptr;  // the scalars the coefficients read (may be null when they read none)
  const Buffer* guard = nullptr;

  // vec_axpby(n, a, a_slots, x, b, b_slots, y, s, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(n, Real{a.c}, a.packed(), In<Real>{x}, Real{b.c}, b.packed(), Out<Real>{y}, Opt<Real>{s},
                      Opt<pf_u64>{guard});
  }
};

// z = a x + b y + c z (BiCGSTAB's p = r + beta p - beta omega v)
struct VecAxpbypczArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  VecCoef a, b, c;
  const Buffer *x = nullptr, *y = nullptr;
  Buffer* z = nullptr;
  const Buffer* s = nullptr;
  const Buffer* guard = nullptr;

  // vec_axpbypcz(n, a, a_slots, x, b, b_slots, y, c, c_slots, z, s, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(n, Real{a.c}, a.packed(), In<Real>{x}, Real{b.c}, b.packed(), In<Real>{y}, Real{c.c}, c.packed(),
                      Out<Real>{z}, Opt<Real>{s}, Opt<pf_u64>{guard});
  }
};

// y1 = a1 x1 + b1 y1 and y2 = a2 x2 + b2 y2 in one pass (CG's x += alpha p, r -= alpha q), then, where
// their slots are >= 0, s[slot_wy] = w . y2 and s[slot_yy] = y2 . y2 of the new y2 (BiCGSTAB's next
// rho and ||r||^2). The dot slots may not be slots the coefficients read.
struct VecUpdate2Args {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  VecCoef a1, b1;
  const Buffer* x1 = nullptr;
  Buffer* y1 = nullptr;
  VecCoef a2, b2;
  const Buffer* x2 = nullptr;
  Buffer* y2 = nullptr;
  const Buffer* w = nullptr;  // needed for slot_wy
  int slot_wy = -1, slot_yy = -1;
  Buffer* s = nullptr;
  const Buffer* guard = nullptr;
  bool dots() const { return slot_wy >= 0 || slot_yy >= 0; }

  // vec_update2(n, a1, a1_slots, x1, b1, b1_slots, y1, a2, a2_slots, x2, b2, b2_slots, y2, w, s, slot_wy,
  // slot_yy, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(n, Real{a1.c}, a1.packed(), In<Real>{x1}, Real{b1.c}, b1.packed(), Out<Real>{y1}, Real{a2.c},
                      a2.packed(), In<Real>{x2}, Real{b2.c}, b2.packed(), Out<Real>{y2}, Opt<Real>{w}, OptOut<Real>{s},
                      slot_wy, slot_yy, Opt<pf_u64>{guard});
  }
};

// y += c * sum_{q < k} s[slot + q] V_q with V_q as in VecMultiDotArgs and k = count, or
// min(count, s[count_slot]) when count_slot >= 0 (FGMRES's x update, whose count the restart's solve
// leaves on the device); then s[norm_slot] = y . y when norm_slot >= 0 (the new Hessenberg entry).
struct VecMultiAxpyArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  const Buffer* v = nullptr;
  std::size_t v_at = 0, ldv = 0;
  int count = 0, count_slot = -1;
  double c = 1;
  int slot = -1;
  Buffer* y = nullptr;
  Buffer* s = nullptr;
  int norm_slot = -1;
  const Buffer* guard = nullptr;

  // vec_multi_axpy(n, v, v_at, ldv, count, count_slot, c, slot, y, s, norm_slot, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(n, In<Real>{v}, v_at, ldv, count, count_slot, Real{c}, slot, Out<Real>{y}, Out<Real>{s}, norm_slot,
                      Opt<pf_u64>{guard});
  }
};

// FGMRES's store of a new basis vector: basis[v_at + i] = a w[i] and v[i] = a w[i] (the vector the
// preconditioner reads next; v may be null), and basis[z_at + i] = z[i] when z is given (the
// preconditioned vector the update needs). basis is the one buffer of V and Z.
struct VecStoreArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  VecCoef a;
  const Buffer* w = nullptr;
  Buffer* basis = nullptr;
  std::size_t v_at = 0;
  Buffer* v = nullptr;
  const Buffer* z = nullptr;
  std::size_t z_at = 0;
  const Buffer* s = nullptr;
  const Buffer* guard = nullptr;

  // vec_store(n, a, a_slots, w, basis, v_at, v, z, z_at, s, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(n, Real{a.c}, a.packed(), In<Real>{w}, Out<Real>{basis}, v_at, OptOut<Real>{v}, Opt<Real>{z}, z_at,
                      Opt<Real>{s}, Opt<pf_u64>{guard});
  }
};

// Point or block Jacobi: z = d .* r (block 1), or z_c = D_c r_c for each of `cells` cells with D_c
// the 2 x 2 block at d[4 c] (row-major; block 2).
struct VecDiagArgs {
  Precision prec = Precision::Double;
  std::size_t cells = 0;
  int block = 1;
  const Buffer *d = nullptr, *r = nullptr;
  Buffer* z = nullptr;
  const Buffer* guard = nullptr;

  // vec_diag1 / vec_diag2(cells, d, r, z, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(cells, In<Real>{d}, In<Real>{r}, Out<Real>{z}, Opt<pf_u64>{guard});
  }
};

// y[i] = x[map[i]] for i < n (AMG refreshes a level's values through such maps); map is int32 and
// every entry must index x (x_size values), which the kernel does not check.
struct VecGatherArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0, x_size = 0;
  const Buffer* map = nullptr;
  const Buffer* x = nullptr;
  Buffer* y = nullptr;
  const Buffer* guard = nullptr;

  // vec_gather(n, map, x, y, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(n, In<int>{map}, In<Real>{x}, Out<Real>{y}, Opt<pf_u64>{guard});
  }
};

// y = x in the other precision: to_float, x in the launch's precision and y float (the right-hand
// side of a float preconditioner under a double solve, linalg::FloatPreconditioner); otherwise x
// float and y in the launch's precision (its result). Rounds to nearest; a double beyond float's
// range becomes an infinity.
struct VecConvertArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  bool to_float = true;
  const Buffer* x = nullptr;
  Buffer* y = nullptr;
  const Buffer* guard = nullptr;

  // vec_narrow(n, x, y, guard) / vec_widen(n, x, y, guard)
  auto narrow_args() const {
    using namespace karg;
    return std::tuple(n, In<Real>{x}, Out<float>{y}, Opt<pf_u64>{guard});
  }
  auto widen_args() const {
    using namespace karg;
    return std::tuple(n, In<float>{x}, Out<Real>{y}, Opt<pf_u64>{guard});
  }
};

// The check of iteration `it` of CG or BiCGSTAB, on one work-item (pf_kr_check): the relative
// residual sqrt(s[rr] / s[ref]) into hist[it] (hist holds max_it + 1 values), then the stop of the
// control block ctrl: converged (squared <= tol^2), non-finite, a breakdown (a slot of `breakdown`,
// pack_slots, holding 0), it >= max_it. Nothing once the block says stop. it = -1: the iteration
// after the block's last check (a recorded iteration's launches do not change with its number).
struct VecCheckArgs {
  Precision prec = Precision::Double;
  Buffer* ctrl = nullptr;
  const Buffer* s = nullptr;
  Buffer* hist = nullptr;
  long it = 0;
  int rr = -1, ref = -1;
  long breakdown = 0;
  double tol = 0;
  long max_it = 0;

  // vec_check(ctrl, s, hist, it, rr, ref, breakdown, tol2, max_it)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(Out<pf_u64>{ctrl}, In<Real>{s}, Out<Real>{hist}, it, rr, ref, breakdown, Real{tol * tol}, max_it);
  }
};

// FGMRES, one work-item each (core/physics/vec.h): the slots from `base` for restart length m
// (pf_gm_slots(m) of them). column: column j of the cycle at iteration `it` (pf_gm_column): the
// rotations, the estimate |g[j+1]| / sqrt(s[ref]) into hist[it] and the stop of ctrl, as the check.
struct VecGmresColumnArgs {
  Precision prec = Precision::Double;
  Buffer* ctrl = nullptr;
  Buffer* s = nullptr;
  Buffer* hist = nullptr;
  long it = 0;
  int j = 0, m = 0, base = 0, ref = -1;
  bool two_pass = true;  // h = h1 + h2 (classical Gram-Schmidt twice)
  double tol = 0;
  long max_it = 0;

  // vec_gmres_column(ctrl, s, hist, it, j, m, base, ref, two_pass, tol2, max_it)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(Out<pf_u64>{ctrl}, Out<Real>{s}, Out<Real>{hist}, it, j, m, base, ref, int(two_pass), Real{tol * tol},
                      max_it);
  }
};

// solve: the restart's triangular solve (pf_gm_solve). FGMRES passes no guard: the cycle that
// stopped still updates its iterate.
struct VecGmresSolveArgs {
  Precision prec = Precision::Double;
  Buffer* s = nullptr;
  int m = 0, base = 0;
  const Buffer* guard = nullptr;

  // vec_gmres_solve(s, m, base, guard)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(Out<Real>{s}, m, base, Opt<pf_u64>{guard});
  }
};

// word = the first i < n whose x[i] is NaN or infinite, all ones when there is none (the row a solve
// names for a NaN in its right-hand side).
struct VecFirstNonfiniteArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  const Buffer* x = nullptr;
  Buffer* word = nullptr;  // one 64-bit word

  // vec_first_nonfinite(n, x, word)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(n, In<Real>{x}, Out<pf_u64>{word});
  }
};

class VecImpl {
 public:
  virtual ~VecImpl() = default;
  // arguments checked; the element-wise kernels are not called with n == 0
  virtual void dot(const VecDotArgs& a) = 0;
  virtual void multi_dot(const VecMultiDotArgs& a) = 0;
  virtual void axpby(const VecAxpbyArgs& a) = 0;
  virtual void axpbypcz(const VecAxpbypczArgs& a) = 0;
  virtual void update2(const VecUpdate2Args& a) = 0;
  virtual void multi_axpy(const VecMultiAxpyArgs& a) = 0;
  virtual void store(const VecStoreArgs& a) = 0;
  virtual void diag(const VecDiagArgs& a) = 0;
  virtual void gather(const VecGatherArgs& a) = 0;
  virtual void convert(const VecConvertArgs& a) = 0;
  virtual void check(const VecCheckArgs& a) = 0;
  virtual void gmres_column(const VecGmresColumnArgs& a) = 0;
  virtual void gmres_solve(const VecGmresSolveArgs& a) = 0;
  virtual void first_nonfinite(const VecFirstNonfiniteArgs& a) = 0;
  // A vendor library's dot product s[slot1] = x1 . y1 (one pair, no guard), the bandwidth anchor
  // of the bench (CUB's DeviceReduce on cuda). Empty name: none on this backend.
  virtual std::string vendor_name() const { return ""; }
  virtual void vendor_dot(const VecDotArgs& a);
};

class VecKernels {
 public:
  VecKernels(Backend& be, VecImpl& impl) : be_(be), impl_(impl) {}
  void dot(const VecDotArgs& a);
  void multi_dot(const VecMultiDotArgs& a);
  void axpby(const VecAxpbyArgs& a);
  void axpbypcz(const VecAxpbypczArgs& a);
  void update2(const VecUpdate2Args& a);
  void multi_axpy(const VecMultiAxpyArgs& a);
  void store(const VecStoreArgs& a);
  void diag(const VecDiagArgs& a);
  void gather(const VecGatherArgs& a);
  void convert(const VecConvertArgs& a);
  void check(const VecCheckArgs& a);
  void gmres_column(const VecGmresColumnArgs& a);
  void gmres_solve(const VecGmresSolveArgs& a);
  // waits and returns the first non-finite index, or -1 (word: one 64-bit word of scratch)
  long first_nonfinite(const VecFirstNonfiniteArgs& a);
  // the vendor's dot (VecImpl::vendor_dot); a BackendError where there is none, or for a second
  // pair or a guard
  std::string vendor_name() const { return impl_.vendor_name(); }
  void vendor_dot(const VecDotArgs& a);

 private:
  Backend& be_;
  VecImpl& impl_;
};

}  // namespace poreflow
