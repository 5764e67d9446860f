#pragma once
// The CUDA side of the 3D box loop (core/kernels/box3.hpp): one way to cover a box with a launch,
// shared by every 3D family. March: 2D blocks over (i, j), each thread walking k; Blocks3D: 3D
// blocks, one cell per thread. The k loop strides by the grid's extent in z, so the same device
// loop serves both (gridDim.z == 1 marches).
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
  if (s.kind == BoxLaunch::March) {
    g.block = dim3(s.bx, s.by, 1);
    g.grid = dim3(blocks(nx, s.bx), std::min(blocks(ny, s.by), 65535u), 1);
  } else {
    g.block = dim3(s.bx, s.by, s.bz);
    g.grid = dim3(blocks(nx, s.bx), std::min(blocks(ny, s.by), 65535u), std::min(blocks(nz, s.bz), 65535u));
  }
  return g;
}

// f(i, j, k) for this thread's cells of nx x ny x nz (inside a kernel launched with box_grid).
template <class F>
__device__ __forceinline__ void box_for_each(long nx, long ny, long nz, F&& f) {
  const long i = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= nx) return;
  for (long j = static_cast<long>(blockIdx.y) * blockDim.y + threadIdx.y; j < ny;
       j += static_cast<long>(gridDim.y) * blockDim.y)
    for (long k = static_cast<long>(blockIdx.z) * blockDim.z + threadIdx.z; k < nz;
         k += static_cast<long>(gridDim.z) * blockDim.z)
      f(i, j, k);
}

}  // namespace poreflow::cu
