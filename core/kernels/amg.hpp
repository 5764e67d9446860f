#pragma once
// The amg family: the kernels that refresh an aggregation-AMG hierarchy's values on the device
// when only the values change (core/linalg/amg_setup.hpp sets up the patterns and plans on the
// host once), and the smoother's update. The arithmetic is core/physics/amg.h.
#include <cstddef>
#include <vector>

#include "core/kernels/backend.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

// p_values: the rows [0, rows) of the smoothed prolongator's values p from the level's matrix
// values a (AmgLevelPlan: p_ptr rows + 1 entries; diag_pos rows; weak_ptr rows + 1, weak; src_ptr
// P's entries + 1, src; own P's entries; all int32). Rows without entries are left alone.
struct AmgPValuesArgs {
  Precision prec = Precision::Double;
  std::size_t rows = 0;
  const Buffer *p_ptr = nullptr, *diag_pos = nullptr, *weak_ptr = nullptr, *weak = nullptr, *src_ptr = nullptr,
               *src = nullptr, *own = nullptr;
  double omega = 0;
  const Buffer* a = nullptr;
  Buffer* p = nullptr;
  std::size_t a_values = 0, p_values = 0;  // for the checks

  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(rows), In<int>{p_ptr}, In<int>{diag_pos}, In<int>{weak_ptr}, In<int>{weak},
                      In<int>{src_ptr}, In<int>{src}, In<int>{own}, Real{omega}, In<Real>{a}, Out<Real>{p});
  }
};

// galerkin: the values of A_c = R A P, coarse row by row ([0, rows)), in A_c's pattern (every
// product's column present in its row: the pattern came from the same triple loop).
struct AmgGalerkinArgs {
  Precision prec = Precision::Double;
  std::size_t rows = 0;
  const Buffer *r_ptr = nullptr, *r_col = nullptr, *r_val = nullptr;
  const Buffer *a_ptr = nullptr, *a_col = nullptr, *a_val = nullptr;
  const Buffer *p_ptr = nullptr, *p_col = nullptr, *p_val = nullptr;
  const Buffer *c_ptr = nullptr, *c_col = nullptr;
  Buffer* c_val = nullptr;
  std::size_t c_values = 0;  // A_c's entries: the GPUs' work-items (amg_galerkin_entry), and the checks

  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(rows), static_cast<long>(c_values), In<int>{r_ptr}, In<int>{r_col}, In<Real>{r_val}, In<int>{a_ptr},
                      In<int>{a_col}, In<Real>{a_val}, In<int>{p_ptr}, In<int>{p_col}, In<Real>{p_val}, In<int>{c_ptr},
                      In<int>{c_col}, Out<Real>{c_val});
  }
};

// smooth: for i < n, d = alpha d + beta dinv r, x += d (a step of Chebyshev's recurrence; alpha = 0
// starts it, or is a damped Jacobi step); start: d and x taken as 0 and not read (d = beta dinv r,
// x = d: a cycle's first step, 16 bytes a point in float against a fill's 4 and 24). Nothing once the
// guard says stop.
struct AmgSmoothArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  double alpha = 0, beta = 1;
  const Buffer *r = nullptr, *dinv = nullptr;
  Buffer *d = nullptr, *x = nullptr;
  const Buffer* guard = nullptr;
  int start = 0;

  auto kernel_args() const {
    using namespace karg;
    return std::tuple(static_cast<long>(n), Real{alpha}, Real{beta}, In<Real>{r}, In<Real>{dinv}, Out<Real>{d}, Out<Real>{x},
                      Opt<pf_u64>{guard}, start);
  }
};

// tail_cycle: AMG's levels from one down to the coarsest in a single launch of one work-group
// (core/physics/amg_tail.h has the cycle and the packing: table, levels x PF_AMG_TAIL_FIELDS int32
// offsets into ints (int32), vals and work (precision prec)); the first level's right-hand side b
// and iterate x (first_rows values) are apart. w: a W-cycle. The sizes are for the checks; every
// offset in the table must lie inside its array. Nothing once the guard says stop.
struct AmgTailArgs {
  Precision prec = Precision::Double;
  int levels = 0, w = 0;
  const Buffer *table = nullptr, *ints = nullptr, *vals = nullptr;
  Buffer* work = nullptr;
  const Buffer* b = nullptr;
  Buffer* x = nullptr;
  const Buffer* guard = nullptr;
  std::size_t ints_n = 0, vals_n = 0, work_n = 0, first_rows = 0;

  auto kernel_args() const {
    using namespace karg;
    return std::tuple(levels, w, In<int>{table}, In<int>{ints}, In<Real>{vals}, Out<Real>{work}, In<Real>{b}, Out<Real>{x},
                      Opt<pf_u64>{guard});
  }
};

class AmgImpl {
 public:
  virtual ~AmgImpl() = default;
  virtual void p_values(const AmgPValuesArgs& a) = 0;
  virtual void galerkin(const AmgGalerkinArgs& a) = 0;
  virtual void smooth(const AmgSmoothArgs& a) = 0;
  virtual void tail_cycle(const AmgTailArgs& a) = 0;
};

class AmgKernels {
 public:
  AmgKernels(Backend& be, AmgImpl& impl) : be_(be), impl_(impl) {}
  void p_values(const AmgPValuesArgs& a);
  void galerkin(const AmgGalerkinArgs& a);
  void smooth(const AmgSmoothArgs& a);
  // Checks the table against the sizes (the host's copy of it, which the caller uploaded to a.table).
  void tail_cycle(const AmgTailArgs& a, const std::vector<int>& table);

 private:
  Backend& be_;
  AmgImpl& impl_;
};

}  // namespace poreflow
