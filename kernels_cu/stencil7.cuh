#pragma once
// Launch wrappers of the stencil7 family (kernels_cu/stencil7.cu; twin kernels_cl/stencil7.cl). The
// leading parameters are Stencil7ApplyArgs / Stencil7InvertArgs::kernel_args() converted for T.
#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/base/box3.h"

namespace poreflow::cu {

// block: 1 or 2 unknowns per cell
template <class T>
void launch_s7_apply(const T* coef, const int* active, const T* x, const T* b, T* y, long extent, long sy, long sz,
                     const unsigned long long* guard, int block, cudaStream_t stream);

// one Chebyshev step of a scalar operator
template <class T>
void launch_s7_chebyshev(const T* coef, const int* active, const T* dinv, const T* b, const T* x, T* d, T* x_out, T* r,
                         T alpha, T beta, T start, long extent, long sy, long sz, const unsigned long long* guard,
                         cudaStream_t stream);

// The persistent grid of the inversion for `extent` entries, its partials (one word per block) and
// last-block counter (0 between launches).
struct S7InvertLaunch {
  unsigned grid = 1;
  unsigned long long* partials = nullptr;
  unsigned int* counter = nullptr;
};
unsigned s7_invert_grid(long extent, int sm_count);
constexpr unsigned kS7MaxGrid = 1024;

template <class T>
void launch_s7_invert(const T* coef, const int* active, T* dinv, long extent, unsigned long long* status, int block,
                      const S7InvertLaunch& l, cudaStream_t stream);

template <class T>
void launch_s7_from_sor(pf_box3 b, long cells, const T* rb, const T* scale, T* coef, T* rhs, long extent, cudaStream_t stream);

}  // namespace poreflow::cu
