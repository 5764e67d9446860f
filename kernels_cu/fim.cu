// The fim family (twin: kernels_cl/fim.cl): a thread per cell around core/physics/fim.h.
#include "core/physics/fim.h"
#include "kernels_cu/fim.cuh"

namespace poreflow::cu {
namespace {

constexpr unsigned kBlock = 128;

template <class T>
__global__ void masses_kernel(const T* prm, long E, const T* x, const T* pv0, T* mw, T* mo) {
  const long L = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (L < E) phys::fim_masses_cell<T>(prm, L, x, pv0, mw, mo);
}

template <class T>
__global__ void assemble_kernel(const T* prm, pf_box3 b, long cells, long E, T dt, const T* x, const T* mw_n, const T* mo_n,
                                const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0, T* coef, T* res) {
  const long c = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= cells) return;
  const long i = c % b.nx, j = (c / b.nx) % b.ny, k = c / (b.nx * b.ny);
  phys::fim_assemble_cell<T>(prm, b, i, j, k, E, dt, x, mw_n, mo_n, tx, ty, tz, depth, pv0, coef, res);
}

unsigned blocks_for(long n) { return static_cast<unsigned>((n + kBlock - 1) / kBlock); }

}  // namespace

template <class T>
void launch_fim_masses(const T* prm, long E, const T* x, const T* pv0, T* mw, T* mo, cudaStream_t st) {
  masses_kernel<T><<<blocks_for(E), kBlock, 0, st>>>(prm, E, x, pv0, mw, mo);
}

template <class T>
void launch_fim_assemble(const T* prm, pf_box3 b, long cells, long E, T dt, const T* x, const T* mw_n, const T* mo_n, const T* tx,
                         const T* ty, const T* tz, const T* depth, const T* pv0, T* coef, T* res, cudaStream_t st) {
  assemble_kernel<T><<<blocks_for(cells), kBlock, 0, st>>>(prm, b, cells, E, dt, x, mw_n, mo_n, tx, ty, tz, depth, pv0, coef, res);
}

#define PF_FIM_INSTANTIATE(T)                                                                                          \
  template void launch_fim_masses<T>(const T*, long, const T*, const T*, T*, T*, cudaStream_t);                       \
  template void launch_fim_assemble<T>(const T*, pf_box3, long, long, T, const T*, const T*, const T*, const T*,      \
                                       const T*, const T*, const T*, const T*, T*, T*, cudaStream_t);
PF_FIM_INSTANTIATE(float)
PF_FIM_INSTANTIATE(double)

}  // namespace poreflow::cu
