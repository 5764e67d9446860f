#pragma once
// ILU(0) and DILU preconditioners in a multicolour order (docs/linalg.md, "Orderings"), for a
// 7-point stencil (red-black) or a block-CSR matrix (a greedy colouring of its graph made on the
// host at the first update), blocks of 1 or 2 unknowns. Every sweep is one launch a colour of the
// ilu family (core/kernels/ilu.hpp); the ordering is the same on every backend, so every backend
// computes the same preconditioner to rounding.
//
// The first update() with a matrix sets up (the colouring, the plan's arrays, the factors'
// storage) and factors; later updates with the same matrix refactor its current values on the
// device (a Newton iteration changes values, not the pattern). Another matrix sets up again. A zero,
// singular or non-finite pivot is a NumericalError naming the first such row (the cell (i, j, k)
// for a stencil); the preconditioner then cannot be applied until an update succeeds.
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/ilu.hpp"
#include "core/linalg/csr.hpp"
#include "core/linalg/linear_operator.hpp"
#include "core/linalg/stencil7.hpp"

namespace poreflow::linalg {

using poreflow::IluVariant;

struct IluOptions {
  IluVariant variant = IluVariant::Ilu0;
  // CSR only: the colour of each row (rows of one colour must not be coupled; the factorisation's
  // order is colour by colour). Empty: the greedy colouring (ilu_greedy_colours). One colour a row
  // in row order gives the sequential ILU(0) of the natural order, one launch a row: for tests.
  std::vector<int> colours;
};

template <class T>
class Ilu0 final : public Preconditioner<T> {
 public:
  explicit Ilu0(IluVariant v = IluVariant::Ilu0) { opts_.variant = v; }
  explicit Ilu0(IluOptions o) : opts_(std::move(o)) {}

  // A Stencil7Operator or a CsrOperator; any other operator is a ConfigError naming it.
  void update(const LinearOperator<T>& A) override;
  void update(const Stencil7Matrix<T>& m);
  void update(const CsrMatrix<T>& m);
  void apply(const Field<T>& r, Field<T>& z, Guard g) const override;
  // z = ILU r as apply, and sum += z in the same launches (each sweep that makes a row's z final
  // adds it): CPR's z += ILU (r - A z) without a launch of its own. sum is a field of its own.
  void apply_add(const Field<T>& r, Field<T>& z, Field<T>& sum, Guard g) const;
  std::string describe() const override;

  IluVariant variant() const { return opts_.variant; }
  int colours() const;             // 2 for a stencil; 0 before the first update
  int launches_per_apply() const;  // stencil 3; CSR 2 C - 1
  int launches_per_factor() const; // stencil 2; CSR C (and the pivot words: one upload, one read)
  // CSR: the plan of the first update (the colouring included); nullptr for a stencil
  const IluCsrPlan* plan() const { return csr_ ? &csr_->plan : nullptr; }
  // the factors, for tests: D^-1 (block^2 a cell or row) and, ILU(0) on CSR, lu (A's pattern)
  const Field<T>& dinv() const { return dinv_; }
  const Field<T>* lu() const { return csr_ && csr_->lu.size() ? &csr_->lu : nullptr; }

 private:
  struct Csr {
    IluCsrPlan plan;
    std::unique_ptr<Buffer> order, ent, dpos;
    Field<T> lu;
  };
  IluStencilArgs stencil_args() const;
  IluCsrArgs csr_args() const;
  void factor();
  void sweeps(const Field<T>& r, Field<T>& z, Field<T>* sum, Guard g) const;

  IluOptions opts_;
  const Stencil7Matrix<T>* s7_ = nullptr;
  const CsrMatrix<T>* m_ = nullptr;
  std::unique_ptr<Csr> csr_;
  Field<T> dinv_;
  std::unique_ptr<Buffer> pivot_;
  bool factored_ = false;
};

}  // namespace poreflow::linalg
