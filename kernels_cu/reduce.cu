// The reduce family (twin: kernels_cl/reduce.cl): paper 000's five block variants, poreflow's
// Fast reduction, and CUB's DeviceReduce for comparison.
#include <cub/device/device_reduce.cuh>
#include <cuda/std/limits>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include "core/base/error.hpp"
#include "kernels_cu/block_reduce.cuh"
#include "kernels_cu/order_key.hpp"
#include "kernels_cu/reduce.cuh"

namespace poreflow::cu {
namespace {

// a launch with its data: launch_reduce's arguments
struct ReduceRun : ReduceLaunch {
  const void* a = nullptr;
  const void* b = nullptr;  // MaxAbsDiff only
  std::size_t n = 0;
};

__device__ __forceinline__ unsigned int to_bits(float v) { return __float_as_uint(v); }
__device__ __forceinline__ unsigned long long to_bits(double v) {
  return static_cast<unsigned long long>(__double_as_longlong(v));
}

// What an op reduces: the accumulator A (T for Sum; for Min and Max an order key; for MaxAbs and
// MaxAbsDiff the bits of the non-negative value, which order like it without a key), how one
// element becomes an A, the identity, the combine and the device-wide atomic combine.
template <class T, ReduceOp OP>
struct Red {
  static constexpr bool kBinary = OP == ReduceOp::MaxAbsDiff;
  using A = std::conditional_t<OP == ReduceOp::Sum, T, bits_t<T>>;
  using Combine = std::conditional_t<OP == ReduceOp::Sum, SumOp, std::conditional_t<OP == ReduceOp::Min, MinOp, MaxOp>>;

  __device__ static A identity() {
    if constexpr (OP == ReduceOp::Sum) return T(0);
    else if constexpr (OP == ReduceOp::Min) return order_key(to_bits(cuda::std::numeric_limits<T>::infinity()));
    else if constexpr (OP == ReduceOp::Max) return order_key(to_bits(-cuda::std::numeric_limits<T>::infinity()));
    else return A(0);  // the bits of +0
  }
  __device__ static A element(T x, T y) {
    if constexpr (OP == ReduceOp::Sum) return x;
    else if constexpr (OP == ReduceOp::Min || OP == ReduceOp::Max) return order_key(to_bits(x));
    else if constexpr (OP == ReduceOp::MaxAbs) return to_bits(fabs(x));
    else return to_bits(fabs(x - y));
  }
  __device__ static void atomic(A* slot, A v) {
    if constexpr (OP == ReduceOp::Sum) atomicAdd(slot, v);
    else if constexpr (OP == ReduceOp::Min) atomicMin(slot, v);
    else atomicMax(slot, v);
  }
};

// ---- paper variants: one element per thread, a shared-memory tree per block ------------------

template <class T, ReduceOp OP, ReduceVariant V, int B>
__global__ void reduce_paper_kernel(const T* __restrict__ a, const T* __restrict__ b, std::size_t n, bool host_combine,
                                    typename Red<T, OP>::A* __restrict__ partials, typename Red<T, OP>::A* result) {
  using R = Red<T, OP>;
  using A = typename R::A;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  A* s = reinterpret_cast<A*>(smem_raw);
  const std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  A v = R::identity();
  if (i < n) {
    if constexpr (R::kBinary) v = R::element(a[i], b[i]);
    else v = R::element(a[i], a[i]);
  }
  v = block_reduce_tree<V, B>(v, s, typename R::Combine{});
  if (threadIdx.x == 0) {
    if (host_combine) partials[blockIdx.x] = v;
    else R::atomic(result, v);
  }
}

template <class T, ReduceOp OP, ReduceVariant V, int B>
void launch_paper(const ReduceRun& l, cudaStream_t stream) {
  using R = Red<T, OP>;
  using A = typename R::A;
  const std::size_t smem = static_cast<std::size_t>(l.block) * sizeof(A);
  reduce_paper_kernel<T, OP, V, B><<<static_cast<unsigned>(l.grid), static_cast<unsigned>(l.block), smem, stream>>>(
      static_cast<const T*>(l.a), static_cast<const T*>(l.b), l.n, l.host_combine, static_cast<A*>(l.partials),
      static_cast<A*>(l.result));
}

// ---- Fast: persistent grid, 16-byte loads, independent accumulators, one pass -----------------

template <class T>
struct Vec;
template <>
struct Vec<float> {
  using type = float4;
  static constexpr int W = 4;
};
template <>
struct Vec<double> {
  using type = double2;
  static constexpr int W = 2;
};

template <class R, class A>
__device__ __forceinline__ A fold(A acc, float4 x, float4 y) {
  typename R::Combine op;
  acc = op(acc, R::element(x.x, y.x));
  acc = op(acc, R::element(x.y, y.y));
  acc = op(acc, R::element(x.z, y.z));
  return op(acc, R::element(x.w, y.w));
}
template <class R, class A>
__device__ __forceinline__ A fold(A acc, double2 x, double2 y) {
  typename R::Combine op;
  acc = op(acc, R::element(x.x, y.x));
  return op(acc, R::element(x.y, y.y));
}

constexpr int kFastUnroll = 4;  // independent loads (per input) in flight per thread
static_assert(kFastUnroll >= 2, "the tail uses a second accumulator");

template <class T, ReduceOp OP, bool VEC>
__global__ void __launch_bounds__(kFastBlock)
    reduce_fast_kernel(const T* __restrict__ a, const T* __restrict__ b, std::size_t n, bool host_combine,
                       typename Red<T, OP>::A* partials, typename Red<T, OP>::A* result, unsigned int* counter) {
  using R = Red<T, OP>;
  using A = typename R::A;
  const typename R::Combine op;
  constexpr int U = kFastUnroll;
  A acc[U];
#pragma unroll
  for (int u = 0; u < U; ++u) acc[u] = R::identity();
  const std::size_t gtid = static_cast<std::size_t>(blockIdx.x) * kFastBlock + threadIdx.x;
  const std::size_t stride = static_cast<std::size_t>(gridDim.x) * kFastBlock;

  if constexpr (VEC) {
    using V = typename Vec<T>::type;
    constexpr int W = Vec<T>::W;
    const V* av = reinterpret_cast<const V*>(a);
    const V* bv = reinterpret_cast<const V*>(R::kBinary ? b : a);
    const std::size_t nv = n / W;
    std::size_t i = gtid;
    // U vectors of each input are loaded before any is used, so their latencies overlap
    for (; i + (U - 1) * stride < nv; i += U * stride) {
      V xa[U], xb[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        xa[u] = av[i + u * stride];
        if constexpr (R::kBinary) xb[u] = bv[i + u * stride];
      }
#pragma unroll
      for (int u = 0; u < U; ++u) {
        if constexpr (R::kBinary) acc[u] = fold<R>(acc[u], xa[u], xb[u]);
        else acc[u] = fold<R>(acc[u], xa[u], xa[u]);
      }
    }
    for (; i < nv; i += stride) {
      const V xa = av[i];
      if constexpr (R::kBinary) acc[0] = fold<R>(acc[0], xa, bv[i]);
      else acc[0] = fold<R>(acc[0], xa, xa);
    }
    // the n % W elements after the last whole vector
    const std::size_t t = nv * W + gtid;
    if (t < n) {
      if constexpr (R::kBinary) acc[1] = op(acc[1], R::element(a[t], b[t]));
      else acc[1] = op(acc[1], R::element(a[t], a[t]));
    }
  } else {
    std::size_t i = gtid;
    for (; i + (U - 1) * stride < n; i += U * stride) {
      T xa[U], xb[U];
#pragma unroll
      for (int u = 0; u < U; ++u) {
        xa[u] = a[i + u * stride];
        xb[u] = R::kBinary ? b[i + u * stride] : xa[u];
      }
#pragma unroll
      for (int u = 0; u < U; ++u) acc[u] = op(acc[u], R::element(xa[u], xb[u]));
    }
    for (; i < n; i += stride) {
      if constexpr (R::kBinary) acc[0] = op(acc[0], R::element(a[i], b[i]));
      else acc[0] = op(acc[0], R::element(a[i], a[i]));
    }
  }

  A v = acc[0];
#pragma unroll
  for (int u = 1; u < U; ++u) v = op(v, acc[u]);
  __shared__ A warp_res[kFastBlock / 32];
  v = block_reduce_shfl<kFastBlock>(v, R::identity(), op, warp_res);
  if (threadIdx.x == 0) partials[blockIdx.x] = v;
  if (host_combine) return;  // the host combines the partials (uniform branch)

  // One pass: the last block to finish combines the partials. Its writer fences before counting,
  // so a block that sees the count reach gridDim.x - 1 sees every partial; atomicInc wraps the
  // counter back to 0, ready for the next call.
  __shared__ bool last;
  if (threadIdx.x == 0) {
    __threadfence();
    last = atomicInc(counter, gridDim.x - 1) == gridDim.x - 1;
  }
  __syncthreads();  // also separates the two uses of warp_res
  if (!last) return;
  __threadfence();
  v = R::identity();
  for (unsigned j = threadIdx.x; j < gridDim.x; j += kFastBlock) v = op(v, __ldcg(partials + j));  // L2, not L1
  v = block_reduce_shfl<kFastBlock>(v, R::identity(), op, warp_res);
  if (threadIdx.x == 0) *result = v;
}

template <class T, ReduceOp OP>
void launch_fast(const ReduceRun& l, cudaStream_t stream) {
  using A = typename Red<T, OP>::A;
  const T* a = static_cast<const T*>(l.a);
  const T* b = static_cast<const T*>(l.b);
  // 16-byte loads need 16-byte aligned inputs; cudaMalloc gives 256, but do not rely on callers
  const bool aligned = reinterpret_cast<std::uintptr_t>(a) % 16 == 0 &&
                       (OP != ReduceOp::MaxAbsDiff || reinterpret_cast<std::uintptr_t>(b) % 16 == 0);
  auto args = [&](auto kernel) {
    kernel<<<static_cast<unsigned>(l.grid), kFastBlock, 0, stream>>>(a, b, l.n, l.host_combine, static_cast<A*>(l.partials),
                                                                   static_cast<A*>(l.result), l.counter);
  };
  if (aligned) args(reduce_fast_kernel<T, OP, true>);
  else args(reduce_fast_kernel<T, OP, false>);
}

template <class T, ReduceOp OP>
void launch_op(const ReduceRun& l, cudaStream_t stream) {
  using RV = ReduceVariant;
  switch (l.variant) {
    case RV::InterleavedDivergent: return launch_paper<T, OP, RV::InterleavedDivergent, 0>(l, stream);
    case RV::Interleaved: return launch_paper<T, OP, RV::Interleaved, 0>(l, stream);
    case RV::Sequential: return launch_paper<T, OP, RV::Sequential, 0>(l, stream);
    case RV::UnrollLastWarp: return launch_paper<T, OP, RV::UnrollLastWarp, 0>(l, stream);
    case RV::CompleteUnroll:
      switch (l.block) {
        case 32: return launch_paper<T, OP, RV::CompleteUnroll, 32>(l, stream);
        case 64: return launch_paper<T, OP, RV::CompleteUnroll, 64>(l, stream);
        case 128: return launch_paper<T, OP, RV::CompleteUnroll, 128>(l, stream);
        case 256: return launch_paper<T, OP, RV::CompleteUnroll, 256>(l, stream);
        case 512: return launch_paper<T, OP, RV::CompleteUnroll, 512>(l, stream);
        case 1024: return launch_paper<T, OP, RV::CompleteUnroll, 1024>(l, stream);
        default: break;
      }
      break;
    case RV::Fast: return launch_fast<T, OP>(l, stream);
    default: break;
  }
  // the backend validates configurations first (check_reduce_config); this is a programming error
  throw BackendError("launch_reduce: unsupported variant or block size");
}

// ---- CUB -------------------------------------------------------------------------------------

template <class T>
struct AbsOf {
  __host__ __device__ T operator()(T x) const { return fabs(x); }
};
template <class T>
struct AbsDiffAt {
  const T* a;
  const T* b;
  __host__ __device__ T operator()(long long i) const { return fabs(a[i] - b[i]); }
};

template <class T>
struct ProductAt {
  const T* x;
  const T* y;
  __host__ __device__ T operator()(long long i) const { return x[i] * y[i]; }
};

template <class T, class N>
cudaError_t cub_reduce_n(ReduceOp op, const T* a, const T* b, N n, T* out, void* temp, std::size_t& bytes,
                         cudaStream_t stream) {
  switch (op) {
    case ReduceOp::Sum: return cub::DeviceReduce::Sum(temp, bytes, a, out, n, stream);
    case ReduceOp::Min: return cub::DeviceReduce::Min(temp, bytes, a, out, n, stream);
    case ReduceOp::Max: return cub::DeviceReduce::Max(temp, bytes, a, out, n, stream);
    case ReduceOp::MaxAbs:
      return cub::DeviceReduce::Max(temp, bytes, thrust::make_transform_iterator(a, AbsOf<T>{}), out, n, stream);
    case ReduceOp::MaxAbsDiff: {
      auto it = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), AbsDiffAt<T>{a, b});
      return cub::DeviceReduce::Max(temp, bytes, it, out, n, stream);
    }
  }
  return cudaErrorInvalidValue;
}

}  // namespace

std::size_t reduce_grid(ReduceVariant v, int block, std::size_t n, int sm_count) {
  if (v == ReduceVariant::Fast) {
    // at least ~16 elements per thread before the grid grows; then about kFastBlocksPerSM per SM
    const std::size_t want = (n + kFastBlock * 16 - 1) / (kFastBlock * 16);
    const std::size_t cap = std::min<std::size_t>(static_cast<std::size_t>(kFastBlocksPerSM) * std::max(sm_count, 1),
                                                  kFastMaxGrid);
    return std::max<std::size_t>(1, std::min(want, cap));
  }
  return (n + static_cast<std::size_t>(block) - 1) / static_cast<std::size_t>(block);
}

template <class T>
void launch_reduce(const T* a, const T* b, std::size_t n, const ReduceLaunch& launch, cudaStream_t stream) {
  ReduceRun l;
  static_cast<ReduceLaunch&>(l) = launch;
  l.a = a;
  l.b = b;
  l.n = n;
  switch (l.op) {
    case ReduceOp::Sum: return launch_op<T, ReduceOp::Sum>(l, stream);
    case ReduceOp::Min: return launch_op<T, ReduceOp::Min>(l, stream);
    case ReduceOp::Max: return launch_op<T, ReduceOp::Max>(l, stream);
    case ReduceOp::MaxAbs: return launch_op<T, ReduceOp::MaxAbs>(l, stream);
    case ReduceOp::MaxAbsDiff: return launch_op<T, ReduceOp::MaxAbsDiff>(l, stream);
  }
}

template <class T>
cudaError_t cub_reduce(ReduceOp op, const T* a, const T* b, std::size_t n, T* out, void* temp, std::size_t& temp_bytes,
                       cudaStream_t stream) {
  // 32-bit offsets when they suffice: that is what CUB is fastest with
  if (n <= static_cast<std::size_t>(cuda::std::numeric_limits<int>::max()))
    return cub_reduce_n<T>(op, a, b, static_cast<int>(n), out, temp, temp_bytes, stream);
  return cub_reduce_n<T>(op, a, b, static_cast<long long>(n), out, temp, temp_bytes, stream);
}

template <class T>
cudaError_t cub_dot(const T* x, const T* y, std::size_t n, T* out, void* temp, std::size_t& temp_bytes, cudaStream_t stream) {
  auto it = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), ProductAt<T>{x, y});
  if (n <= static_cast<std::size_t>(cuda::std::numeric_limits<int>::max()))
    return cub::DeviceReduce::Sum(temp, temp_bytes, it, out, static_cast<int>(n), stream);
  return cub::DeviceReduce::Sum(temp, temp_bytes, it, out, static_cast<long long>(n), stream);
}

template void launch_reduce<float>(const float*, const float*, std::size_t, const ReduceLaunch&, cudaStream_t);
template void launch_reduce<double>(const double*, const double*, std::size_t, const ReduceLaunch&, cudaStream_t);
template cudaError_t cub_reduce<float>(ReduceOp, const float*, const float*, std::size_t, float*, void*, std::size_t&,
                                       cudaStream_t);
template cudaError_t cub_reduce<double>(ReduceOp, const double*, const double*, std::size_t, double*, void*,
                                        std::size_t&, cudaStream_t);
template cudaError_t cub_dot<float>(const float*, const float*, std::size_t, float*, void*, std::size_t&, cudaStream_t);
template cudaError_t cub_dot<double>(const double*, const double*, std::size_t, double*, void*, std::size_t&, cudaStream_t);

}  // namespace poreflow::cu
