#pragma once
// The laplace3d family: out = the 7-point Laplacian of in over a box (core/physics/laplace3d.h).
// The smallest 3D family, the test of the box machinery (views, box loops, launch shapes) and the
// model for the stencil families of impes3d and fluids3d.
#include "core/kernels/backend.hpp"
#include "core/kernels/box3.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

// For every interior cell of the boxes (the same cells, each in its own array), out = cx (w - 2c + e)
// + cy (s - 2c + n) + cz (b - 2c + t) of in. in's box needs a halo of at least 1, filled by the
// caller (halo3d); out's halo and everything outside out's box are not written. out and in are
// distinct buffers.
struct Laplace3DApplyArgs {
  Precision prec = Precision::Double;
  Box3 in_box;
  const Buffer* in = nullptr;
  Box3 out_box;
  Buffer* out = nullptr;
  double cx = 1, cy = 1, cz = 1;
  BoxShape shape;

  // lap7(in, in_box, out, out_box, cx, cy, cz) (core/kernels/kernel_args.hpp)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{in}, in_box.view(), Out<Real>{out}, out_box.view(), Real{cx}, Real{cy}, Real{cz});
  }
};

class Laplace3DImpl {
 public:
  virtual ~Laplace3DImpl() = default;
  virtual void apply(const Laplace3DApplyArgs& a) = 0;
};

class Laplace3DKernels {
 public:
  Laplace3DKernels(Backend& be, Laplace3DImpl& impl) : be_(be), impl_(impl) {}
  void apply(const Laplace3DApplyArgs& a);

 private:
  Backend& be_;
  Laplace3DImpl& impl_;
};

}  // namespace poreflow
