#pragma once
// Launch wrappers of the CUDA kernels in kernels_cu/*.cu, the only door from the host side
// (backends/cuda, compiled by the C++ compiler) into device code. Each wrapper enqueues its
// kernel(s) on `stream` and returns at once; it does not check errors, the caller does
// (PF_CHECK_LAUNCH after the call, which sees any launch error of the wrapper's launches).
// Float and double are instantiated in the .cu files.
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include "core/kernels/common.h"
#include "core/types.hpp"

namespace poreflow::cu {

// ---- reduction values -----------------------------------------------------------------------
// Sum accumulates in T. Every max/min accumulates order-preserving unsigned keys of the IEEE
// bits, so that the device can combine them with integer atomicMax/atomicMin and a block-level
// max is an integer max: key = sign ? ~bits : bits | signbit orders keys like the values
// (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN). A max therefore propagates +NaN.
// bits_t is the unsigned type of a T's size (the types CUDA's atomics take).
template <class T>
using bits_t = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;

PF_FN unsigned int order_key(unsigned int bits) { return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u); }
PF_FN unsigned long long order_key(unsigned long long bits) {
  return (bits & 0x8000000000000000ull) ? ~bits : (bits | 0x8000000000000000ull);
}
PF_FN unsigned int key_bits(unsigned int key) { return (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key; }
PF_FN unsigned long long key_bits(unsigned long long key) {
  return (key & 0x8000000000000000ull) ? (key & 0x7fffffffffffffffull) : ~key;
}

// ---- reduce ---------------------------------------------------------------------------------
// Fast: a persistent grid of kFastBlock threads, at most kFastMaxGrid blocks (the partials the
// last block combines), about kFastBlocksPerSM per SM.
constexpr int kFastBlock = 256;
constexpr int kFastBlocksPerSM = 4;
constexpr int kFastMaxGrid = 1024;

// Blocks a reduction of n > 0 elements launches: one element per thread for the paper variants,
// the persistent grid for Fast.
std::size_t reduce_grid(ReduceVariant v, int block, std::size_t n, int sm_count);

struct ReduceLaunch {
  ReduceOp op = ReduceOp::Sum;
  ReduceVariant variant = ReduceVariant::Fast;
  int block = 512;         // paper variants; Fast uses kFastBlock
  std::size_t grid = 0;    // from reduce_grid
  const void* a = nullptr;
  const void* b = nullptr;  // MaxAbsDiff only
  std::size_t n = 0;
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
template <class T>
void launch_reduce(const ReduceLaunch& l, cudaStream_t stream);

// CUB's DeviceReduce on the same ops, the result (a T value, not a key) in *out. Called once with
// temp == nullptr to get temp_bytes (CUB's convention). Returns CUB's error code.
template <class T>
cudaError_t cub_reduce(ReduceOp op, const T* a, const T* b, std::size_t n, T* out, void* temp, std::size_t& temp_bytes,
                       cudaStream_t stream);

// dst[0, n) = value
template <class T>
void launch_fill(T* dst, T value, std::size_t n, cudaStream_t stream);

// y[0, n) += alpha x[0, n)
template <class T>
void launch_axpy(std::size_t n, T alpha, const T* x, T* y, cudaStream_t stream);

// ---- jacobi1d -------------------------------------------------------------------------------
// Fast: persistent grid of kJacobiBlock threads, each updating kJacobiPoints points per sweep.
constexpr int kJacobiBlock = 256;
constexpr int kJacobiPoints = 4;
constexpr int kJacobiBlocksPerSM = 4;

std::size_t jacobi_grid(ReduceVariant v, int block, std::size_t n, int sm_count);

// One iteration. The host works out the iteration's roles (see CudaBackend::jacobi1d_iterate):
// decide_slot >= 0: decide convergence from that ring slot first; check: reduce the metric into
// check_slot (atomically, and block 0 zeroes clear_slot) or, with partials, one key per block.
struct JacobiLaunch {
  ReduceVariant variant = ReduceVariant::Fast;
  int block = 512;
  std::size_t grid = 0;  // from jacobi_grid
  const void* p = nullptr;
  void* q = nullptr;
  const void* mface = nullptr;
  std::size_t n = 0;
  double p_left = 0, p_right = 0, threshold = 0;
  bool residual = false;
  long long it = 0;
  int decide_slot = -1;
  bool check = false;
  int check_slot = 0, clear_slot = 0;
  unsigned long long* ctrl = nullptr;
  void* partials = nullptr;  // Combine::Host: grid entries of bits_t<T>; nullptr: atomic
};
template <class T>
void launch_jacobi1d(const JacobiLaunch& l, cudaStream_t stream);

// ---- bl1d -----------------------------------------------------------------------------------
template <class T>
void launch_bl_face_mobility(const T* s, T* mface, std::size_t n, T k, T mu_w, T mu_o, cudaStream_t stream);
template <class T>
void launch_bl_face_velocity(const T* p, const T* mface, T* u, std::size_t n, T inv_h, cudaStream_t stream);
template <class T>
void launch_bl_saturation(const T* s_old, const T* u, T* s_new, std::size_t n, T c, T s_inj, T mu_w, T mu_o,
                          cudaStream_t stream);

// the 1D pressure equation as one tridiagonal system (bl1d's tridiag pressure solver)
template <class T>
void launch_bl_pressure_system(const T* mface, std::size_t n, T p_left, T p_right, T* a, T* b, T* c, T* d,
                               cudaStream_t stream);

// ---- tridiag --------------------------------------------------------------------------------
// Batched tridiagonal solves (kernels_cu/tridiag.cuh describes the kernels and the plan).

// Overrides of the plan's choices, for benchmarks; 0 (split: -1) leaves the choice to the plan.
struct TridiagTuning {
  int rows = 0;    // rows per thread: 4, 8 or 16 (pcr, pcr_thomas: 4 or 8)
  int group = 0;   // systems per block
  int split = -1;  // at least this many PCR levels in global memory before the on-chip solve
  int stop = 0;    // cr_pcr: equations left when CR across threads hands over to PCR
};

struct TridiagLaunch {
  TridiagAlgo algo = TridiagAlgo::CrPcr;  // a concrete algorithm, not Auto
  TridiagLayout layout = TridiagLayout::Contiguous;
  std::size_t n = 0, batch = 0;  // both > 0
  const void *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
  void* x = nullptr;
  void* scratch = nullptr;            // tridiag_scratch_bytes() bytes (nullptr when 0)
  std::size_t max_smem = 48 * 1024;   // the device's opt-in shared memory per block
  int sm_count = 1;                   // the device's multiprocessors
  TridiagTuning tune;
};

// Scratch the launch needs: c' of Thomas, or the arrays of the global PCR levels.
template <class T>
std::size_t tridiag_scratch_bytes(const TridiagLaunch& l);
// One line naming the kernels and their configuration, for benchmark logs.
template <class T>
std::string tridiag_describe(const TridiagLaunch& l);
template <class T>
void launch_tridiag(const TridiagLaunch& l, cudaStream_t stream);
// The cuda backend's Auto rule (documented in tridiag.cu and docs/tridiag.md).
TridiagAlgo tridiag_auto(Precision prec, TridiagLayout layout, std::size_t n, std::size_t batch);

// cuSPARSE solves in place and wants the ignored couplings zero: x = d, a0 = a with a[first] = 0,
// c0 = c with c[last] = 0, and b0 = b unless b0 is null (gtsvInterleavedBatch takes its
// diagonals as writable arrays, so it gets copies).
template <class T>
void launch_tridiag_vendor_prep(const T* a, const T* b, const T* c, const T* d, T* a0, T* b0, T* c0, T* x,
                                std::size_t n, std::size_t batch, TridiagLayout layout, cudaStream_t stream);

}  // namespace poreflow::cu
