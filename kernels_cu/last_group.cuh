#pragma once
// One-launch reductions whose result does not depend on the order the blocks ran in (vec's dot
// products, stencil7's singular row; twin: kernels_cl/last_group.cl). Every block writes its
// partials (thread 0) to partials[q * gridDim.x + blockIdx.x], then counts itself; the block that
// counts last reads every partial in block order and writes the results. atomicInc wraps the
// counter back to 0 for the next launch. No floating-point atomics: a launch of the same shape
// gives the same bits every run.
#include <cuda_runtime.h>

#include "kernels_cu/block_reduce.cuh"

namespace poreflow::cu {

// the block size of every kernel that uses these
constexpr int kLastBlock = 256;

// true in every thread of the block that counted last; every block's partials are visible to it
__device__ __forceinline__ bool last_block(unsigned int* counter) {
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();
  const bool l = last;
  if (l) __threadfence();
  return l;
}

// this block's sum of v into partials[q * gridDim.x + blockIdx.x]; warp_res reusable after
template <class T>
__device__ __forceinline__ void partial_sum(T v, T* partials, int q, T* warp_res) {
  v = block_reduce_shfl<kLastBlock>(v, T(0), SumOp{}, warp_res);
  if (threadIdx.x == 0) partials[static_cast<std::size_t>(q) * gridDim.x + blockIdx.x] = v;
  __syncthreads();
}

// in the last block: the sum of value q's partials in block order; valid in thread 0
template <class T>
__device__ __forceinline__ T final_sum(const T* partials, int q, T* warp_res) {
  const T* p = partials + static_cast<std::size_t>(q) * gridDim.x;
  T v = T(0);
  for (unsigned g = threadIdx.x; g < gridDim.x; g += kLastBlock) v += __ldcg(p + g);  // L2: other blocks wrote them
  v = block_reduce_shfl<kLastBlock>(v, T(0), SumOp{}, warp_res);
  __syncthreads();
  return v;
}

// the minimum of v over the launch into *word (partials: one word per block)
__device__ __forceinline__ void launch_min_u64(unsigned long long v, unsigned long long* word, unsigned long long* partials,
                                               unsigned int* counter) {
  __shared__ unsigned long long warp_res[kLastBlock / 32];
  constexpr unsigned long long kNone = ~0ull;
  v = block_reduce_shfl<kLastBlock>(v, kNone, MinOp{}, warp_res);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
  __syncthreads();
  if (!last_block(counter)) return;
  v = kNone;
  for (unsigned g = threadIdx.x; g < gridDim.x; g += kLastBlock) v = min(v, __ldcg(partials + g));
  v = block_reduce_shfl<kLastBlock>(v, kNone, MinOp{}, warp_res);
  if (threadIdx.x == 0) *word = v;
}

}  // namespace poreflow::cu
