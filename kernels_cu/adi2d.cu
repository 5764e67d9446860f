// The adi2d family (twin: kernels_cl/adi2d.cl): one thread per node, the whole computation of a
// node is the shared stencil of core/physics/adi2d.h, exactly what the host backends run.
#include "core/physics/adi2d.h"
#include "kernels_cu/adi2d.cuh"
#include "kernels_cu/control_device.cuh"

namespace poreflow::cu {
namespace {

constexpr int kBlock = 256;

struct Adi2DGrid {
  long nx = 0, ny = 0;
};

inline unsigned grid_of(const Adi2DGrid& g) { return static_cast<unsigned>((g.nx * g.ny + kBlock - 1) / kBlock); }

// node index of this thread, or -1 past the grid
__device__ __forceinline__ long node(const Adi2DGrid& g, long* i, long* j) {
  long k = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (k >= g.nx * g.ny) return -1;
  *i = k % g.nx;
  *j = k / g.nx;
  return k;
}

template <class T>
__global__ void flash_kernel(Adi2DGrid g, T h, const T* __restrict__ prm, const T* __restrict__ m1, const T* __restrict__ m2, const T* __restrict__ m3,
                             const T* __restrict__ m4, const T* __restrict__ p, T* sw, T* so, T* sg, T* co3, T* cg3, T* vol, T* props) {
  long i, j;
  if (node(g, &i, &j) < 0) return;
  phys::adi_flash_node<T>(prm, i, j, g.nx, g.ny, h, m1, m2, m3, m4, p, sw, so, sg, co3, cg3, vol, props);
}

template <class T>
__global__ void coefficients_kernel(Adi2DGrid g, T h, T dt, const T* __restrict__ prm, const T* __restrict__ p, const T* __restrict__ sw,
                                    const T* __restrict__ so, const T* __restrict__ sg, const T* __restrict__ co3, const T* __restrict__ cg3, const T* __restrict__ props, const T* __restrict__ vol, const T* __restrict__ inj,
                                    const T* __restrict__ prod, T p_bh, T* aw, T* ae, T* as, T* an, T* d0, T* rhs) {
  long i, j;
  if (node(g, &i, &j) < 0) return;
  phys::adi_coefficients_node<T>(prm, i, j, g.nx, g.ny, h, dt, p, sw, so, sg, co3, cg3, props, vol, inj, prod, p_bh, aw, ae,
                                 as, an, d0, rhs);
}

template <class T, bool CHECK>
__global__ void __launch_bounds__(kBlock)
    sweep_kernel(Adi2DGrid g, int x_sweep, T r, const T* __restrict__ aw, const T* __restrict__ ae,
                 const T* __restrict__ as, const T* __restrict__ an, const T* __restrict__ d0,
                 const T* __restrict__ rhs, const T* __restrict__ q, T* a, T* b, T* c, T* d,
                 unsigned long long* ctrl, int check_slot, int clear_slot, T* cand0, T* cand1) {
  if (cv_stopped(ctrl)) return;  // uniform: the whole launch sees the same word
  long i, j;
  const long k = node(g, &i, &j);
  T res = T(0);
  if (k >= 0) res = phys::adi_sweep_node<T>(i, j, g.nx, g.ny, x_sweep, r, aw, ae, as, an, d0, rhs, q, a, b, c, d);
  if constexpr (CHECK) {
    if (cand0 && k >= 0) (phys::pf_cv_candidate(ctrl) ? cand1 : cand0)[k] = q[k];
    cv_check_block<kBlock, T>(ctrl, check_slot, clear_slot, metric_bits(fabs(res)));
  }
}

template <class T>
__global__ void velocity_kernel(Adi2DGrid g, const T* __restrict__ prm, const T* __restrict__ p, const T* __restrict__ sw, const T* __restrict__ so,
                                const T* __restrict__ sg, const T* __restrict__ co3, const T* __restrict__ cg3, const T* __restrict__ props, T* ux, T* uy) {
  long i, j;
  if (node(g, &i, &j) < 0) return;
  phys::adi_total_velocity_node<T>(prm, i, j, g.nx, g.ny, p, sw, so, sg, co3, cg3, props, ux, uy);
}

// two blocks per SM: 128 registers in double (4 bytes spilled; 156 unbounded left one block per SM,
// 12% occupancy, and took 311 instead of 171 us at 1025^2)
template <class T>
__global__ void __launch_bounds__(kBlock, 2) transport_kernel(Adi2DGrid g, T dt, const T* __restrict__ prm, const T* __restrict__ p, const T* __restrict__ sw, const T* __restrict__ so,
                                 const T* __restrict__ sg, const T* __restrict__ co3, const T* __restrict__ cg3, const T* __restrict__ props, const T* __restrict__ ux, const T* __restrict__ uy, const T* __restrict__ inj, const T* __restrict__ prod, T p_bh,
                                 const T* __restrict__ m1, const T* __restrict__ m2, const T* __restrict__ m3, const T* __restrict__ m4, T* o1, T* o2, T* o3, T* o4,
                                 T* a1, T* a2, T* a3, T* a4) {
  long i, j;
  if (node(g, &i, &j) < 0) return;
  phys::adi_transport_node<T>(prm, i, j, g.nx, g.ny, dt, p, sw, so, sg, co3, cg3, props, ux, uy, inj, prod, p_bh, m1, m2, m3, m4, o1,
                              o2, o3, o4, a1, a2, a3, a4);
}

template <class T>
__global__ void rate_kernel(Adi2DGrid g, T h, const T* __restrict__ prm, const T* __restrict__ p, const T* __restrict__ sw, const T* __restrict__ so,
                            const T* __restrict__ sg, const T* __restrict__ co3, const T* __restrict__ cg3, const T* __restrict__ props, const T* __restrict__ ux, const T* __restrict__ uy, const T* __restrict__ vol, const T* __restrict__ prod, T p_bh, T* rate) {
  long i, j;
  long k = node(g, &i, &j);
  if (k < 0) return;
  rate[k] = phys::adi_rate_node<T>(prm, i, j, g.nx, g.ny, h, p, sw, so, sg, co3, cg3, props, ux, uy, vol, prod, p_bh);
}

}  // namespace

template <class T>
void adi2d_flash(long nx, long ny, T h, const T* prm, const T* m1, const T* m2, const T* m3, const T* m4, const T* p, T* sw,
                 T* so, T* sg, T* co3, T* cg3, T* vol, T* props, cudaStream_t s) {
  const Adi2DGrid g{nx, ny};
  flash_kernel<T><<<grid_of(g), kBlock, 0, s>>>(g, h, prm, m1, m2, m3, m4, p, sw, so, sg, co3, cg3, vol, props);
}

template <class T>
void adi2d_coefficients(long nx, long ny, T h, T dt, const T* prm, const T* p, const T* sw, const T* so, const T* sg,
                        const T* co3, const T* cg3, const T* props, const T* vol, const T* inj, const T* prod, T p_bh, T* aw,
                        T* ae, T* as, T* an, T* d0, T* rhs, cudaStream_t s) {
  const Adi2DGrid g{nx, ny};
  coefficients_kernel<T><<<grid_of(g), kBlock, 0, s>>>(g, h, dt, prm, p, sw, so, sg, co3, cg3, props, vol, inj, prod, p_bh,
                                                       aw, ae, as, an, d0, rhs);
}

template <class T>
void adi2d_sweep(long nx, long ny, int x_sweep, T r, const T* aw, const T* ae, const T* as, const T* an, const T* d0,
                 const T* rhs, const T* q, T* a, T* b, T* c, T* d, unsigned long long* ctrl, int check_slot, int clear_slot,
                 T* cand0, T* cand1, cudaStream_t s) {
  const Adi2DGrid g{nx, ny};
  if (ctrl && check_slot >= 0)
    sweep_kernel<T, true><<<grid_of(g), kBlock, 0, s>>>(g, x_sweep, r, aw, ae, as, an, d0, rhs, q, a, b, c, d, ctrl,
                                                        check_slot, clear_slot, cand0, cand1);
  else
    sweep_kernel<T, false><<<grid_of(g), kBlock, 0, s>>>(g, x_sweep, r, aw, ae, as, an, d0, rhs, q, a, b, c, d, ctrl,
                                                         check_slot, clear_slot, nullptr, nullptr);
}

template <class T>
void adi2d_total_velocity(long nx, long ny, const T* prm, const T* p, const T* sw, const T* so, const T* sg, const T* co3,
                          const T* cg3, const T* props, T* ux, T* uy, cudaStream_t s) {
  const Adi2DGrid g{nx, ny};
  velocity_kernel<T><<<grid_of(g), kBlock, 0, s>>>(g, prm, p, sw, so, sg, co3, cg3, props, ux, uy);
}

template <class T>
void adi2d_transport(long nx, long ny, T dt, const T* prm, const T* p, const T* sw, const T* so, const T* sg, const T* co3,
                     const T* cg3, const T* props, const T* ux, const T* uy, const T* inj, const T* prod, T p_bh, const T* m1,
                     const T* m2, const T* m3, const T* m4, T* o1, T* o2, T* o3, T* o4, T* a1, T* a2, T* a3, T* a4,
                     cudaStream_t s) {
  const Adi2DGrid g{nx, ny};
  transport_kernel<T><<<grid_of(g), kBlock, 0, s>>>(g, dt, prm, p, sw, so, sg, co3, cg3, props, ux, uy, inj, prod, p_bh, m1, m2,
                                                    m3, m4, o1, o2, o3, o4, a1, a2, a3, a4);
}

template <class T>
void adi2d_rate(long nx, long ny, T h, const T* prm, const T* p, const T* sw, const T* so, const T* sg, const T* co3,
                const T* cg3, const T* props, const T* ux, const T* uy, const T* vol, const T* prod, T p_bh, T* rate,
                cudaStream_t s) {
  const Adi2DGrid g{nx, ny};
  rate_kernel<T><<<grid_of(g), kBlock, 0, s>>>(g, h, prm, p, sw, so, sg, co3, cg3, props, ux, uy, vol, prod, p_bh, rate);
}

#define PF_INSTANTIATE(T)                                                                                              \
  template void adi2d_flash<T>(long, long, T, const T*, const T*, const T*, const T*, const T*, const T*, T*, T*, T*, \
                               T*, T*, T*, T*, cudaStream_t);                                                          \
  template void adi2d_coefficients<T>(long, long, T, T, const T*, const T*, const T*, const T*, const T*, const T*,    \
                                      const T*, const T*, const T*, const T*, const T*, T, T*, T*, T*, T*, T*, T*,     \
                                      cudaStream_t);                                                                   \
  template void adi2d_sweep<T>(long, long, int, T, const T*, const T*, const T*, const T*, const T*, const T*,        \
                               const T*, T*, T*, T*, T*, unsigned long long*, int, int, T*, T*, cudaStream_t);         \
  template void adi2d_total_velocity<T>(long, long, const T*, const T*, const T*, const T*, const T*, const T*,       \
                                        const T*, const T*, T*, T*, cudaStream_t);                                     \
  template void adi2d_transport<T>(long, long, T, const T*, const T*, const T*, const T*, const T*, const T*,         \
                                   const T*, const T*, const T*, const T*, const T*, const T*, T, const T*, const T*,  \
                                   const T*, const T*, T*, T*, T*, T*, T*, T*, T*, T*, cudaStream_t);                  \
  template void adi2d_rate<T>(long, long, T, const T*, const T*, const T*, const T*, const T*, const T*, const T*,    \
                              const T*, const T*, const T*, const T*, const T*, T, T*, cudaStream_t);
PF_INSTANTIATE(float)
PF_INSTANTIATE(double)

}  // namespace poreflow::cu
