#pragma once
// Launch wrappers of the halo3d family (kernels_cu/halo3d.cu; twin kernels_cl/halo3d.cl).
#include <cuda_runtime_api.h>

#include "core/kernels/box3.hpp"

namespace poreflow::cu {

// one pass (direction dir) of pf_halo_fill_point over its face index space
template <class T>
void launch_halo_pass(T* f, pf_box3 b, int dir, int mode_lo, int mode_hi, T value_lo, T value_hi, const BoxShape& shape,
                      cudaStream_t stream);

// pf_halo_pack_point over the pass's index space of direction dir
template <class T>
void launch_halo_pack(T* f, pf_box3 b, int dir, T* buf, int unpack, int sides, int block, const BoxShape& shape,
                      cudaStream_t stream);

}  // namespace poreflow::cu
