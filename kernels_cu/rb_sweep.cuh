#pragma once
// The colour-sweep skeleton of the red-black families (sor3d's simple design, fluids3d's
// lin_solve; twin: kernels_cl/rb_sweep.cl): one thread per cell of a colour over (half-row index,
// row, layer) of core/base/rb3.h's numbering, 1D blocks of BX x BY (x BZ) threads mapped onto
// the box by hand so that a block's check is one linear reduction; march shapes walk a chunk of
// layers per block: sized for about one wave of resident blocks (sor3d_kchunk), or the family's
// own rule (layers_of(nz, blocks over a layer, threads, sm_count), fluids3d).
#include <cuda_runtime.h>

#include <algorithm>
#include <string>

#include "core/base/error.hpp"
#include "core/kernels/box3.hpp"
#include "core/base/rb3.h"
#include "core/kernels/sor3d.hpp"

namespace poreflow::cu {

// the block's shape and its layers, as the kernel sees them
struct RbSweepShape {
  int bx = 32, by = 8, bz = 1;
  long kchunk = 1;
  bool flat = false;  // a march block's threads cover consecutive cells of a layer (rb_sweep_rows)
};

struct RbSweepLaunch {
  RbSweepShape shape;
  dim3 grid;
  int threads = 0;
};

// The launch of a colour sweep of box b with launch shape s on a device of sm_count SMs. flat (march
// shapes, for rb_sweep_rows<I, true>; the family decides, fluids3d_flat_sweep): a block's bx by
// threads take consecutive cells of a colour's layer, rows joined, rather than a bx x by tile.
inline RbSweepLaunch rb_sweep_launch(const pf_box3& b, const BoxShape& s, int sm_count, const char* what,
                                     long (*layers_of)(long, long, int, int) = nullptr, bool flat = false) {
  auto blocks = [](long n, int per) { return static_cast<unsigned>(std::max<long>(1, (n + per - 1) / per)); };
  const bool march = s.kind == BoxLaunch::March;
  RbSweepLaunch l;
  l.shape.bx = s.bx;
  l.shape.by = s.by;
  l.shape.bz = march ? 1 : s.bz;
  l.threads = s.bx * s.by * l.shape.bz;
  l.shape.flat = march && flat;
  const unsigned gx = l.shape.flat ? blocks(phys::pf_rb_hx(b) * b.ny, l.threads) : blocks(phys::pf_rb_hx(b), s.bx);
  const unsigned gy = l.shape.flat ? 1u : std::min(blocks(b.ny, s.by), 65535u);
  const auto rule = layers_of ? layers_of : sor3d_kchunk;
  l.shape.kchunk = march ? rule(b.nz, static_cast<long>(gx) * gy, l.threads, sm_count) : s.bz;
  const unsigned gz = std::min(static_cast<unsigned>((b.nz + l.shape.kchunk - 1) / l.shape.kchunk), 65535u);
  if (!march && gz * static_cast<long>(l.shape.kchunk) < b.nz)
    throw BackendError(std::string(what) + ": " + std::to_string(b.nz) + " layers need more than 65535 blocks in z with " +
                       to_string(s));
  l.grid = dim3(gx, gy, gz);
  return l;
}

// f(ih, j, k) for this thread's cells of colour `colour` (inside a kernel launched with
// rb_sweep_launch as 1D blocks of RbSweepLaunch::threads)
template <class F>
__device__ __forceinline__ void rb_sweep_cells(const pf_box3& b, int colour, const RbSweepShape& s, F&& f) {
  const int tid = threadIdx.x, tx = tid % s.bx, ty = (tid / s.bx) % s.by, tz = tid / (s.bx * s.by);
  const long ih = static_cast<long>(blockIdx.x) * s.bx + tx;
  if (ih >= phys::pf_rb_hx(b)) return;
  const long k0 = static_cast<long>(blockIdx.z) * s.kchunk, k1 = (k0 + s.kchunk < b.nz) ? k0 + s.kchunk : b.nz;
  for (long j = static_cast<long>(blockIdx.y) * s.by + ty; j < b.ny; j += static_cast<long>(gridDim.y) * s.by)
#pragma unroll 2  // two layers' loads in flight per thread
    for (long k = k0 + tz; k < k1; k += s.bz)
      if (phys::pf_rb_present(b, colour, ih, j, k)) f(ih, j, k);
}

// The same walk for kernels that address colour-packed arrays by steps: f(ih, i, j, k, row) with
// row = (k ny + j) hx, the start of row (j, k) in a colour's half, in index type I (int when the
// arrays fit: half the registers of long, which the GPU needs for resident threads); a thread's
// layers are walked by adding planes to row, PF_RB_UNROLL of them unrolled (core/base/rb3.h).
// Flat (a launch with RbSweepShape::flat): thread q of the launch's x takes cell q of each layer of
// its chunk, rows joined, so no thread idles at the end of a row: a tile of 32 over rows of
// hx = 84 half-cells (N = 168) left 12 of every 96 threads without a cell.
template <class I, bool Flat, class F>
__device__ __forceinline__ void rb_sweep_rows(const pf_box3& b, int colour, const RbSweepShape& s, F&& f) {
  const int tid = threadIdx.x, tx = tid % s.bx, ty = (tid / s.bx) % s.by, tz = tid / (s.bx * s.by);
  const I hx = static_cast<I>(phys::pf_rb_hx(b)), nx = static_cast<I>(b.nx), ny = static_cast<I>(b.ny);
  if constexpr (Flat) {
    const I plane = ny * hx, q = static_cast<I>(blockIdx.x) * static_cast<I>(blockDim.x) + static_cast<I>(tid);
    if (q >= plane) return;
    const I j = q / hx, ih = q - j * hx;
    const I kc = static_cast<I>(s.kchunk), k0 = static_cast<I>(blockIdx.z) * kc, k1 = min(k0 + kc, static_cast<I>(b.nz));
    I row = k0 * plane + j * hx;
    PF_RB_PRAGMA(unroll PF_RB_UNROLL)
    for (I k = k0; k < k1; ++k, row += plane) {
      const I i = 2 * ih + ((colour + j + k) & 1);
      if (i < nx) f(ih, i, j, k, row);
    }
    return;
  }
  const I ih = static_cast<I>(blockIdx.x) * s.bx + tx;
  if (ih >= hx) return;
  const I kc = static_cast<I>(s.kchunk), k0 = static_cast<I>(blockIdx.z) * kc, k1 = min(k0 + kc, static_cast<I>(b.nz));
  const I plane = ny * hx, step = plane * s.bz;
  for (I j = static_cast<I>(blockIdx.y) * s.by + ty; j < ny; j += static_cast<I>(gridDim.y) * s.by) {
    I row = ((k0 + tz) * ny + j) * hx;
    PF_RB_PRAGMA(unroll PF_RB_UNROLL)
    for (I k = k0 + tz; k < k1; k += s.bz, row += step) {
      const I i = 2 * ih + ((colour + j + k) & 1);
      if (i < nx) f(ih, i, j, k, row);
    }
  }
}

}  // namespace poreflow::cu
