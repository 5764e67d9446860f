#pragma once
// The device scalars of a solve (docs/linalg.md): a small array in the solve's precision whose
// slots the dot products write and the update kernels read through Coefs, so that no scalar of a
// Krylov recurrence goes to the host during the solve.
#include <cstddef>
#include <vector>

#include "core/kernels/field.hpp"
#include "core/kernels/vec.hpp"
#include "core/linalg/linear_operator.hpp"

namespace poreflow::linalg {

template <class T>
class Scalars {
 public:
  Scalars(Backend& be, std::size_t count) : values_(be, count) { values_.fill(T(0)); }
  std::size_t size() const { return values_.size(); }
  Buffer& buffer() { return values_.buffer(); }
  const Buffer& buffer() const { return values_.buffer(); }
  std::vector<T> download() const { return values_.download(); }  // waits

 private:
  Field<T> values_;
};

// A Coef as the vec family's kernels take it.
inline VecCoef device_coef(const Coef& c) {
  VecCoef v;
  v.c = c.c;
  v.num0 = c.num0, v.num1 = c.num1, v.den0 = c.den0, v.den1 = c.den1;
  v.sqrt_den = c.sqrt_den;
  return v;
}

}  // namespace poreflow::linalg
