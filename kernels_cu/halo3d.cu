// The halo3d family (twin: kernels_cl/halo3d.cl): a pass fills the ghost layers of one direction,
// one thread per ghost cell, with the shared pf_halo_fill_point.
#include "core/physics/halo3d.h"
#include "kernels_cu/box3_device.cuh"
#include "kernels_cu/halo3d.cuh"

namespace poreflow::cu {
namespace {

template <class T>
__global__ void halo_pass_kernel(T* f, pf_box3 b, int dir, int mode_lo, int mode_hi, T value_lo, T value_hi) {
  long nu, nv;
  phys::pf_halo_extent(b, dir, &nu, &nv);
  box_for_each(nu, nv, 2 * b.halo,
               [&](long u, long v, long w) { phys::pf_halo_fill_point<T>(f, b, dir, u, v, w, mode_lo, mode_hi, value_lo, value_hi); });
}

template <class T>
__global__ void halo_pack_kernel(T* f, pf_box3 b, int dir, T* buf, int unpack, int sides, int block) {
  long nu, nv;
  phys::pf_halo_extent(b, dir, &nu, &nv);
  box_for_each(nu, nv, 2 * b.halo, [&](long u, long v, long w) { phys::pf_halo_pack_point<T>(f, b, dir, u, v, w, buf, unpack, sides, block); });
}

// the face index space is (u, v) by 2 halo layers: a 3D launch whatever the box's shape
BoxGrid face_grid(pf_box3 b, int dir, const BoxShape& shape) {
  long nu, nv;
  phys::pf_halo_extent(b, dir, &nu, &nv);
  BoxShape s = shape;
  s.kind = BoxLaunch::Blocks3D;
  s.bz = 1;
  return box_grid(nu, nv, 2 * b.halo, s);
}

}  // namespace

template <class T>
void launch_halo_pack(T* f, pf_box3 b, int dir, T* buf, int unpack, int sides, int block, const BoxShape& shape,
                      cudaStream_t stream) {
  const BoxGrid g = face_grid(b, dir, shape);
  halo_pack_kernel<T><<<g.grid, g.block, 0, stream>>>(f, b, dir, buf, unpack, sides, block);
}

template void launch_halo_pack<float>(float*, pf_box3, int, float*, int, int, int, const BoxShape&, cudaStream_t);
template void launch_halo_pack<double>(double*, pf_box3, int, double*, int, int, int, const BoxShape&, cudaStream_t);

template <class T>
void launch_halo_pass(T* f, pf_box3 b, int dir, int mode_lo, int mode_hi, T value_lo, T value_hi, const BoxShape& shape,
                      cudaStream_t stream) {
  const BoxGrid g = face_grid(b, dir, shape);
  halo_pass_kernel<T><<<g.grid, g.block, 0, stream>>>(f, b, dir, mode_lo, mode_hi, value_lo, value_hi);
}

template void launch_halo_pass<float>(float*, pf_box3, int, int, int, float, float, const BoxShape&, cudaStream_t);
template void launch_halo_pass<double>(double*, pf_box3, int, int, int, double, double, const BoxShape&, cudaStream_t);

}  // namespace poreflow::cu
