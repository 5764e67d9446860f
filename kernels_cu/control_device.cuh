#pragma once
// Device-side pieces of the convergence control (core/base/converge.h) that every iterative
// family's kernels share: the fused stop decision at a launch's start and the check's commit of a
// block maximum into its slot. Twin: kernels_cl/control.cl.
#include <cuda_runtime.h>

#include "core/base/converge.h"
#include "kernels_cu/block_reduce.cuh"
#include "kernels_cu/order_key.hpp"

namespace poreflow::cu {

// True when this launch must do nothing: stopped before, or stopping now on the check whose
// metric is in decide_slot (< 0: none). Thread 0 reads the control block once for its block
// (every warp reading the one hot line costs more than an iteration at large grids) and shares the
// answer, so the decision is uniform within a block by construction; across blocks it is the same
// too (pf_cv_fused_stop). Block 0 records it. Every thread of the block must call this.
template <class T>
__device__ __forceinline__ bool cv_fused_stopped(unsigned long long* ctrl, long long it, int decide_slot, T threshold) {
  __shared__ int stop;
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0)
    stop = phys::pf_cv_fused_stop<T>(ctrl, static_cast<long>(it), decide_slot, threshold, PF_CV_TEST,
                                     blockIdx.x == 0 && blockIdx.y == 0 && blockIdx.z == 0);
  __syncthreads();
  return stop != 0;
}

// A guarded launch: true once the control stopped (nothing to do). Uniform across the launch.
__device__ __forceinline__ bool cv_stopped(const unsigned long long* ctrl) {
  return ctrl && !phys::pf_cv_running(ctrl);
}

// The first thread of a block hands in the block's max m (the bits of a non-negative T, so NaN
// wins): atomically into the check's slot (a float in the slot word's low half, little-endian),
// block 0 zeroing the next check's slot; or, with partials, one value per block for the host.
template <class T>
__device__ __forceinline__ void cv_commit_max(unsigned long long* ctrl, int check_slot, int clear_slot, bits_t<T> m,
                                              bits_t<T>* partials, unsigned block) {
  if (partials) {
    partials[block] = m;
    return;
  }
  unsigned long long* slot = ctrl + PF_CV_SLOT0 + check_slot;
  if constexpr (sizeof(T) == 4) atomicMax(reinterpret_cast<unsigned int*>(slot), m);
  else atomicMax(slot, m);
  if (block == 0) ctrl[PF_CV_SLOT0 + clear_slot] = 0;
}

// A whole block's check: each thread brings the bits of its non-negative metric (0 when it has
// none); the block's max goes into the slot. B: threads per block (a multiple of 32); every
// thread must call this.
template <int B, class T>
__device__ __forceinline__ void cv_check_block(unsigned long long* ctrl, int check_slot, int clear_slot, bits_t<T> m) {
  using K = bits_t<T>;
  __shared__ K warp_res[B / 32];
  m = block_reduce_shfl<B>(m, K(0), MaxOp{}, warp_res);
  const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
  if (threadIdx.x == 0 && threadIdx.y == 0 && threadIdx.z == 0) cv_commit_max<T>(ctrl, check_slot, clear_slot, m, nullptr, block);
}

// The same for a block of any shape whose threads, counted linearly (tid = x + bx (y + by z)),
// are `threads` in all, a multiple of 32 up to 1024; every thread must call this.
template <class T>
__device__ __forceinline__ void cv_check_block_any(unsigned long long* ctrl, int check_slot, int clear_slot, bits_t<T> m,
                                                   int tid, int threads) {
  using K = bits_t<T>;
  __shared__ K warp_res[32];
  m = warp_reduce(m, MaxOp{});
  if ((tid & 31) == 0) warp_res[tid >> 5] = m;
  __syncthreads();
  if (tid < 32) {
    m = tid < (threads >> 5) ? warp_res[tid] : K(0);
    m = warp_reduce(m, MaxOp{});
    const unsigned block = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if (tid == 0) cv_commit_max<T>(ctrl, check_slot, clear_slot, m, nullptr, block);
  }
}

__device__ __forceinline__ unsigned int metric_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned long long metric_bits(double v) {
  return static_cast<unsigned long long>(__double_as_longlong(v));
}

}  // namespace poreflow::cu
