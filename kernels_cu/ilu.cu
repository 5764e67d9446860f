// The ilu family (twin: kernels_cl/ilu.cl): one thread per row (cell) of a colour around the row
// functions of core/physics/ilu.h, the block size a template argument.
#include "core/base/converge.h"
#include "core/physics/ilu.h"
#include "kernels_cu/ilu.cuh"

namespace poreflow::cu {
namespace {

constexpr unsigned kBlock = 256;

unsigned blocks_for(long n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

__device__ long thread_index() { return static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; }

// a bad pivot: the smallest row of the first colour that has one (core/physics/ilu.h); the colour
// word is written only by this launch or by earlier ones
__device__ void record_pivot(int* piv, long row, int colour) {
  if (*static_cast<volatile int*>(piv + 1) >= colour) {
    atomicMin(piv, static_cast<int>(row));
    piv[1] = colour;
  }
}

__device__ bool stopped(const unsigned long long* guard) { return guard && !phys::pf_cv_running(guard); }

template <class T, int B>
__global__ void s7_factor0_kernel(const T* __restrict__ coef, const int* __restrict__ active, T* __restrict__ dinv,
                                  int* pivot, pf_box3 b, long E) {
  const long L = thread_index();
  if (L < E && !phys::pf_ilu_s7_factor0<T>(B, coef, active, dinv, b, L)) record_pivot(pivot, L, 0);
}

template <class T, int B>
__global__ void s7_factor1_kernel(const T* __restrict__ coef, const int* __restrict__ active, T* dinv, int* pivot,
                                  pf_box3 b, long E) {
  long i, j, k;
  const long t = thread_index();
  if (t >= phys::pf_rb_m(b) || !phys::pf_ilu_s7_rb_cell(b, 1, t, &i, &j, &k)) return;
  if (!phys::pf_ilu_s7_factor1<T>(B, coef, active, dinv, b, E, i, j, k)) record_pivot(pivot, phys::pf_box_at(b, i, j, k), 1);
}

template <class T, int B>
__global__ void s7_sweep_kernel(const T* __restrict__ coef, const int* __restrict__ active, const T* __restrict__ dinv,
                                const T* __restrict__ r, T* z, T* sum, const unsigned long long* guard, pf_box3 b,
                                long E, int sweep) {
  if (stopped(guard)) return;
  const long t = thread_index();
  if (sweep == 0) {
    if (t < E) phys::pf_ilu_s7_lower0<T>(B, active, dinv, r, z, b, t);
    return;
  }
  long i, j, k;
  const int c = sweep == 1 ? 1 : 0;
  if (t >= phys::pf_rb_m(b) || !phys::pf_ilu_s7_rb_cell(b, c, t, &i, &j, &k)) return;
  if (sweep == 1) phys::pf_ilu_s7_lower1<T>(B, coef, active, dinv, r, z, sum, b, E, i, j, k);
  else phys::pf_ilu_s7_upper0<T>(B, coef, active, dinv, z, sum, b, E, i, j, k);
}

template <class T, int B>
__global__ void csr_factor_kernel(const int* __restrict__ ptr, const int* __restrict__ col, const T* __restrict__ val,
                                  const int* __restrict__ order, const int* __restrict__ ent, const int* __restrict__ dpos,
                                  T* lu, T* dinv, int* pivot, int first, int count, int colour) {
  const long t = thread_index();
  if (t >= count) return;
  const int i = order[first + t];
  const int ok = lu ? phys::pf_ilu_csr_factor_ilu0<T>(B, ptr, col, val, ent, dpos, lu, dinv, i)
                    : phys::pf_ilu_csr_factor_dilu<T>(B, ptr, col, val, ent, dpos, dinv, i);
  if (!ok) record_pivot(pivot, i, colour);
}

template <class T, int B>
__global__ void csr_sweep_kernel(const int* __restrict__ ptr, const int* __restrict__ col, const T* __restrict__ v,
                                 const int* __restrict__ order, const int* __restrict__ ent, const int* __restrict__ dpos,
                                 const T* __restrict__ dinv, const T* __restrict__ r, T* z, T* sum,
                                 const unsigned long long* guard, int first, int count, bool lower) {
  if (stopped(guard)) return;
  const long t = thread_index();
  if (t >= count) return;
  const int i = order[first + t];
  if (lower) phys::pf_ilu_csr_lower<T>(B, ptr, col, v, ent, dpos, dinv, r, z, sum, i);
  else phys::pf_ilu_csr_upper<T>(B, ptr, col, v, ent, dpos, dinv, z, sum, i);
}

}  // namespace

template <class T>
void launch_ilu_s7_factor(const T* coef, const int* active, T* dinv, int* pivot, pf_box3 b, long E, int block, int colour,
                          cudaStream_t stream) {
  const long n = colour == 0 ? E : phys::pf_rb_m(b);
  if (n <= 0) return;
  if (colour == 0) {
    if (block == 1) s7_factor0_kernel<T, 1><<<blocks_for(n), kBlock, 0, stream>>>(coef, active, dinv, pivot, b, E);
    else s7_factor0_kernel<T, 2><<<blocks_for(n), kBlock, 0, stream>>>(coef, active, dinv, pivot, b, E);
  } else {
    if (block == 1) s7_factor1_kernel<T, 1><<<blocks_for(n), kBlock, 0, stream>>>(coef, active, dinv, pivot, b, E);
    else s7_factor1_kernel<T, 2><<<blocks_for(n), kBlock, 0, stream>>>(coef, active, dinv, pivot, b, E);
  }
}

template <class T>
void launch_ilu_s7_sweep(const T* coef, const int* active, const T* dinv, const T* r, T* z, T* sum,
                         const unsigned long long* guard, pf_box3 b, long E, int block, int sweep, cudaStream_t stream) {
  const long n = sweep == 0 ? E : phys::pf_rb_m(b);
  if (n <= 0) return;
  if (block == 1) s7_sweep_kernel<T, 1><<<blocks_for(n), kBlock, 0, stream>>>(coef, active, dinv, r, z, sum, guard, b, E, sweep);
  else s7_sweep_kernel<T, 2><<<blocks_for(n), kBlock, 0, stream>>>(coef, active, dinv, r, z, sum, guard, b, E, sweep);
}

template <class T>
void launch_ilu_csr_factor(const int* ptr, const int* col, const T* val, const int* order, const int* ent, const int* dpos,
                           T* lu, T* dinv, int* pivot, int first, int count, int colour, int block, cudaStream_t stream) {
  if (count <= 0) return;
  if (block == 1)
    csr_factor_kernel<T, 1><<<blocks_for(count), kBlock, 0, stream>>>(ptr, col, val, order, ent, dpos, lu, dinv, pivot, first,
                                                                       count, colour);
  else
    csr_factor_kernel<T, 2><<<blocks_for(count), kBlock, 0, stream>>>(ptr, col, val, order, ent, dpos, lu, dinv, pivot, first,
                                                                       count, colour);
}

template <class T>
void launch_ilu_csr_sweep(const int* ptr, const int* col, const T* v, const int* order, const int* ent, const int* dpos,
                          const T* dinv, const T* r, T* z, T* sum, const unsigned long long* guard, int first, int count,
                          int block, bool lower, cudaStream_t stream) {
  if (count <= 0) return;
  if (block == 1)
    csr_sweep_kernel<T, 1><<<blocks_for(count), kBlock, 0, stream>>>(ptr, col, v, order, ent, dpos, dinv, r, z, sum, guard,
                                                                      first, count, lower);
  else
    csr_sweep_kernel<T, 2><<<blocks_for(count), kBlock, 0, stream>>>(ptr, col, v, order, ent, dpos, dinv, r, z, sum, guard,
                                                                      first, count, lower);
}

#define PF_ILU_INSTANTIATE(T)                                                                                             \
  template void launch_ilu_s7_factor<T>(const T*, const int*, T*, int*, pf_box3, long, int, int, cudaStream_t);          \
  template void launch_ilu_s7_sweep<T>(const T*, const int*, const T*, const T*, T*, T*, const unsigned long long*,     \
                                       pf_box3, long, int, int, cudaStream_t);                                           \
  template void launch_ilu_csr_factor<T>(const int*, const int*, const T*, const int*, const int*, const int*, T*, T*,   \
                                         int*, int, int, int, int, cudaStream_t);                                        \
  template void launch_ilu_csr_sweep<T>(const int*, const int*, const T*, const int*, const int*, const int*, const T*,  \
                                        const T*, T*, T*, const unsigned long long*, int, int, int, bool, cudaStream_t);
PF_ILU_INSTANTIATE(float)
PF_ILU_INSTANTIATE(double)
#undef PF_ILU_INSTANTIATE

}  // namespace poreflow::cu
