#pragma once
// Launch wrappers of the sor3d family (kernels_cu/sor3d.cu; twin kernels_cl/sor3d.cl).
#include <cuda_runtime_api.h>

#include "core/kernels/box3.hpp"
#include "core/kernels/sor3d.hpp"

namespace poreflow::cu {

// One colour sweep. The host works out its roles (fused_plan): decide_slot >= 0 (red sweeps
// only): decide from that slot first; check: fold max |residual| into check_slot (the red sweep
// also zeroes clear_slot).
struct SorLaunch {
  SorDesign design = SorDesign::Simple;
  BoxShape shape;
  int sm_count = 1;
  std::size_t smem_optin = 48 * 1024;
  int colour = 0;
  long long it = 0;
  int decide_slot = -1;
  bool check = false;
  int check_slot = 0, clear_slot = -1;
  int zline_lanes = 0;  // zline: 0 auto, 1, 32 (Sor3DArgs)
};
// The sweep of box b's p with the coefficients coef (Sor3DArgs::zline_args: scratch, zline's
// factors, is null for the other designs; extent: the values of one scratch array), as l says.
template <class T>
void launch_sor3d_sweep(const T* coef, T* p, pf_box3 b, T omega, T threshold, unsigned long long* ctrl, T* scratch,
                        long extent, const SorLaunch& l, cudaStream_t stream);

// zline: the factors of every column (both colours) into scratch (core/physics/sor3d.h)
template <class T>
void launch_sor3d_factor(const T* coef, T* scratch, long extent, pf_box3 b, cudaStream_t stream);

// The operator of the colour-packed coefficients as CSR with 7 entries a row (rows and columns
// i + nx (j + ny k); a missing neighbour is an explicit 0 on the row's own column, so every row has
// the same length): row_ptr (cells + 1), col, val (7 cells each).
template <class T>
void launch_sor3d_csr(const T* coef, pf_box3 b, int* row_ptr, int* col, T* val, cudaStream_t stream);

}  // namespace poreflow::cu
