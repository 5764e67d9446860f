#pragma once
// The kernel families, named once. X(Type, name) is the family `name`: its interfaces are
// Type##Impl (what a backend implements) and Type##Kernels (the checked calls), declared in
// core/kernels/name.hpp; Backend::name() is its accessor. The Backend's accessors, the FamilySet
// every backend fills, make_families and each backend's make_family declarations all follow from
// this list (backend.hpp, family_set.hpp, backends/*/families.hpp). Adding a family is one line
// here plus the family's own files (docs/architecture.md, "The recipe for a new family").
#define PF_FAMILIES(X)                                                                           \
  X(Blas, blas)           /* vector updates: axpy */                                             \
  X(Reduce, reduce)       /* sum, min, max, max|a|, max|a - b| */                                \
  X(Control, control)     /* the device-side convergence control */                             \
  X(Jacobi1D, jacobi1d)   /* paper 000's fused Jacobi iteration */                               \
  X(Bl1d, bl1d)           /* Buckley-Leverett point kernels */                                   \
  X(Tridiag, tridiag)     /* batched tridiagonal solves */                                       \
  X(Adi2D, adi2d)         /* the 2D three-phase stencils */                                      \
  X(Halo3D, halo3d)       /* halo layers of 3D boxes */                                          \
  X(Laplace3D, laplace3d) /* the 7-point Laplacian on a box */                                   \
  X(Impes3D, impes3d)     /* black-oil IMPES cells and wells */                                  \
  X(Sor3D, sor3d)         /* red-black SOR with its residual */                                  \
  X(Fluids3D, fluids3d)   /* paper 001's stable-fluids kernels */                                \
  X(Ilu, ilu)             /* ILU(0) and DILU in a multicolour order */                            \
  X(Amg, amg)             /* aggregation AMG: refresh of the hierarchy's values, the smoother */  \
  X(Vec, vec)             /* Krylov vectors: dots, updates with device scalars, the check */      \
  X(Stencil7, stencil7)   /* the 7-point operator: apply, residual, inverse diagonal */           \
  X(Csr, csr)             /* block-CSR products and diagonals */                                 \
  X(Cpr, cpr)             /* CPR's pressure stage for 2 x 2 blocks: weights, matrix, transfers */ \
  X(Fim, fim)             /* the fully implicit oil-water scheme's cells: masses, residual, Jacobian */
