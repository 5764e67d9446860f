#pragma once
// Launch wrappers of the cpr family (kernels_cu/cpr.cu; twin kernels_cl/cpr.cl).
#include <cuda_runtime_api.h>

namespace poreflow::cu {

template <class T>
void launch_cpr_weights(long cells, const int* diag_pos, const T* diag, T* w, cudaStream_t st);
template <class T>
void launch_cpr_pressure(long entries, long extent, const int* rows, const T* w, const T* a, T* ap, cudaStream_t st);
template <class T>
void launch_cpr_restrict(long cells, const T* w, const T* r, T* rp, const unsigned long long* guard, cudaStream_t st);
template <class T>
void launch_cpr_prolong(long cells, const T* xp, T* z, const unsigned long long* guard, cudaStream_t st);

}  // namespace poreflow::cu
