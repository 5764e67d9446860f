// The impes3d family (twin: kernels_cl/impes3d.cl): box loops around the shared cell functions of
// core/physics/impes3d.h, one thread per well for the wells. Semantics: backends/host/impes3d.cpp.
//
// The parameters and tables are read from constant memory when they fit (ImpTables::constant): the
// wrapper copies prm into the module's __constant__ array on the stream before the launch, so a
// launch always sees the tables of its own arguments.
#include "core/physics/impes3d.h"
#include "kernels_cu/box3_device.cuh"
#include "kernels_cu/block_reduce.cuh"
#include "kernels_cu/control_device.cuh"
#include "kernels_cu/impes3d.cuh"

namespace poreflow::cu {
namespace {

__constant__ double c_prm_d[kImpesConstantValues];
__constant__ float c_prm_f[kImpesConstantValues];

template <class T>
__device__ __forceinline__ const T* constant_prm() {
  if constexpr (sizeof(T) == 8) return c_prm_d;
  else return c_prm_f;
}

template <class T>
void to_constant(const ImpGrid<T>& g, cudaStream_t st) {
  if (!g.constant) return;
  const void* sym = sizeof(T) == 8 ? static_cast<const void*>(&c_prm_d) : static_cast<const void*>(&c_prm_f);
  // errors stay in cudaGetLastError for the caller's PF_CHECK_LAUNCH
  (void)cudaMemcpyToSymbolAsync(sym, g.prm, g.prm_values * sizeof(T), 0, cudaMemcpyDeviceToDevice, st);
}

template <class T, bool C>
__device__ __forceinline__ const T* prm_of(const ImpGrid<T>& g) {
  if constexpr (C) return constant_prm<T>();
  else return g.prm;
}

template <class T, bool C>
__global__ void props_kernel(ImpGrid<T> g, const T* __restrict__ p, const T* __restrict__ mw, const T* __restrict__ mo,
                             T* __restrict__ props) {
  const T* prm = prm_of<T, C>(g);
  box_for_each(g.b.nx, g.b.ny, g.b.nz, [&](long i, long j, long k) {
    phys::imp_props_cell<T>(prm, phys::pf_box_at(g.b, i, j, k), g.E, p, mw, mo, g.pv0, props);
  });
}

template <class T>
__global__ void assemble_kernel(ImpGrid<T> g, T dt, const T* __restrict__ p, const T* __restrict__ props, T* __restrict__ coef) {
  box_for_each(g.b.nx, g.b.ny, g.b.nz, [&](long i, long j, long k) {
    phys::imp_assemble_cell<T>(g.b, i, j, k, g.E, dt, p, props, g.tx, g.ty, g.tz, g.depth, g.pv0, coef);
  });
}

template <class T, bool C>
__global__ void wells_prepare_kernel(ImpGrid<T> g, long wells, const T* wp, const long* cidx, const T* cwi, const T* cdepth,
                                     T* comp, const T* props, const T* p, T dt, T* coef, unsigned long long* words) {
  const long w = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= wells) return;
  phys::imp_well_prepare<T>(prm_of<T, C>(g), wp + w * IMP_NWP, cidx, cwi, cdepth, props, g.E, 2 * phys::pf_rb_m(g.b), p,
                            g.pv0, dt, comp, coef, words + IMP_NSTAT + w * IMP_NWO);
}

template <class T>
__global__ void wells_couple_kernel(ImpGrid<T> g, long wells, const T* wp, const long* cidx, T* comp, const T* props, const T* p,
                                    const T* dp, T dt, T* coef) {
  const long w = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= wells) return;
  phys::imp_well_couple<T>(wp + w * IMP_NWP, cidx, comp, props, g.E, 2 * phys::pf_rb_m(g.b), p, dp, g.pv0, dt, coef);
}

template <class T>
__global__ void wells_apply_kernel(long E, long wells, const T* wp, const long* cidx, const T* comp, const T* props, T dt,
                                   T sign, const T* x, T* y, const unsigned long long* guard) {
  if (guard && !phys::pf_cv_running(guard)) return;
  const long w = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= wells) return;
  phys::imp_well_apply<T>(wp + w * IMP_NWP, cidx, comp, props, E, dt, sign, x, y);
}

template <class T>
__global__ void wells_finish_kernel(long wells, const T* wp, const long* cidx, T* comp, const T* p, unsigned long long* words) {
  const long w = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (w >= wells) return;
  phys::imp_well_finish<T>(wp + w * IMP_NWP, cidx, comp, p, words + IMP_NSTAT + w * IMP_NWO);
}

// The update and its statistics: each thread's maxima (bits of non-negative numbers, NaN above
// all), then per statistic a warp shuffle, one shared slot per warp, and one atomic max per block.
template <class T, bool C>
__global__ void update_kernel(ImpGrid<T> g, T dt, const T* __restrict__ po, const T* __restrict__ pn,
                              const T* __restrict__ props, const T* __restrict__ mwi, const T* __restrict__ moi,
                              const int* __restrict__ ccell, const T* __restrict__ comp, T* __restrict__ mwo, T* __restrict__ moo, T* __restrict__ sw, unsigned long long* words) {
  using K = bits_t<T>;
  const T* prm = prm_of<T, C>(g);
  K mine[IMP_NSTAT];
#pragma unroll
  for (int s = 0; s < IMP_NSTAT; ++s) mine[s] = 0;
  box_for_each(g.b.nx, g.b.ny, g.b.nz, [&](long i, long j, long k) {
    T st[IMP_NSTAT];
    phys::imp_update_cell<T>(prm, g.b, i, j, k, g.E, dt, po, pn, props, g.tx, g.ty, g.tz, g.depth, g.pv0, mwi, moi, ccell, comp,
                             mwo, moo, sw, st);
#pragma unroll
    for (int s = 0; s < IMP_NSTAT; ++s) {
      const K b = metric_bits(st[s]);
      mine[s] = b > mine[s] ? b : mine[s];
    }
  });
  __shared__ K warp_res[IMP_NSTAT][32];
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int threads = blockDim.x * blockDim.y * blockDim.z;
#pragma unroll
  for (int s = 0; s < IMP_NSTAT; ++s) {
    const K v = warp_reduce(mine[s], MaxOp{});
    if ((tid & 31) == 0) warp_res[s][tid >> 5] = v;
  }
  __syncthreads();
  if (tid < 32) {
#pragma unroll
    for (int s = 0; s < IMP_NSTAT; ++s) {
      K v = tid < (threads >> 5) ? warp_res[s][tid] : K(0);
      v = warp_reduce(v, MaxOp{});
      if (tid == 0 && v != 0) {
        if constexpr (sizeof(T) == 4) atomicMax(reinterpret_cast<unsigned int*>(words + s), v);
        else atomicMax(words + s, v);
      }
    }
  }
}

unsigned groups_of(long n, int b) { return static_cast<unsigned>((n + b - 1) / b); }
constexpr int kWellBlock = 32;

}  // namespace

template <class T>
void launch_imp_props(pf_box3 b, long E, const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0, const T* prm,
                      const T* p, const T* mw, const T* mo, T* props, ImpTables tables, const BoxShape& s, cudaStream_t st) {
  const ImpGrid<T> g{b, E, tx, ty, tz, depth, pv0, prm, tables.values, tables.constant};
  const BoxGrid bg = box_grid(g.b.nx, g.b.ny, g.b.nz, s);
  to_constant(g, st);
  if (g.constant) props_kernel<T, true><<<bg.grid, bg.block, 0, st>>>(g, p, mw, mo, props);
  else props_kernel<T, false><<<bg.grid, bg.block, 0, st>>>(g, p, mw, mo, props);
}

template <class T>
void launch_imp_assemble(pf_box3 b, long E, const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0, T dt,
                         const T* p, const T* props, T* coef, const BoxShape& s, cudaStream_t st) {
  const ImpGrid<T> g{b, E, tx, ty, tz, depth, pv0, nullptr, 0, false};  // no tables
  const BoxGrid bg = box_grid(g.b.nx, g.b.ny, g.b.nz, s);
  assemble_kernel<T><<<bg.grid, bg.block, 0, st>>>(g, dt, p, props, coef);
}

template <class T>
void launch_imp_wells_prepare(pf_box3 b, long E, const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0,
                              const T* prm, long wells, const T* wp, const long* cidx, const T* cwi, const T* cdepth, T* comp,
                              const T* props, const T* p, T dt, T* coef, unsigned long long* words, ImpTables tables,
                              cudaStream_t st) {
  const ImpGrid<T> g{b, E, tx, ty, tz, depth, pv0, prm, tables.values, tables.constant};
  to_constant(g, st);
  if (g.constant)
    wells_prepare_kernel<T, true><<<groups_of(wells, kWellBlock), kWellBlock, 0, st>>>(g, wells, wp, cidx, cwi, cdepth, comp,
                                                                                      props, p, dt, coef, words);
  else
    wells_prepare_kernel<T, false><<<groups_of(wells, kWellBlock), kWellBlock, 0, st>>>(g, wells, wp, cidx, cwi, cdepth, comp,
                                                                                       props, p, dt, coef, words);
}

template <class T>
void launch_imp_wells_finish(long wells, const T* wp, const long* cidx, T* comp, const T* p, unsigned long long* words,
                             cudaStream_t st) {
  wells_finish_kernel<T><<<groups_of(wells, kWellBlock), kWellBlock, 0, st>>>(wells, wp, cidx, comp, p, words);
}

template <class T>
void launch_imp_wells_couple(pf_box3 b, long E, const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0, long wells,
                             const T* wp, const long* cidx, T* comp, const T* props, const T* p, const T* dp, T dt, T* coef,
                             cudaStream_t st) {
  const ImpGrid<T> g{b, E, tx, ty, tz, depth, pv0, nullptr, 0, false};  // no tables
  wells_couple_kernel<T><<<groups_of(wells, kWellBlock), kWellBlock, 0, st>>>(g, wells, wp, cidx, comp, props, p, dp, dt, coef);
}

template <class T>
void launch_imp_wells_apply(long E, long wells, const T* wp, const long* cidx, const T* comp, const T* props, T dt, T sign,
                            const T* x, T* y, const unsigned long long* guard, cudaStream_t st) {
  wells_apply_kernel<T><<<groups_of(wells, kWellBlock), kWellBlock, 0, st>>>(E, wells, wp, cidx, comp, props, dt, sign, x, y,
                                                                              guard);
}

template <class T>
void launch_imp_update(pf_box3 b, long E, const T* tx, const T* ty, const T* tz, const T* depth, const T* pv0, const T* prm,
                       T dt, const T* p_old, const T* p_new, const T* props, const T* mw_in, const T* mo_in, const int* ccell,
                       const T* comp, T* mw_out, T* mo_out, T* sw, unsigned long long* words, ImpTables tables,
                       const BoxShape& s, cudaStream_t st) {
  const ImpGrid<T> g{b, E, tx, ty, tz, depth, pv0, prm, tables.values, tables.constant};
  const BoxGrid bg = box_grid(g.b.nx, g.b.ny, g.b.nz, s);
  to_constant(g, st);
  if (g.constant)
    update_kernel<T, true><<<bg.grid, bg.block, 0, st>>>(g, dt, p_old, p_new, props, mw_in, mo_in, ccell, comp, mw_out, mo_out, sw, words);
  else
    update_kernel<T, false><<<bg.grid, bg.block, 0, st>>>(g, dt, p_old, p_new, props, mw_in, mo_in, ccell, comp, mw_out, mo_out, sw, words);
}

#define PF_IMP_GRID_TYPES(T) pf_box3, long, const T*, const T*, const T*, const T*, const T*
#define PF_IMP_INSTANTIATE(T)                                                                                              \
  template void launch_imp_props<T>(PF_IMP_GRID_TYPES(T), const T*, const T*, const T*, const T*, T*, ImpTables,            \
                                    const BoxShape&, cudaStream_t);                                                        \
  template void launch_imp_assemble<T>(PF_IMP_GRID_TYPES(T), T, const T*, const T*, T*, const BoxShape&, cudaStream_t);   \
  template void launch_imp_wells_prepare<T>(PF_IMP_GRID_TYPES(T), const T*, long, const T*, const long*, const T*,         \
                                            const T*, T*, const T*, const T*, T, T*, unsigned long long*, ImpTables,       \
                                            cudaStream_t);                                                                 \
  template void launch_imp_wells_finish<T>(long, const T*, const long*, T*, const T*, unsigned long long*, cudaStream_t); \
  template void launch_imp_wells_couple<T>(PF_IMP_GRID_TYPES(T), long, const T*, const long*, T*, const T*, const T*,      \
                                           const T*, T, T*, cudaStream_t);                                                 \
  template void launch_imp_wells_apply<T>(long, long, const T*, const long*, const T*, const T*, T, T, const T*, T*,       \
                                          const unsigned long long*, cudaStream_t);                                        \
  template void launch_imp_update<T>(PF_IMP_GRID_TYPES(T), const T*, T, const T*, const T*, const T*, const T*, const T*,  \
                                     const int*, const T*, T*, T*, T*, unsigned long long*, ImpTables, const BoxShape&,    \
                                     cudaStream_t);
PF_IMP_INSTANTIATE(float)
PF_IMP_INSTANTIATE(double)

}  // namespace poreflow::cu
