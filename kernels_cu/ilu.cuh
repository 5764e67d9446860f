#pragma once
// Launch wrappers of the ilu family (kernels_cu/ilu.cu; twin kernels_cl/ilu.cl). The leading
// parameters are those of the argument structs' descriptions (core/kernels/ilu.hpp); the block size
// (1 or 2, a template argument of the kernels) and which kernel follow.
#include <cuda_runtime_api.h>

#include "core/base/box3.h"

namespace poreflow::cu {

// IluStencilArgs::factor_args; colour 0: a launch over the extent, 1: over the black half-cells
template <class T>
void launch_ilu_s7_factor(const T* coef, const int* active, T* dinv, int* pivot, pf_box3 b, long E, int block, int colour,
                          cudaStream_t stream);

// IluStencilArgs::sweep_args; sweep 0: forward colour 0 (over the extent), 1: forward colour 1,
// 2: backward colour 0
template <class T>
void launch_ilu_s7_sweep(const T* coef, const int* active, const T* dinv, const T* r, T* z, T* sum,
                         const unsigned long long* guard, pf_box3 b, long E, int block, int sweep, cudaStream_t stream);

// IluCsrArgs::factor_args; lu null: DILU
template <class T>
void launch_ilu_csr_factor(const int* ptr, const int* col, const T* val, const int* order, const int* ent, const int* dpos,
                           T* lu, T* dinv, int* pivot, int first, int count, int colour, int block, cudaStream_t stream);

// IluCsrArgs::sweep_args; lower: the forward sweep, else the backward one
template <class T>
void launch_ilu_csr_sweep(const int* ptr, const int* col, const T* v, const int* order, const int* ent, const int* dpos,
                          const T* dinv, const T* r, T* z, T* sum, const unsigned long long* guard, int first, int count,
                          int block, bool lower, cudaStream_t stream);

}  // namespace poreflow::cu
