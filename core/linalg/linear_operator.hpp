#pragma once
// The linear-algebra layer's interfaces (docs/linalg.md). Solvers see only these: an operator
// (y = A x, r = b - A x), a preconditioner (z = M^-1 r), and device vectors (Field<T>) in the
// operator's layout. Nothing of a solve comes back to the host but the convergence state, read
// once per batch of iterations: the scalars of a Krylov recurrence live in a small device array
// (Scalars) and the kernels that use them take expressions of them (Coef).
#include <cstddef>
#include <string>

#include "core/kernels/field.hpp"

namespace poreflow::linalg {

// The control block a solve's kernels check (core/base/converge.h): once it says stop, every
// guarded launch returns at once, so a batch of iterations may run past the stop cheaply and the
// iterate is the one of the stop. nullptr: always run.
struct Guard {
  const Buffer* ctrl = nullptr;
};

// A scalar a kernel computes from the device scalars s (a solve's Scalars) when it runs:
//   c * s[num0] * s[num1] / (s[den0] * s[den1])        (a slot of -1 is left out)
// with the denominator's square root taken when sqrt_den; a zero denominator gives 0 (a breakdown,
// which the solve's check then reports). A Coef without slots is the constant c.
struct Coef {
  double c = 1;
  int num0 = -1, num1 = -1;
  int den0 = -1, den1 = -1;
  bool sqrt_den = false;

  static Coef constant(double c) { return Coef{c}; }
  static Coef slot(int s, double c = 1) { return Coef{c, s}; }
  static Coef ratio(int num, int den, double c = 1) { return Coef{c, num, -1, den}; }
  bool uses_scalars() const { return num0 >= 0 || num1 >= 0 || den0 >= 0 || den1 >= 0; }
};

// What the rows of an operator are: `cells` cells of `block` unknowns each, stored as
// block x (the vectors' length / block) values, a cell's unknowns adjacent. Vectors have entries
// that belong to no unknown (a box's halo, inactive cells): the operator keeps them 0 in its
// outputs and every vector of a solve holds 0 there.
template <class T>
class LinearOperator {
 public:
  virtual ~LinearOperator() = default;
  virtual Backend& backend() const = 0;
  virtual std::size_t size() const = 0;  // a vector's length
  virtual int block() const = 0;         // unknowns per cell (1 or 2)
  virtual void apply(const Field<T>& x, Field<T>& y, Guard g) const = 0;                       // y = A x
  virtual void residual(const Field<T>& b, const Field<T>& x, Field<T>& r, Guard g) const = 0;  // r = b - A x
  virtual std::string describe() const = 0;
  // a vector entry in the operator's own terms, for messages ("row 17"; a grid names its cell)
  virtual std::string describe_row(std::size_t row) const { return "row " + std::to_string(row); }
};

template <class T>
class Preconditioner {
 public:
  virtual ~Preconditioner() = default;
  // For the operator's current values; the first call sets up what depends on the pattern (an
  // ordering, a hierarchy), later calls with the same pattern refresh the values only.
  virtual void update(const LinearOperator<T>& A) = 0;
  // New values of the same pattern where a partial refresh is enough (a time step's matrix that
  // moved a little): AMG refreshes its finest level and keeps its coarse levels (Amg); the others
  // update whole.
  virtual void update_partly(const LinearOperator<T>& A) { update(A); }
  virtual void apply(const Field<T>& r, Field<T>& z, Guard g) const = 0;  // z = M^-1 r
  virtual std::string describe() const = 0;
};

}  // namespace poreflow::linalg
