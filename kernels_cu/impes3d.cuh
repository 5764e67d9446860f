#pragma once
// Launch wrappers of the impes3d family (kernels_cu/impes3d.cu; twin kernels_cl/impes3d.cl).
#include <cuda_runtime_api.h>

#include "core/kernels/impes3d.hpp"

namespace poreflow::cu {

// What the kernels take (by value): the grid's device pointers and the tables, in constant memory
// when `constant` (the wrappers copy prm there on the stream first), else read from prm.
template <class T>
struct ImpGrid {
  pf_box3 b;
  long E;
  const T *tx, *ty, *tz, *depth, *pv0;
  const T* prm;
  std::size_t prm_values;
  bool constant;
};

// Where the launch finds prm: `values` values, copied to constant memory when `constant`.
struct ImpTables {
  std::size_t values = 0;
  bool constant = false;
};

// The wrappers take the kernels' parameters as the OpenCL twins list them (the grid's first, then
// prm where the kernel reads it), then the launch's own: the tables' place, the shape, the stream.
template <class T>
void launch_imp_props(pf_box3 b, long E, const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0, const T* prm,
                      const T* p, const T* mw, const T* mo, T* props, ImpTables tables, const BoxShape& s, cudaStream_t st);
template <class T>
void launch_imp_assemble(pf_box3 b, long E, const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0, T dt,
                         const T* p, const T* props, T* coef, const BoxShape& s, cudaStream_t st);
template <class T>
void launch_imp_wells_prepare(pf_box3 b, long E, const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0,
                              const T* prm, long wells, const T* wp, const long* cidx, const T* cwi, const T* cdepth, T* comp,
                              const T* props, const T* p, T dt, T* coef, unsigned long long* words, ImpTables tables,
                              cudaStream_t st);
template <class T>
void launch_imp_wells_finish(long wells, const T* wp, const long* cidx, T* comp, const T* p, unsigned long long* words,
                             cudaStream_t st);
template <class T>
void launch_imp_wells_couple(pf_box3 b, long E, const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0, long wells,
                             const T* wp, const long* cidx, T* comp, const T* props, const T* p, const T* dp, T dt, T* coef,
                             cudaStream_t st);
template <class T>
void launch_imp_wells_apply(long E, long wells, const T* wp, const long* cidx, const T* comp, const T* props, T dt, T sign,
                            const T* x, T* y, const unsigned long long* guard, cudaStream_t st);
template <class T>
void launch_imp_update(pf_box3 b, long E, const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0, const T* prm,
                       T dt, const T* p_old, const T* p_new, const T* props, const T* mw_in, const T* mo_in, const int* ccell,
                       const T* comp, T* mw_out, T* mo_out, T* sw, unsigned long long* words, ImpTables tables,
                       const BoxShape& s, cudaStream_t st);

}  // namespace poreflow::cu
