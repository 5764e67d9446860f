#pragma once
// Launch wrappers of the fim family (kernels_cu/fim.cu; twin kernels_cl/fim.cl).
#include <cuda_runtime_api.h>

#include "core/base/box3.h"

namespace poreflow::cu {

template <class T>
void launch_fim_masses(const T* prm, long E, const T* x, const T* pv0, T* mw, T* mo, cudaStream_t st);
template <class T>
void launch_fim_assemble(const T* prm, pf_box3 b, long cells, long E, T dt, const T* x, const T* mw_n, const T* mo_n, const T* tx,
                         const T* ty, const T* tz, const T* depth, const T* pv0, T* coef, T* res, cudaStream_t st);

}  // namespace poreflow::cu
