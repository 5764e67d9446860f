#pragma once
// The fim family: the fully implicit oil-water scheme's cell kernels (core/physics/fim.h): the
// masses at the start of a step, and each cell's residual and Jacobian rows in the 2 x 2 block
// layout of core/linalg/stencil7.hpp. impes3d's grid arrays and parameters (core/kernels/impes3d.hpp).
#include <cstddef>

#include "core/kernels/backend.hpp"
#include "core/kernels/impes3d.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

// masses: mw, mo (extent values) of every cell at the state x (2 x extent: p, s); 0 where inactive.
struct FimMassesArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  const Buffer* prm = nullptr;
  std::size_t prm_values = 0;
  const Buffer* x = nullptr;
  Buffer *mw = nullptr, *mo = nullptr;

  // fim_masses(prm, E, x, pv0, mw, mo)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{prm}, static_cast<long>(grid.box.extent()), In<Real>{x}, In<Real>{grid.pv0}, Out<Real>{mw},
                      Out<Real>{mo});
  }
};

// assemble: for every cell of the box, its residual (res: 2 x extent) and its Jacobian rows (coef:
// 7 planes x 4 x extent) at the state x for a step of dt days from the masses mw_n, mo_n. Entries
// outside the box's cells are not written.
struct FimAssembleArgs {
  Precision prec = Precision::Double;
  Impes3DGrid grid;
  const Buffer* prm = nullptr;
  std::size_t prm_values = 0;
  double dt = 0;
  const Buffer *x = nullptr, *mw_n = nullptr, *mo_n = nullptr;
  Buffer *coef = nullptr, *res = nullptr;

  // fim_assemble(prm, b, cells, E, dt, x, mw_n, mo_n, tx, ty, tz, depth, pv0, coef, res)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{prm}, grid.box.view(), static_cast<long>(grid.box.cells()), static_cast<long>(grid.box.extent()),
                      Real{dt}, In<Real>{x}, In<Real>{mw_n}, In<Real>{mo_n}, In<Real>{grid.tx}, In<Real>{grid.ty},
                      In<Real>{grid.tz}, In<Real>{grid.depth}, In<Real>{grid.pv0}, Out<Real>{coef}, Out<Real>{res});
  }
};

class FimImpl {
 public:
  virtual ~FimImpl() = default;
  virtual void masses(const FimMassesArgs& a) = 0;
  virtual void assemble(const FimAssembleArgs& a) = 0;
};

class FimKernels {
 public:
  FimKernels(Backend& be, FimImpl& impl) : be_(be), impl_(impl) {}
  void masses(const FimMassesArgs& a);
  void assemble(const FimAssembleArgs& a);

 private:
  Backend& be_;
  FimImpl& impl_;
};

}  // namespace poreflow
