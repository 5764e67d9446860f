#pragma once
// Launch wrappers of the amg family (kernels_cu/amg.cu; twin kernels_cl/amg.cl).
#include <cuda_runtime_api.h>

namespace poreflow::cu {

template <class T>
void launch_amg_p_values(long rows, const int* p_ptr, const int* diag_pos, const int* weak_ptr, const int* weak,
                         const int* src_ptr, const int* src, const int* own, T omega, const T* a, T* p, cudaStream_t st);
template <class T>
void launch_amg_galerkin(long rows, long c_values, const int* r_ptr, const int* r_col, const T* r_val, const int* a_ptr, const int* a_col,
                         const T* a_val, const int* p_ptr, const int* p_col, const T* p_val, const int* c_ptr,
                         const int* c_col, T* c_val, cudaStream_t st);
template <class T>
void launch_amg_smooth(long n, T alpha, T beta, const T* r, const T* dinv, T* d, T* x, const unsigned long long* guard,
                       int start, cudaStream_t st);
template <class T>
void launch_amg_tail(int levels, int w, const int* table, const int* ints, const T* vals, T* work, const T* b, T* x,
                     const unsigned long long* guard, cudaStream_t st);

}  // namespace poreflow::cu
