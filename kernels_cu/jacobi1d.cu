// The jacobi1d family (twin: kernels_cl/jacobi1d.cl): one fused launch per Jacobi iteration of the
// 1D pressure equation, with the convergence decision and the check's max-reduction on the device.
// Semantics: backends/host/jacobi1d.cpp; the control: core/base/converge.h. The metric is
// reduced as the unsigned bit pattern of a non-negative number, so NaN (above +inf) wins every max
// and a NaN run stops instead of passing the threshold test.

#include "core/base/error.hpp"
#include "core/physics/bl1d.h"
#include "kernels_cu/control_device.cuh"
#include "kernels_cu/jacobi1d.cuh"

namespace poreflow::cu {
namespace {

template <class T>
struct JacobiParams {
  const T* p;
  T* q;
  const T* mf;
  std::size_t n;
  T p_left, p_right, thr;
  int residual;
  long long it;
  int decide_slot;  // < 0: not an iteration after a check
  int check_slot, clear_slot;
  unsigned long long* ctrl;
  bits_t<T>* partials;  // Combine::Host; nullptr: atomic
};

template <class T>
__device__ __forceinline__ bool jacobi_stopped(const JacobiParams<T>& prm) {
  return cv_fused_stopped<T>(prm.ctrl, prm.it, prm.decide_slot, prm.thr);
}

template <class T>
__device__ __forceinline__ void commit_check(const JacobiParams<T>& prm, bits_t<T> m) {
  cv_commit_max<T>(prm.ctrl, prm.check_slot, prm.clear_slot, m, prm.partials, blockIdx.x);
}

// Paper variants: one point per thread, the block's max by the chosen shared-memory tree.
// Iterations that are not checks skip the reduction (and use one instantiation for all variants).
template <class T, ReduceVariant V, int B, bool CHECK>
__global__ void jacobi_paper_kernel(JacobiParams<T> prm) {
  using K = bits_t<T>;
  if (jacobi_stopped(prm)) return;
  const T* __restrict__ p = prm.p;
  T* __restrict__ q = prm.q;
  const T* __restrict__ mf = prm.mf;
  const std::size_t n = prm.n;
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  K m = 0;  // the metric is >= 0, whose smallest bit pattern is 0
  if (i == 0) {
    q[0] = prm.p_left;
  } else if (i == n - 1) {
    q[i] = prm.p_right;
  } else if (i < n) {
    const T ml = mf[i - 1], mr = mf[i];
    const T v = phys::bl_jacobi_point<T>(p[i - 1], p[i + 1], ml, mr);
    q[i] = v;
    if constexpr (CHECK) m = metric_bits(phys::bl_jacobi_metric<T>(v, p[i], ml, mr, prm.residual));
  }
  if constexpr (CHECK) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    m = block_reduce_tree<V, B>(m, reinterpret_cast<K*>(smem_raw), MaxOp{});
    if (threadIdx.x == 0) commit_check(prm, m);
  }
}

// Fast: a persistent grid; each thread updates kJacobiPoints points a block-width apart per sweep
// (loads of all of them first, so they are in flight together); neighbours come from L1.
template <class T, bool CHECK>
__global__ void __launch_bounds__(kJacobiBlock) jacobi_fast_kernel(JacobiParams<T> prm) {
  using K = bits_t<T>;
  constexpr int U = kJacobiPoints;
  if (jacobi_stopped(prm)) return;
  const T* __restrict__ p = prm.p;
  T* __restrict__ q = prm.q;
  const T* __restrict__ mf = prm.mf;
  const std::size_t n = prm.n;
  const std::size_t tile = static_cast<std::size_t>(kJacobiBlock) * U;
  K m = 0;
  for (std::size_t base = blockIdx.x * tile; base < n; base += gridDim.x * tile) {
    T pw[U], pc[U], pe[U], ml[U], mr[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::size_t i = base + u * kJacobiBlock + threadIdx.x;
      pw[u] = pc[u] = pe[u] = ml[u] = mr[u] = T(0);
      if (i >= 1 && i + 1 < n) {
        pw[u] = p[i - 1];
        pc[u] = p[i];
        pe[u] = p[i + 1];
        ml[u] = mf[i - 1];
        mr[u] = mf[i];
      }
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::size_t i = base + u * kJacobiBlock + threadIdx.x;
      if (i >= 1 && i + 1 < n) {
        const T v = phys::bl_jacobi_point<T>(pw[u], pe[u], ml[u], mr[u]);
        q[i] = v;
        if constexpr (CHECK) {
          const K d = metric_bits(phys::bl_jacobi_metric<T>(v, pc[u], ml[u], mr[u], prm.residual));
          m = d > m ? d : m;
        }
      } else if (i == 0) {
        q[0] = prm.p_left;
      } else if (i == n - 1) {
        q[i] = prm.p_right;
      }
    }
  }
  if constexpr (CHECK) {
    __shared__ K warp_res[kJacobiBlock / 32];
    m = block_reduce_shfl<kJacobiBlock>(m, K(0), MaxOp{}, warp_res);
    if (threadIdx.x == 0) commit_check(prm, m);
  }
}

template <class T, ReduceVariant V, int B>
void launch_paper_check(const JacobiParams<T>& prm, const JacobiLaunch& l, cudaStream_t stream) {
  const std::size_t smem = static_cast<std::size_t>(l.block) * sizeof(bits_t<T>);
  jacobi_paper_kernel<T, V, B, true><<<static_cast<unsigned>(l.grid), static_cast<unsigned>(l.block), smem, stream>>>(prm);
}

}  // namespace

std::size_t jacobi_grid(ReduceVariant v, int block, std::size_t n, int sm_count) {
  if (v == ReduceVariant::Fast) {
    const std::size_t tile = static_cast<std::size_t>(kJacobiBlock) * kJacobiPoints;
    const std::size_t want = (n + tile - 1) / tile;
    const std::size_t cap = static_cast<std::size_t>(kJacobiBlocksPerSM) * static_cast<std::size_t>(std::max(sm_count, 1));
    return std::max<std::size_t>(1, std::min(want, cap));
  }
  return (n + static_cast<std::size_t>(block) - 1) / static_cast<std::size_t>(block);
}

template <class T>
void launch_jacobi1d(const T* p, T* q, const T* mface, std::size_t n, T p_left, T p_right, T threshold, int residual,
                     unsigned long long* ctrl, const JacobiLaunch& l, cudaStream_t stream) {
  JacobiParams<T> prm;
  prm.p = p;
  prm.q = q;
  prm.mf = mface;
  prm.n = n;
  prm.p_left = p_left;
  prm.p_right = p_right;
  prm.thr = threshold;
  prm.residual = residual;
  prm.it = l.it;
  prm.decide_slot = l.decide_slot;
  prm.check_slot = l.check_slot;
  prm.clear_slot = l.clear_slot;
  prm.ctrl = ctrl;
  prm.partials = static_cast<bits_t<T>*>(l.partials);
  const unsigned grid = static_cast<unsigned>(l.grid);
  using RV = ReduceVariant;

  if (l.variant == RV::Fast) {
    if (l.check) jacobi_fast_kernel<T, true><<<grid, kJacobiBlock, 0, stream>>>(prm);
    else jacobi_fast_kernel<T, false><<<grid, kJacobiBlock, 0, stream>>>(prm);
    return;
  }
  if (!l.check) {
    jacobi_paper_kernel<T, RV::Sequential, 0, false><<<grid, static_cast<unsigned>(l.block), 0, stream>>>(prm);
    return;
  }
  switch (l.variant) {
    case RV::InterleavedDivergent: return launch_paper_check<T, RV::InterleavedDivergent, 0>(prm, l, stream);
    case RV::Interleaved: return launch_paper_check<T, RV::Interleaved, 0>(prm, l, stream);
    case RV::Sequential: return launch_paper_check<T, RV::Sequential, 0>(prm, l, stream);
    case RV::UnrollLastWarp: return launch_paper_check<T, RV::UnrollLastWarp, 0>(prm, l, stream);
    case RV::CompleteUnroll:
      switch (l.block) {
        case 32: return launch_paper_check<T, RV::CompleteUnroll, 32>(prm, l, stream);
        case 64: return launch_paper_check<T, RV::CompleteUnroll, 64>(prm, l, stream);
        case 128: return launch_paper_check<T, RV::CompleteUnroll, 128>(prm, l, stream);
        case 256: return launch_paper_check<T, RV::CompleteUnroll, 256>(prm, l, stream);
        case 512: return launch_paper_check<T, RV::CompleteUnroll, 512>(prm, l, stream);
        case 1024: return launch_paper_check<T, RV::CompleteUnroll, 1024>(prm, l, stream);
        default: break;
      }
      break;
    default: break;
  }
  // the backend validates configurations first (check_reduce_config); this is a programming error
  throw BackendError("launch_jacobi1d: unsupported variant or block size");
}

template void launch_jacobi1d<float>(const float*, float*, const float*, std::size_t, float, float, float, int,
                                     unsigned long long*, const JacobiLaunch&, cudaStream_t);
template void launch_jacobi1d<double>(const double*, double*, const double*, std::size_t, double, double, double, int,
                                      unsigned long long*, const JacobiLaunch&, cudaStream_t);

}  // namespace poreflow::cu
