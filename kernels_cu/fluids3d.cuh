#pragma once
// Launch wrappers of the fluids3d family (kernels_cu/fluids3d.cu; twin kernels_cl/fluids3d.cl).
#include <cuda_runtime_api.h>

#include "core/kernels/box3.hpp"

namespace poreflow::cu {

// One colour sweep of lin_solve on the colour-packed x and x0 (FluidsSolveArgs::sweep_args; ctrl: the
// solve's block). decide_slot >= 0 (red sweeps after a check): decide from that slot first; the
// sweep folds max |change| into check_slot and block 0 zeroes clear_slot.
struct FlSweepLaunch {
  BoxShape shape;
  int sm_count = 1;
  int colour = 0;
  long long it = 0;
  int decide_slot = -1, check_slot = 0, clear_slot = 1;
  bool narrow = true;  // 32-bit indices (fluids3d_narrow_index)
  int prefetch = 0;    // layers ahead asked of L2 (fluids3d_sweep_prefetch): 0 or 1
  long k_first = 0, k_count = -1;  // the layers swept (fluids3d_sweep_parts); -1: all of them
};
template <class T>
void launch_fl_sweep(T* x, const T* x0, pf_box3 box, T a, T inv_c, T tol, int q, int walls, unsigned long long* ctrl,
                     const FlSweepLaunch& l, cudaStream_t stream);

template <class T>
void launch_fl_source(T* x, pf_box3 bx, int b, long i0, long j0, long k0, long ni, long nj, long nk, T value,
                      const BoxShape& shape, cudaStream_t stream);
template <class T>
void launch_fl_pack(const T* x, T* xp, pf_box3 bx, const BoxShape& shape, cudaStream_t stream);
template <class T>
void launch_fl_unpack(const T* xp, T* x, pf_box3 bx, int b, const BoxShape& shape, cudaStream_t stream);
template <class T>
void launch_fl_boundary(T* x, pf_box3 bx, int b, cudaStream_t stream);
template <class T>
void launch_fl_advect(T* d, const T* d0, const T* u, const T* v, const T* w, pf_box3 bx, int b, T dtx, T dty, T dtz,
                      T z_lo, T z_hi, const BoxShape& shape, cudaStream_t stream);
template <class T>
void launch_fl_divergence(const T* u, const T* v, const T* w, T* div, T* p, pf_box3 bx, T h, const BoxShape& shape,
                          cudaStream_t stream);
template <class T>
void launch_fl_gradient(T* u, T* v, T* w, const T* p, pf_box3 bx, T scale, const BoxShape& shape, cudaStream_t stream);

}  // namespace poreflow::cu
