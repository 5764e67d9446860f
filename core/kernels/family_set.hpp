#pragma once
// What every backend owns: one implementation per kernel family. make_families(ctx) asks the
// backend for each of them through make_family(ctx, FamilyTag<FImpl>{}), overloads that each
// backend declares next to its context (backends/cuda/families.hpp, backends/opencl/families.hpp,
// core/reference/families.hpp): a backend that lacks one does not compile. FamilyBackend
// implements Backend's family accessors from the set.
#include <memory>

#include "core/backend.hpp"
#include "core/kernels/adi2d.hpp"
#include "core/kernels/bl1d.hpp"
#include "core/kernels/blas.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/fluids3d.hpp"
#include "core/kernels/halo3d.hpp"
#include "core/kernels/jacobi1d.hpp"
#include "core/kernels/laplace3d.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/impes3d.hpp"
#include "core/kernels/sor3d.hpp"
#include "core/kernels/tridiag.hpp"

namespace poreflow {

template <class Impl>
struct FamilyTag {};

struct FamilySet {
  std::unique_ptr<BlasImpl> blas;
  std::unique_ptr<ReduceImpl> reduce;
  std::unique_ptr<ControlImpl> control;
  std::unique_ptr<Jacobi1DImpl> jacobi1d;
  std::unique_ptr<Bl1dImpl> bl1d;
  std::unique_ptr<TridiagImpl> tridiag;
  std::unique_ptr<Adi2DImpl> adi2d;
  std::unique_ptr<Halo3DImpl> halo3d;
  std::unique_ptr<Laplace3DImpl> laplace3d;
  std::unique_ptr<Impes3DImpl> impes3d;
  std::unique_ptr<Sor3DImpl> sor3d;
  std::unique_ptr<Fluids3DImpl> fluids3d;
};

template <class Ctx>
FamilySet make_families(Ctx& ctx) {
  FamilySet s;
  s.blas = make_family(ctx, FamilyTag<BlasImpl>{});
  s.reduce = make_family(ctx, FamilyTag<ReduceImpl>{});
  s.control = make_family(ctx, FamilyTag<ControlImpl>{});
  s.jacobi1d = make_family(ctx, FamilyTag<Jacobi1DImpl>{});
  s.bl1d = make_family(ctx, FamilyTag<Bl1dImpl>{});
  s.tridiag = make_family(ctx, FamilyTag<TridiagImpl>{});
  s.adi2d = make_family(ctx, FamilyTag<Adi2DImpl>{});
  s.halo3d = make_family(ctx, FamilyTag<Halo3DImpl>{});
  s.laplace3d = make_family(ctx, FamilyTag<Laplace3DImpl>{});
  s.impes3d = make_family(ctx, FamilyTag<Impes3DImpl>{});
  s.sor3d = make_family(ctx, FamilyTag<Sor3DImpl>{});
  s.fluids3d = make_family(ctx, FamilyTag<Fluids3DImpl>{});
  return s;
}

// A backend whose families are a FamilySet, kept by the derived class (declared after what the
// families use, a device context, so that it goes first) and handed in by reference.
class FamilyBackend : public Backend {
 protected:
  explicit FamilyBackend(FamilySet& set) : set_(set) {}
  BlasImpl& blas_impl() override { return *set_.blas; }
  ReduceImpl& reduce_impl() override { return *set_.reduce; }
  ControlImpl& control_impl() override { return *set_.control; }
  Jacobi1DImpl& jacobi1d_impl() override { return *set_.jacobi1d; }
  Bl1dImpl& bl1d_impl() override { return *set_.bl1d; }
  TridiagImpl& tridiag_impl() override { return *set_.tridiag; }
  Adi2DImpl& adi2d_impl() override { return *set_.adi2d; }
  Halo3DImpl& halo3d_impl() override { return *set_.halo3d; }
  Laplace3DImpl& laplace3d_impl() override { return *set_.laplace3d; }
  Impes3DImpl& impes3d_impl() override { return *set_.impes3d; }
  Sor3DImpl& sor3d_impl() override { return *set_.sor3d; }
  Fluids3DImpl& fluids3d_impl() override { return *set_.fluids3d; }

 private:
  FamilySet& set_;
};

}  // namespace poreflow
