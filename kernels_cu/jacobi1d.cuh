#pragma once
// Launch wrappers of the jacobi1d family (kernels_cu/jacobi1d.cu; twin kernels_cl/jacobi1d.cl).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/kernels/reduce.hpp"

namespace poreflow::cu {

// Fast: persistent grid of kJacobiBlock threads, each updating kJacobiPoints points per sweep.
constexpr int kJacobiBlock = 256;
constexpr int kJacobiPoints = 4;
constexpr int kJacobiBlocksPerSM = 4;

std::size_t jacobi_grid(ReduceVariant v, int block, std::size_t n, int sm_count);

// One iteration; the host works out its roles (core/kernels/jacobi1d.hpp, fused_plan):
// decide_slot >= 0: decide convergence from that ring slot first; check: reduce the metric into
// check_slot (atomically, and block 0 zeroes clear_slot) or, with partials, one value per block.
struct JacobiLaunch {
  ReduceVariant variant = ReduceVariant::Fast;
  int block = 512;
  std::size_t grid = 0;  // from jacobi_grid
  long long it = 0;
  int decide_slot = -1;
  bool check = false;
  int check_slot = 0, clear_slot = 0;
  void* partials = nullptr;  // Combine::Host: grid entries of the metric's bits; nullptr: atomic
};
// The iteration reading p and writing q (Jacobi1DArgs::kernel_args), as l says.
template <class T>
void launch_jacobi1d(const T* p, T* q, const T* mface, std::size_t n, T p_left, T p_right, T threshold, int residual,
                     unsigned long long* ctrl, const JacobiLaunch& l, cudaStream_t stream);

}  // namespace poreflow::cu
