#include "core/linalg/stencil7.hpp"

#include <string>
#include <vector>

#include "core/base/error.hpp"

namespace poreflow::linalg {

template <class T>
Stencil7Matrix<T>::Stencil7Matrix(Backend& be, const Box3& b, int blk)
    : box(b), block(blk), coef(be, kStencilPlanes * static_cast<std::size_t>(blk * blk) * b.extent()) {
  if (blk != 1 && blk != 2) throw ConfigError("a 7-point operator has blocks of 1 or 2 unknowns, not " + std::to_string(blk));
  if (b.halo < 1) throw ConfigError("a 7-point operator's box needs a halo of at least 1 (" + b.describe() + ")");
  coef.fill(T(0));
  // every cell of the box an unknown until the owner says otherwise
  std::vector<int> a(b.extent(), 0);
  for (long k = 0; k < b.nz; ++k)
    for (long j = 0; j < b.ny; ++j)
      for (long i = 0; i < b.nx; ++i) a[static_cast<std::size_t>(b.at(i, j, k))] = 1;
  active = be.alloc(a.size() * sizeof(int));
  be.upload(*active, a.data(), a.size() * sizeof(int));
}

template struct Stencil7Matrix<float>;
template struct Stencil7Matrix<double>;

}  // namespace poreflow::linalg
