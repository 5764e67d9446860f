#pragma once
// Launch wrappers of the reduce family (kernels_cu/reduce.cu; twin kernels_cl/reduce.cl): paper
// 000's five block variants, poreflow's Fast reduction and CUB's DeviceReduce. Each wrapper
// enqueues on `stream` and returns at once; the caller checks the launch (PF_CHECK_LAUNCH).
#include <cuda_runtime_api.h>

#include <cstddef>

#include "core/kernels/reduce.hpp"

namespace poreflow::cu {

// Fast: a persistent grid of kFastBlock threads, at most kFastMaxGrid blocks (the partials the
// last block combines), about kFastBlocksPerSM per SM.
constexpr int kFastBlock = 256;
constexpr int kFastBlocksPerSM = 4;
constexpr int kFastMaxGrid = 1024;

// How the kernels hold an op's values: min and max as order keys (kernels_cu/order_key.hpp), the
// non-negative max_abs and max_abs_diff as plain bits, sums as T.
inline bool uses_order_key(ReduceOp op) { return op == ReduceOp::Min || op == ReduceOp::Max; }

// Blocks a reduction of n > 0 elements launches: one element per thread for the paper variants,
// the persistent grid for Fast.
std::size_t reduce_grid(ReduceVariant v, int block, std::size_t n, int sm_count);

struct ReduceLaunch {
  ReduceOp op = ReduceOp::Sum;
  ReduceVariant variant = ReduceVariant::Fast;
  int block = 512;       // paper variants; Fast uses kFastBlock
  std::size_t grid = 0;  // from reduce_grid
  // Combine::Host: each block writes its partial (T for Sum, a key otherwise) to partials[block].
  // Combine::Atomic, paper variants: blocks combine atomically into *result, which the caller
  // initialises (0 for sums and maxima, all ones for minima).
  // Combine::Atomic, Fast: blocks write partials (kFastMaxGrid entries), the last block to finish
  // (counted in *counter, which it leaves at 0) writes *result.
  bool host_combine = false;
  void* partials = nullptr;
  void* result = nullptr;
  unsigned int* counter = nullptr;
};
// The reduction of a[0, n) (b: MaxAbsDiff's second input, else null; ReduceArgs::kernel_args).
template <class T>
void launch_reduce(const T* a, const T* b, std::size_t n, const ReduceLaunch& l, cudaStream_t stream);

// CUB's DeviceReduce on the same ops, the result (a T value, not a key) in *out. Called once with
// temp == nullptr to get temp_bytes (CUB's convention). Returns CUB's error code.
template <class T>
cudaError_t cub_reduce(ReduceOp op, const T* a, const T* b, std::size_t n, T* out, void* temp, std::size_t& temp_bytes,
                       cudaStream_t stream);

// CUB's dot product: *out = sum of x[i] y[i] (DeviceReduce::Sum over the products, as the vec
// family's vendor dot). The same temp convention.
template <class T>
cudaError_t cub_dot(const T* x, const T* y, std::size_t n, T* out, void* temp, std::size_t& temp_bytes, cudaStream_t stream);

}  // namespace poreflow::cu
