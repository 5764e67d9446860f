// The fluids3d family (twin: kernels_cl/fluids3d.cl): paper 001's kernels around the per-cell
// functions of core/physics/fluids3d.h. Semantics: backends/host/fluids3d.cpp.
//
// lin_solve's sweeps use the red-black skeleton shared with sor3d (kernels_cu/rb_sweep.cuh) and
// the fused stop of kernels_cu/control_device.cuh: each sweep folds its block's max change into
// the control block with one atomic max, and the next iteration's red sweep decides, so a solve is
// its sweeps back to back on the stream with no host round trip.
#include "core/kernels/fluids3d.hpp"
#include "core/physics/fluids3d.h"
#include "kernels_cu/box3_device.cuh"
#include "kernels_cu/control_device.cuh"
#include "kernels_cu/fluids3d.cuh"
#include "kernels_cu/rb_sweep.cuh"

namespace poreflow::cu {
namespace {

template <class T>
struct FlSweepParams {
  T* __restrict__ x;
  const T* __restrict__ x0;
  pf_box3 b;
  T a, inv_c, tol;
  int q, walls, colour;
  int k_first, k_count;  // the layers swept
  long long it;
  int decide_slot, check_slot, clear_slot;
  unsigned long long* ctrl;
  RbSweepShape shape;
};

__device__ __forceinline__ void prefetch_l2(const void* p) { asm volatile("prefetch.global.L2 [%0];" ::"l"(p)); }

// I: the index type (int when the packed arrays fit). The register cap keeps a full SM's threads
// resident: the sweep is bound by loads in flight, and the uncapped kernel ran at a quarter of the
// SM's threads and 0.4 of the copy bandwidth. P: layers ahead each cell asks L2 for
// (fluids3d_sweep_prefetch), its own value, x0 and its upper neighbour there: more bytes in flight
// without registers, where the sweep streams from DRAM.
template <class T, class I, bool Flat, int P = 0>
__global__ void __launch_bounds__(1024, sizeof(T) == 4 ? 2 : 1) fl_sweep_kernel(FlSweepParams<T> prm) {
  using K = bits_t<T>;
  if (cv_fused_stopped<T>(prm.ctrl, prm.it, prm.decide_slot, prm.tol)) return;
  K m = 0;
  const pf_box3 b = prm.b;
  const I nx = static_cast<I>(b.nx), ny = static_cast<I>(b.ny), nz = static_cast<I>(b.nz), k_first = static_cast<I>(prm.k_first);
  // a colour's values: its layers and an extra plane below and above (core/physics/fluids3d.h);
  // the walk covers layers [k_first, k_first + k_count): its rows start there, and its colour is
  // the one whose parity, counted from k_first, is the colour's
  const I hx = static_cast<I>(phys::pf_rb_hx(b)), plane = ny * hx, half = plane * (nz + 2);
  T* const own = prm.x + prm.colour * half + plane * (1 + k_first);
  const T* const own0 = prm.x0 + prm.colour * half + plane * (1 + k_first);
  const T* const other = prm.x + (1 - prm.colour) * half + plane * (1 + k_first);
  pf_box3 walk = b;
  walk.nz = prm.k_count;
  rb_sweep_rows<I, Flat>(walk, (prm.colour + prm.k_first) & 1, prm.shape, [&](I ih, I i, I j, I kw, I row) {
    const I k = kw + k_first;
    const int walls = phys::fl_walls(static_cast<int>(i), static_cast<int>(j), static_cast<int>(k), static_cast<int>(nx),
                                     static_cast<int>(ny), static_cast<int>(nz)) & prm.walls;
    const K d = metric_bits(phys::fl_lin_update_at<T>(own + row + ih, own0 + row + ih, other + row + (i >> 1), static_cast<int>(i & 1),
                                                      hx, plane, walls, prm.q, prm.a, prm.inv_c));
    if constexpr (P > 0) {
      if (k + P + 1 < nz) {
        prefetch_l2(own + row + P * plane + ih);
        prefetch_l2(own0 + row + P * plane + ih);
        prefetch_l2(other + row + (P + 1) * plane + (i >> 1));
      }
    }
    m = d > m ? d : m;
  });
  cv_check_block_any<T>(prm.ctrl, prm.check_slot, prm.clear_slot, m, threadIdx.x, blockDim.x);
}

template <class T>
__global__ void fl_source_kernel(T* __restrict__ x, pf_box3 bx, int b, long i0, long j0, long k0, long ni, long nj, long nk,
                                 T value) {
  box_for_each(ni, nj, nk, [&](long i, long j, long k) { phys::fl_source_cell<T>(x, bx, b, i0 + i, j0 + j, k0 + k, value); });
}

// The kernels over all cells: I the index type (int where box_narrow_index); advect and unpack ran
// slower with it (kernels_cu/box3_device.cuh)
template <class T, class I>
__global__ void fl_pack_kernel(const T* __restrict__ x, T* __restrict__ xp, pf_box3 bx) {
  box_for_each_at<I>(bx, [&](I i, I j, I k, I at) { phys::fl_pack_cell<T>(x, xp, bx, i, j, k, at); });
}

template <class T>
__global__ void fl_unpack_kernel(const T* __restrict__ xp, T* __restrict__ x, pf_box3 bx, int b) {
  box_for_each(bx.nx, bx.ny, bx.nz,
               [&](long i, long j, long k) { phys::fl_unpack_cell<T>(xp, x, bx, b, i, j, k, phys::pf_box_at(bx, i, j, k)); });
}

template <class T>
__global__ void fl_boundary_kernel(T* __restrict__ x, pf_box3 bx, int b) {
  const long n = phys::fl_boundary_cells(bx);
  for (long q = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; q < n; q += static_cast<long>(gridDim.x) * blockDim.x)
    phys::fl_boundary_cell<T>(x, bx, b, q);
}

template <class T>
__global__ void fl_advect_kernel(T* __restrict__ d, const T* __restrict__ d0, const T* __restrict__ u, const T* __restrict__ v,
                                 const T* __restrict__ w, pf_box3 bx, int b, T dtx, T dty, T dtz, T z_lo, T z_hi) {
  box_for_each(bx.nx, bx.ny, bx.nz, [&](long i, long j, long k) {
    phys::fl_advect_cell<T>(d, d0, u, v, w, bx, b, i, j, k, phys::pf_box_at(bx, i, j, k), dtx, dty, dtz, z_lo, z_hi);
  });
}

template <class T, class I>
__global__ void fl_divergence_kernel(const T* __restrict__ u, const T* __restrict__ v, const T* __restrict__ w,
                                     T* __restrict__ div, T* __restrict__ p, pf_box3 bx, T h) {
  const int has_p = p != nullptr;
  box_for_each_at<I>(bx, [&](I i, I j, I k, I at) { phys::fl_div_cell<T>(u, v, w, div, p, has_p, bx, i, j, k, at, h); });
}

template <class T, class I>
__global__ void fl_gradient_kernel(T* __restrict__ u, T* __restrict__ v, T* __restrict__ w, const T* __restrict__ p, pf_box3 bx,
                                   T scale) {
  box_for_each_at<I>(bx, [&](I i, I j, I k, I at) { phys::fl_grad_cell<T>(u, v, w, p, bx, i, j, k, at, scale); });
}

}  // namespace

template <class T>
void launch_fl_sweep(T* x, const T* x0, pf_box3 box, T a, T inv_c, T tol, int q, int walls, unsigned long long* ctrl,
                     const FlSweepLaunch& l, cudaStream_t stream) {
  pf_box3 walk = box;  // the layers swept
  walk.nz = l.k_count < 0 ? box.nz : l.k_count;
  const RbSweepLaunch g =
      rb_sweep_launch(walk, l.shape, l.sm_count, "fluids3d sweep", fluids3d_sweep_layers, fluids3d_flat_sweep(l.shape));
  FlSweepParams<T> prm{};
  prm.x = x;
  prm.x0 = x0;
  prm.b = box;
  prm.a = a;
  prm.inv_c = inv_c;
  prm.tol = tol;
  prm.q = q;
  prm.walls = walls;
  prm.k_first = static_cast<int>(l.k_first);
  prm.k_count = static_cast<int>(walk.nz);
  prm.colour = l.colour;
  prm.it = l.it;
  prm.decide_slot = l.decide_slot;
  prm.check_slot = l.check_slot;
  prm.clear_slot = l.clear_slot;
  prm.ctrl = ctrl;
  prm.shape = g.shape;
  const bool flat = g.shape.flat;
  const bool ahead = flat && l.prefetch > 0;  // the tile walks (3d shapes) do not prefetch
  if (l.narrow && ahead) fl_sweep_kernel<T, int, true, 1><<<g.grid, g.threads, 0, stream>>>(prm);
  else if (l.narrow && flat) fl_sweep_kernel<T, int, true><<<g.grid, g.threads, 0, stream>>>(prm);
  else if (l.narrow) fl_sweep_kernel<T, int, false><<<g.grid, g.threads, 0, stream>>>(prm);
  else if (ahead) fl_sweep_kernel<T, long long, true, 1><<<g.grid, g.threads, 0, stream>>>(prm);
  else if (flat) fl_sweep_kernel<T, long long, true><<<g.grid, g.threads, 0, stream>>>(prm);
  else fl_sweep_kernel<T, long long, false><<<g.grid, g.threads, 0, stream>>>(prm);
}

template <class T>
void launch_fl_source(T* x, pf_box3 bx, int b, long i0, long j0, long k0, long ni, long nj, long nk, T value,
                      const BoxShape& shape, cudaStream_t stream) {
  const BoxGrid g = box_grid(ni, nj, nk, shape);
  fl_source_kernel<T><<<g.grid, g.block, 0, stream>>>(x, bx, b, i0, j0, k0, ni, nj, nk, value);
}

template <class T>
void launch_fl_pack(const T* x, T* xp, pf_box3 bx, const BoxShape& shape, cudaStream_t stream) {
  launch_box_at(fl_pack_kernel<T, int>, fl_pack_kernel<T, long long>, bx, shape, stream, x, xp, bx);
}

template <class T>
void launch_fl_unpack(const T* xp, T* x, pf_box3 bx, int b, const BoxShape& shape, cudaStream_t stream) {
  const BoxGrid g = box_grid(bx.nx, bx.ny, bx.nz, shape);
  fl_unpack_kernel<T><<<g.grid, g.block, 0, stream>>>(xp, x, bx, b);
}

template <class T>
void launch_fl_boundary(T* x, pf_box3 bx, int b, cudaStream_t stream) {
  const long n = phys::fl_boundary_cells(bx);
  const unsigned blocks = static_cast<unsigned>(std::min<long>((n + 255) / 256, 1L << 20));
  fl_boundary_kernel<T><<<blocks, 256, 0, stream>>>(x, bx, b);
}

template <class T>
void launch_fl_advect(T* d, const T* d0, const T* u, const T* v, const T* w, pf_box3 bx, int b, T dtx, T dty, T dtz,
                      T z_lo, T z_hi, const BoxShape& shape, cudaStream_t stream) {
  const BoxGrid g = box_grid(bx.nx, bx.ny, bx.nz, shape);
  fl_advect_kernel<T><<<g.grid, g.block, 0, stream>>>(d, d0, u, v, w, bx, b, dtx, dty, dtz, z_lo, z_hi);
}

template <class T>
void launch_fl_divergence(const T* u, const T* v, const T* w, T* div, T* p, pf_box3 bx, T h, const BoxShape& shape,
                          cudaStream_t stream) {
  launch_box_at(fl_divergence_kernel<T, int>, fl_divergence_kernel<T, long long>, bx, shape, stream, u, v, w, div, p, bx, h);
}

template <class T>
void launch_fl_gradient(T* u, T* v, T* w, const T* p, pf_box3 bx, T scale, const BoxShape& shape, cudaStream_t stream) {
  launch_box_at(fl_gradient_kernel<T, int>, fl_gradient_kernel<T, long long>, bx, shape, stream, u, v, w, p, bx, scale);
}

#define PF_FL_INSTANTIATE(T)                                                                                               \
  template void launch_fl_sweep<T>(T*, const T*, pf_box3, T, T, T, int, int, unsigned long long*, const FlSweepLaunch&,   \
                                   cudaStream_t);                                                                          \
  template void launch_fl_source<T>(T*, pf_box3, int, long, long, long, long, long, long, T, const BoxShape&, cudaStream_t); \
  template void launch_fl_boundary<T>(T*, pf_box3, int, cudaStream_t);                                                     \
  template void launch_fl_pack<T>(const T*, T*, pf_box3, const BoxShape&, cudaStream_t);                                    \
  template void launch_fl_unpack<T>(const T*, T*, pf_box3, int, const BoxShape&, cudaStream_t);                             \
  template void launch_fl_advect<T>(T*, const T*, const T*, const T*, const T*, pf_box3, int, T, T, T, T, T, const BoxShape&, \
                                    cudaStream_t);                                                                          \
  template void launch_fl_divergence<T>(const T*, const T*, const T*, T*, T*, pf_box3, T, const BoxShape&, cudaStream_t);   \
  template void launch_fl_gradient<T>(T*, T*, T*, const T*, pf_box3, T, const BoxShape&, cudaStream_t);
PF_FL_INSTANTIATE(float)
PF_FL_INSTANTIATE(double)

}  // namespace poreflow::cu
