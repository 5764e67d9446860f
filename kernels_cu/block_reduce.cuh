#pragma once
// Block-level reductions shared by the reduce and jacobi1d kernels (twin: kernels_cl/block_reduce.cl).
//   block_reduce_tree: paper 000's five shared-memory trees (after Harris), one value per thread.
//   block_reduce_shfl: warp shuffles, then one shared slot per warp; what Fast uses.
// Both return the block's result in thread 0 only; every thread of the block must call them
// (they contain __syncthreads), and the block size must be a power of two >= 32.
#include <cuda_runtime.h>

#include "core/kernels/reduce.hpp"

namespace poreflow::cu {

constexpr unsigned kFullMask = 0xffffffffu;

// Accumulator ops. MaxOp/MinOp are used on unsigned keys (launch.hpp), SumOp on T.
struct SumOp {
  template <class A>
  __device__ __forceinline__ A operator()(A x, A y) const { return x + y; }
};
struct MaxOp {
  template <class A>
  __device__ __forceinline__ A operator()(A x, A y) const { return x > y ? x : y; }
};
struct MinOp {
  template <class A>
  __device__ __forceinline__ A operator()(A x, A y) const { return x < y ? x : y; }
};

// Sum/max/min of the 32 lanes of a warp into lane 0. All 32 lanes must be present.
template <class A, class Op>
__device__ __forceinline__ A warp_reduce(A v, Op op) {
#pragma unroll
  for (int off = 16; off > 0; off >>= 1) v = op(v, __shfl_down_sync(kFullMask, v, off));
  return v;
}

// Paper variants. `s` holds blockDim.x values of A; B is the block size when it is a template
// parameter (CompleteUnroll), 0 otherwise.
template <ReduceVariant V, int B, class A, class Op>
__device__ __forceinline__ A block_reduce_tree(A v, A* s, Op op) {
  const unsigned tid = threadIdx.x;
  const unsigned nb = B > 0 ? unsigned(B) : blockDim.x;
  s[tid] = v;
  __syncthreads();
  if constexpr (V == ReduceVariant::InterleavedDivergent) {
    // stride doubles; the active threads are every (2*stride)-th: divergent warps
    for (unsigned st = 1; st < nb; st *= 2) {
      if (tid % (2 * st) == 0) s[tid] = op(s[tid], s[tid + st]);
      __syncthreads();
    }
    return tid == 0 ? s[0] : v;
  } else if constexpr (V == ReduceVariant::Interleaved) {
    // contiguous active threads, but index 2*stride*tid makes them hit the same banks
    for (unsigned st = 1; st < nb; st *= 2) {
      const unsigned idx = 2 * st * tid;
      if (idx < nb) s[idx] = op(s[idx], s[idx + st]);
      __syncthreads();
    }
    return tid == 0 ? s[0] : v;
  } else if constexpr (V == ReduceVariant::Sequential) {
    // halve the active range each step: contiguous threads, conflict-free addresses
    for (unsigned st = nb / 2; st > 0; st >>= 1) {
      if (tid < st) s[tid] = op(s[tid], s[tid + st]);
      __syncthreads();
    }
    return tid == 0 ? s[0] : v;
  } else if constexpr (V == ReduceVariant::UnrollLastWarp) {
    for (unsigned st = nb / 2; st > 32; st >>= 1) {
      if (tid < st) s[tid] = op(s[tid], s[tid + st]);
      __syncthreads();
    }
    // The last warp without __syncthreads. Since Volta the lanes of a warp are not guaranteed to
    // run in lockstep, so the paper's implicit warp synchrony is replaced by __syncwarp between
    // each read and the write that follows it (volatile keeps the values out of registers).
    if (tid < 32) {
      volatile A* vs = s;
#pragma unroll
      for (unsigned st = 32; st > 0; st >>= 1) {
        if (st >= nb) continue;  // a 32-thread block starts at 16
        A x = v;
        if (tid < st) x = op(vs[tid], vs[tid + st]);
        __syncwarp();
        if (tid < st) vs[tid] = x;
        __syncwarp();
      }
      return tid == 0 ? vs[0] : v;
    }
    return v;
  } else if constexpr (V == ReduceVariant::CompleteUnroll) {
    static_assert(B >= 32 && B <= 1024 && (B & (B - 1)) == 0, "CompleteUnroll needs a compile-time block size");
    // every step is resolved at compile time; the last warp uses shuffles
    if constexpr (B >= 1024) {
      if (tid < 512) s[tid] = op(s[tid], s[tid + 512]);
      __syncthreads();
    }
    if constexpr (B >= 512) {
      if (tid < 256) s[tid] = op(s[tid], s[tid + 256]);
      __syncthreads();
    }
    if constexpr (B >= 256) {
      if (tid < 128) s[tid] = op(s[tid], s[tid + 128]);
      __syncthreads();
    }
    if constexpr (B >= 128) {
      if (tid < 64) s[tid] = op(s[tid], s[tid + 64]);
      __syncthreads();
    }
    if (tid < 32) {
      A x = s[tid];
      if constexpr (B >= 64) x = op(x, s[tid + 32]);
      return warp_reduce(x, op);
    }
    return v;
  } else {
    static_assert(V == ReduceVariant::CompleteUnroll, "not a block_reduce_tree variant");
    return v;
  }
}

// Fast: shuffle within each warp, one shared slot per warp, shuffle again in warp 0.
// `warp_res` holds B / 32 values; a caller that reuses it must __syncthreads in between.
template <int B, class A, class Op>
__device__ __forceinline__ A block_reduce_shfl(A v, A identity, Op op, A* warp_res) {
  static_assert(B >= 32 && B <= 1024 && B % 32 == 0, "block size");
  constexpr int kWarps = B / 32;
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  v = warp_reduce(v, op);
  if (lane == 0) warp_res[warp] = v;
  __syncthreads();
  if (warp == 0) {
    v = lane < kWarps ? warp_res[lane] : identity;
    v = warp_reduce(v, op);
  }
  return v;
}

}  // namespace poreflow::cu
