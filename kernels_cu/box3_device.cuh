#pragma once
// The CUDA side of the 3D box loop (core/kernels/box3.hpp): one way to cover a box with a launch,
// shared by every 3D family. March: 2D blocks over (i, j), each thread walking a chunk of layers;
// Blocks3D: 3D blocks, one cell per thread. Each block takes a contiguous chunk of the layers
// (nz / gridDim.z, rounded up) and its threads in z stride through it, so the same device loop
// serves both.
#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "core/kernels/box3.hpp"

namespace poreflow::cu {

struct BoxGrid {
  dim3 grid, block;
};

// The launch covering nx x ny x nz cells with shape s.
inline BoxGrid box_grid(long nx, long ny, long nz, const BoxShape& s) {
  auto blocks = [](long n, int b) { return static_cast<unsigned>(std::max<long>(1, (n + b - 1) / b)); };
  BoxGrid g;
  g.block = dim3(s.bx, s.by, s.kind == BoxLaunch::March ? 1 : s.bz);
  g.grid = dim3(blocks(nx, s.bx), std::min(blocks(ny, s.by), 65535u), static_cast<unsigned>(box_blocks_z(nz, s)));
  return g;
}

// f(i, j, k) for this thread's cells of nx x ny x nz (inside a kernel launched with box_grid).
template <class F>
__device__ __forceinline__ void box_for_each(long nx, long ny, long nz, F&& f) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= nx) return;
  const long kc = (nz + gridDim.z - 1) / gridDim.z, k0 = static_cast<long>(blockIdx.z) * kc, k1 = k0 + kc < nz ? k0 + kc : nz;
  for (long j = static_cast<long>(blockIdx.y) * blockDim.y + threadIdx.y; j < ny;
       j += static_cast<long>(gridDim.y) * blockDim.y)
    for (long k = k0 + threadIdx.z; k < k1; k += blockDim.z) f(i, j, k);
}

// f(i, j, k, at) for this thread's cells of all of box b (a launch of box_grid over its cells), at
// being the cell's index in b's arrays: the loop of box_for_each in index type I (int where
// box_narrow_index), with at stepped from layer to layer rather than recomputed. Measured per kernel
// (tools/device/experiments/fl_box_variants.cu, H100, 168^3 float): fluids3d's gradient 129 -> 87 us,
// pack 22.5 -> 16.9, divergence 36 -> 31.5; but advect 60 -> 76 and unpack 28 -> 37, which keep
// box_for_each. Unrolling the layer loop added registers and time.
template <class I, class F>
__device__ __forceinline__ void box_for_each_at(const pf_box3& b, F&& f) {
  const I nx = static_cast<I>(b.nx), ny = static_cast<I>(b.ny), nz = static_cast<I>(b.nz);
  const I sy = static_cast<I>(b.sy), sz = static_cast<I>(b.sz);
  const I i = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x);
  if (i >= nx) return;
  const I kc = (nz + static_cast<I>(gridDim.z) - 1) / static_cast<I>(gridDim.z), k0 = static_cast<I>(blockIdx.z) * kc;
  const I k1 = k0 + kc < nz ? k0 + kc : nz, kz = static_cast<I>(threadIdx.z), bz = static_cast<I>(blockDim.z);
  for (I j = static_cast<I>(blockIdx.y) * static_cast<I>(blockDim.y) + static_cast<I>(threadIdx.y); j < ny;
       j += static_cast<I>(gridDim.y) * static_cast<I>(blockDim.y)) {
    I at = static_cast<I>(b.off) + i + j * sy + (k0 + kz) * sz;
    for (I k = k0 + kz; k < k1; k += bz, at += bz * sz) f(i, j, k, at);
  }
}

// kernel<..., int> or kernel<..., long long> over all of box b, as box_narrow_index(b, shape) says:
// launch_box_at(k32, k64, b, shape, stream, args...) with k32 and k64 the two instances.
template <class... A>
void launch_box_at(void (*k32)(A...), void (*k64)(A...), const pf_box3& b, const BoxShape& shape, cudaStream_t stream,
                   std::type_identity_t<A>... args) {
  const BoxGrid g = box_grid(b.nx, b.ny, b.nz, shape);
  (box_narrow_index(b, shape) ? k32 : k64)<<<g.grid, g.block, 0, stream>>>(args...);
}

}  // namespace poreflow::cu
