#pragma once
// Launch wrappers of the fim family (kernels_cu/fim.cu; twin kernels_cl/fim.cl). Their parameters
// are those of core/kernels/fim.hpp's kernel_args(), then the stream.
#include <cuda_runtime_api.h>

#include "core/base/box3.h"

namespace poreflow::cu {

template <class T>
void launch_fim_masses(const T* prm, long E, const T* x, const T* pv0, T* mw, T* mo, cudaStream_t st);
template <class T>
void launch_fim_assemble(const T* prm, pf_box3 b, long cells, long E, T dt, const T* x, const T* mw_n, const T* mo_n, const T* tx,
                         const T* ty, const T* tz, const T* depth, const T* pv0, const T* wp, const T* ws, const int* ccell,
                         const int* cwell, const T* cwi, T* cq, T* coef, T* res, T* cnv, T* mbw, T* mbo, T cnv_tol, T* viol,
                         cudaStream_t st);
template <class T>
void launch_fim_well_start(const T* prm, long nw, const T* wp, T* ws, const long* cidx, const T* cwi, const T* cdepth, const T* x,
                           const T* pv0, T* cq, cudaStream_t st);
template <class T>
void launch_fim_well_equation(long nw, const T* wp, T* ws, const long* cidx, T* cq, T dt, T* coef, T* res, cudaStream_t st);
template <class T>
void launch_fim_schur(long nw, const T* wp, const T* ws, const long* cidx, const T* cq, T dt, T alpha, const T* v, T* y,
                      const unsigned long long* guard, cudaStream_t st);
template <class T>
void launch_fim_update_wells(long nw, const T* wp, T* ws, const long* cidx, const T* cq, const T* dx, T dbhp_max, cudaStream_t st);
template <class T>
void launch_fim_update_cells(long E, const T* pv0, const T* dx, T* x, T dp_max, T ds_max, cudaStream_t st);
template <class T>
void launch_fim_unpack(long E, const T* pv0, const T* x, T* p, T* sw, T* dp, T* ds, cudaStream_t st);
template <class T>
void launch_fim_pack(long E, const T* pv0, const T* p, const T* sw, T* x, cudaStream_t st);

}  // namespace poreflow::cu
