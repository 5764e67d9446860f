// The amg family (twin: kernels_cl/amg.cl): a thread per row (or point) around core/physics/amg.h.
#include <algorithm>

#include "core/base/converge.h"
#include "core/physics/amg.h"
#include "core/physics/amg_tail.h"
#include "kernels_cu/amg.cuh"

namespace poreflow::cu {
namespace {

constexpr unsigned kBlock = 256;
constexpr unsigned kTailBlock = 1024;  // the one block of tail_kernel (the OpenCL twin's work-group)

template <class T>
__global__ void p_values_kernel(long rows, const int* p_ptr, const int* diag_pos, const int* weak_ptr, const int* weak,
                                const int* src_ptr, const int* src, const int* own, T omega, const T* a, T* p) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < rows) phys::amg_p_row<T>(i, p_ptr, diag_pos, weak_ptr, weak, src_ptr, src, own, omega, a, p);
}

// a thread an entry of A_c (amg_galerkin_entry)
template <class T>
__global__ void galerkin_kernel(long rows, long c_values, const int* r_ptr, const int* r_col, const T* r_val, const int* a_ptr,
                                const int* a_col, const T* a_val, const int* p_ptr, const int* p_col, const T* p_val,
                                const int* c_ptr, const int* c_col, T* c_val) {
  const long c = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < c_values)
    phys::amg_galerkin_entry<T>(c, rows, r_ptr, r_col, r_val, a_ptr, a_col, a_val, p_ptr, p_col, p_val, c_ptr, c_col, c_val);
}

template <class T>
__global__ void smooth_kernel(long n, T alpha, T beta, const T* __restrict__ r, const T* __restrict__ dinv, T* __restrict__ d,
                              T* __restrict__ x, const unsigned long long* guard, int start) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) phys::amg_smooth_point<T>(i, alpha, beta, r, dinv, d, x, start);
}

// the levels' cycle in this one block (core/physics/amg_tail.h); the guard's word is the same for
// every thread, so all of them return or none
template <class T>
__global__ void __launch_bounds__(kTailBlock) tail_kernel(int levels, int w, const int* table, const int* ints, const T* vals,
                                                         T* work, const T* b, T* x, const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  phys::amg_tail_cycle<T>(static_cast<int>(threadIdx.x), static_cast<int>(blockDim.x), levels, w, table, ints, vals, work, b, x);
}

unsigned blocks_for(long n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

}  // namespace

template <class T>
void launch_amg_p_values(long rows, const int* p_ptr, const int* diag_pos, const int* weak_ptr, const int* weak,
                         const int* src_ptr, const int* src, const int* own, T omega, const T* a, T* p, cudaStream_t st) {
  p_values_kernel<T><<<blocks_for(rows), kBlock, 0, st>>>(rows, p_ptr, diag_pos, weak_ptr, weak, src_ptr, src, own, omega, a, p);
}

template <class T>
void launch_amg_galerkin(long rows, long c_values, const int* r_ptr, const int* r_col, const T* r_val, const int* a_ptr,
                         const int* a_col, const T* a_val, const int* p_ptr, const int* p_col, const T* p_val, const int* c_ptr,
                         const int* c_col, T* c_val, cudaStream_t st) {
  if (c_values == 0) return;  // no grid of zero blocks
  galerkin_kernel<T><<<blocks_for(c_values), kBlock, 0, st>>>(rows, c_values, r_ptr, r_col, r_val, a_ptr, a_col, a_val, p_ptr,
                                                              p_col, p_val, c_ptr, c_col, c_val);
}

template <class T>
void launch_amg_smooth(long n, T alpha, T beta, const T* r, const T* dinv, T* d, T* x, const unsigned long long* guard,
                       int start, cudaStream_t st) {
  smooth_kernel<T><<<blocks_for(n), kBlock, 0, st>>>(n, alpha, beta, r, dinv, d, x, guard, start);
}

template <class T>
void launch_amg_tail(int levels, int w, const int* table, const int* ints, const T* vals, T* work, const T* b, T* x,
                     const unsigned long long* guard, cudaStream_t st) {
  tail_kernel<T><<<1, kTailBlock, 0, st>>>(levels, w, table, ints, vals, work, b, x, guard);
}

#define PF_AMG_INSTANTIATE(T)                                                                                              \
  template void launch_amg_p_values<T>(long, const int*, const int*, const int*, const int*, const int*, const int*,        \
                                       const int*, T, const T*, T*, cudaStream_t);                                         \
  template void launch_amg_galerkin<T>(long, long, const int*, const int*, const T*, const int*, const int*, const T*, const int*, \
                                       const int*, const T*, const int*, const int*, T*, cudaStream_t);                    \
  template void launch_amg_smooth<T>(long, T, T, const T*, const T*, T*, T*, const unsigned long long*, int, cudaStream_t); \
  template void launch_amg_tail<T>(int, int, const int*, const int*, const T*, T*, const T*, T*, const unsigned long long*,  \
                                   cudaStream_t);
PF_AMG_INSTANTIATE(float)
PF_AMG_INSTANTIATE(double)

}  // namespace poreflow::cu
