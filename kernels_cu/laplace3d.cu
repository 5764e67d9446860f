// The laplace3d family (twin: kernels_cl/laplace3d.cl): the box loop around lap7_at.
#include "core/physics/laplace3d.h"
#include "kernels_cu/box3_device.cuh"
#include "kernels_cu/laplace3d.cuh"

namespace poreflow::cu {
namespace {

template <class T>
__global__ void lap7_kernel(const T* __restrict__ in, pf_box3 bi, T* __restrict__ out, pf_box3 bo, T cx, T cy, T cz) {
  box_for_each(bi.nx, bi.ny, bi.nz,
               [&](long i, long j, long k) { out[phys::pf_box_at(bo, i, j, k)] = phys::lap7_at<T>(in, bi, i, j, k, cx, cy, cz); });
}

}  // namespace

template <class T>
void launch_lap7(const T* in, pf_box3 bi, T* out, pf_box3 bo, T cx, T cy, T cz, const BoxShape& shape, cudaStream_t stream) {
  const BoxGrid g = box_grid(bi.nx, bi.ny, bi.nz, shape);
  lap7_kernel<T><<<g.grid, g.block, 0, stream>>>(in, bi, out, bo, cx, cy, cz);
}

template void launch_lap7<float>(const float*, pf_box3, float*, pf_box3, float, float, float, const BoxShape&, cudaStream_t);
template void launch_lap7<double>(const double*, pf_box3, double*, pf_box3, double, double, double, const BoxShape&,
                                  cudaStream_t);

}  // namespace poreflow::cu
