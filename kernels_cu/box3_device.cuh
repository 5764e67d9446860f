#pragma once
// The CUDA side of the 3D box loop (core/kernels/box3.hpp): one way to cover a box with a launch,
// shared by every 3D family. March: 2D blocks over (i, j), each thread walking a chunk of layers;
// Blocks3D: 3D blocks, one cell per thread. Each block takes a contiguous chunk of the layers
// (nz / gridDim.z, rounded up) and its threads in z stride through it, so the same device loop
// serves both.
#include <cuda_runtime.h>

#include <algorithm>

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

}  // namespace poreflow::cu
