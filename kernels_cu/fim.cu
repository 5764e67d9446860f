// The fim family (twin: kernels_cl/fim.cl): a thread per cell or per well around core/physics/fim.h.
#include "core/base/converge.h"
#include "core/physics/fim.h"
#include "kernels_cu/fim.cuh"

namespace poreflow::cu {
namespace {

constexpr unsigned kBlock = 128;

__device__ long thread_index() { return static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; }

template <class T>
__global__ void masses_kernel(const T* prm, long E, const T* x, const T* pv0, T* mw, T* mo) {
  const long L = thread_index();
  if (L < E) phys::fim_masses_cell<T>(prm, L, x, pv0, mw, mo);
}

template <class T>
__global__ void assemble_kernel(const T* prm, pf_box3 b, long cells, long E, T dt, const T* x, const T* mw_n, const T* mo_n,
                                const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0, const T* wp, const T* ws,
                                const int* ccell, const int* cwell, const T* cwi, T* cq, T* coef, T* res, T* cnv, T* mbw, T* mbo,
                                T cnv_tol, T* viol) {
  const long c = thread_index();
  if (c >= cells) return;
  const long i = c % b.nx, j = (c / b.nx) % b.ny, k = c / (b.nx * b.ny);
  phys::fim_assemble_cell<T>(prm, b, i, j, k, E, dt, x, mw_n, mo_n, tx, ty, tz, depth, pv0, wp, ws, ccell, cwell, cwi, cq, coef,
                             res, cnv, mbw, mbo, cnv_tol, viol);
}

template <class T>
__global__ void well_start_kernel(const T* prm, long nw, const T* wp, T* ws, const long* cidx, const T* cwi, const T* cdepth,
                                  const T* x, const T* pv0, T* cq) {
  const long w = thread_index();
  if (w < nw) phys::fim_well_start<T>(prm, w, wp, ws, cidx, cwi, cdepth, x, pv0, cq);
}

template <class T>
__global__ void well_equation_kernel(long nw, const T* wp, T* ws, const long* cidx, T* cq, T dt, T* coef, T* res) {
  const long w = thread_index();
  if (w < nw) phys::fim_well_equation<T>(w, wp, ws, cidx, cq, dt, coef, res);
}

template <class T>
__global__ void schur_kernel(long nw, const T* wp, const T* ws, const long* cidx, const T* cq, T dt, T alpha, const T* v, T* y,
                             const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const long w = thread_index();
  if (w < nw) phys::fim_schur_well<T>(w, wp, ws, cidx, cq, dt, alpha, v, y);
}

template <class T>
__global__ void update_wells_kernel(long nw, const T* wp, T* ws, const long* cidx, const T* cq, const T* dx, T dbhp_max) {
  const long w = thread_index();
  if (w < nw) phys::fim_update_well<T>(w, wp, ws, cidx, cq, dx, dbhp_max);
}

template <class T>
__global__ void update_cells_kernel(long E, const T* pv0, const T* dx, T* x, T dp_max, T ds_max) {
  const long L = thread_index();
  if (L < E) phys::fim_update_cell<T>(L, pv0, dx, x, dp_max, ds_max);
}

template <class T>
__global__ void unpack_kernel(long E, const T* pv0, const T* x, T* p, T* sw, T* dp, T* ds) {
  const long L = thread_index();
  if (L < E) phys::fim_unpack_cell<T>(L, pv0, x, p, sw, dp, ds);
}

template <class T>
__global__ void pack_kernel(long E, const T* pv0, const T* p, const T* sw, T* x) {
  const long L = thread_index();
  if (L < E) phys::fim_pack_cell<T>(L, pv0, p, sw, x);
}

unsigned blocks_for(long n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

}  // namespace

template <class T>
void launch_fim_masses(const T* prm, long E, const T* x, const T* pv0, T* mw, T* mo, cudaStream_t st) {
  masses_kernel<T><<<blocks_for(E), kBlock, 0, st>>>(prm, E, x, pv0, mw, mo);
}

template <class T>
void launch_fim_assemble(const T* prm, pf_box3 b, long cells, long E, T dt, const T* x, const T* mw_n, const T* mo_n, const T* tx,
                         const T* ty, const T* tz, const T* depth, const T* pv0, const T* wp, const T* ws, const int* ccell,
                         const int* cwell, const T* cwi, T* cq, T* coef, T* res, T* cnv, T* mbw, T* mbo, T cnv_tol, T* viol,
                         cudaStream_t st) {
  assemble_kernel<T><<<blocks_for(cells), kBlock, 0, st>>>(prm, b, cells, E, dt, x, mw_n, mo_n, tx, ty, tz, depth, pv0, wp, ws,
                                                             ccell, cwell, cwi, cq, coef, res, cnv, mbw, mbo, cnv_tol, viol);
}

template <class T>
void launch_fim_well_start(const T* prm, long nw, const T* wp, T* ws, const long* cidx, const T* cwi, const T* cdepth, const T* x,
                           const T* pv0, T* cq, cudaStream_t st) {
  well_start_kernel<T><<<blocks_for(nw), kBlock, 0, st>>>(prm, nw, wp, ws, cidx, cwi, cdepth, x, pv0, cq);
}

template <class T>
void launch_fim_well_equation(long nw, const T* wp, T* ws, const long* cidx, T* cq, T dt, T* coef, T* res, cudaStream_t st) {
  well_equation_kernel<T><<<blocks_for(nw), kBlock, 0, st>>>(nw, wp, ws, cidx, cq, dt, coef, res);
}

template <class T>
void launch_fim_schur(long nw, const T* wp, const T* ws, const long* cidx, const T* cq, T dt, T alpha, const T* v, T* y,
                      const unsigned long long* guard, cudaStream_t st) {
  schur_kernel<T><<<blocks_for(nw), kBlock, 0, st>>>(nw, wp, ws, cidx, cq, dt, alpha, v, y, guard);
}

template <class T>
void launch_fim_update_wells(long nw, const T* wp, T* ws, const long* cidx, const T* cq, const T* dx, T dbhp_max, cudaStream_t st) {
  update_wells_kernel<T><<<blocks_for(nw), kBlock, 0, st>>>(nw, wp, ws, cidx, cq, dx, dbhp_max);
}

template <class T>
void launch_fim_update_cells(long E, const T* pv0, const T* dx, T* x, T dp_max, T ds_max, cudaStream_t st) {
  update_cells_kernel<T><<<blocks_for(E), kBlock, 0, st>>>(E, pv0, dx, x, dp_max, ds_max);
}

template <class T>
void launch_fim_unpack(long E, const T* pv0, const T* x, T* p, T* sw, T* dp, T* ds, cudaStream_t st) {
  unpack_kernel<T><<<blocks_for(E), kBlock, 0, st>>>(E, pv0, x, p, sw, dp, ds);
}

template <class T>
void launch_fim_pack(long E, const T* pv0, const T* p, const T* sw, T* x, cudaStream_t st) {
  pack_kernel<T><<<blocks_for(E), kBlock, 0, st>>>(E, pv0, p, sw, x);
}

#define PF_FIM_INSTANTIATE(T)                                                                                               \
  template void launch_fim_masses<T>(const T*, long, const T*, const T*, T*, T*, cudaStream_t);                            \
  template void launch_fim_assemble<T>(const T*, pf_box3, long, long, T, const T*, const T*, const T*, const T*, const T*, \
                                       const T*, const T*, const T*, const T*, const T*, const int*, const int*, const T*, \
                                       T*, T*, T*, T*, T*, T*, T, T*, cudaStream_t);                                        \
  template void launch_fim_well_start<T>(const T*, long, const T*, T*, const long*, const T*, const T*, const T*, const T*,  \
                                         T*, cudaStream_t);                                                                 \
  template void launch_fim_well_equation<T>(long, const T*, T*, const long*, T*, T, T*, T*, cudaStream_t);                  \
  template void launch_fim_schur<T>(long, const T*, const T*, const long*, const T*, T, T, const T*, T*,                    \
                                    const unsigned long long*, cudaStream_t);                                               \
  template void launch_fim_update_wells<T>(long, const T*, T*, const long*, const T*, const T*, T, cudaStream_t);           \
  template void launch_fim_update_cells<T>(long, const T*, const T*, T*, T, T, cudaStream_t);                               \
  template void launch_fim_unpack<T>(long, const T*, const T*, T*, T*, T*, T*, cudaStream_t);                               \
  template void launch_fim_pack<T>(long, const T*, const T*, const T*, T*, cudaStream_t);
PF_FIM_INSTANTIATE(float)
PF_FIM_INSTANTIATE(double)

}  // namespace poreflow::cu
