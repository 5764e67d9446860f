// The cpr family (twin: kernels_cl/cpr.cl): a thread per cell or entry around core/physics/cpr.h.
#include "core/base/converge.h"
#include "core/physics/cpr.h"
#include "kernels_cu/cpr.cuh"

namespace poreflow::cu {
namespace {

constexpr unsigned kBlock = 256;

template <class T>
__global__ void weights_kernel(long cells, const int* diag_pos, const T* diag, T* w) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < cells) phys::cpr_weights_point<T>(i, diag_pos ? diag_pos[i] : i, diag, w);
}

template <class T>
__global__ void pressure_kernel(long entries, long extent, const int* rows, const T* w, const T* a, T* ap) {
  const long k = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k < entries) phys::cpr_pressure_entry<T>(k, rows ? rows[k] : k % extent, w, a, ap);
}

template <class T>
__global__ void restrict_kernel(long cells, const T* w, const T* r, T* rp, const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < cells) phys::cpr_restrict_point<T>(i, w, r, rp);
}

template <class T>
__global__ void prolong_kernel(long cells, const T* xp, T* z, const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < cells) phys::cpr_prolong_point<T>(i, xp, z);
}

unsigned blocks_for(long n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

}  // namespace

template <class T>
void launch_cpr_weights(long cells, const int* diag_pos, const T* diag, T* w, cudaStream_t st) {
  weights_kernel<T><<<blocks_for(cells), kBlock, 0, st>>>(cells, diag_pos, diag, w);
}

template <class T>
void launch_cpr_pressure(long entries, long extent, const int* rows, const T* w, const T* a, T* ap, cudaStream_t st) {
  pressure_kernel<T><<<blocks_for(entries), kBlock, 0, st>>>(entries, extent, rows, w, a, ap);
}

template <class T>
void launch_cpr_restrict(long cells, const T* w, const T* r, T* rp, const unsigned long long* guard, cudaStream_t st) {
  restrict_kernel<T><<<blocks_for(cells), kBlock, 0, st>>>(cells, w, r, rp, guard);
}

template <class T>
void launch_cpr_prolong(long cells, const T* xp, T* z, const unsigned long long* guard, cudaStream_t st) {
  prolong_kernel<T><<<blocks_for(cells), kBlock, 0, st>>>(cells, xp, z, guard);
}

#define PF_CPR_INSTANTIATE(T)                                                                          \
  template void launch_cpr_weights<T>(long, const int*, const T*, T*, cudaStream_t);                  \
  template void launch_cpr_pressure<T>(long, long, const int*, const T*, const T*, T*, cudaStream_t); \
  template void launch_cpr_restrict<T>(long, const T*, const T*, T*, const unsigned long long*, cudaStream_t); \
  template void launch_cpr_prolong<T>(long, const T*, T*, const unsigned long long*, cudaStream_t);
PF_CPR_INSTANTIATE(float)
PF_CPR_INSTANTIATE(double)

}  // namespace poreflow::cu
