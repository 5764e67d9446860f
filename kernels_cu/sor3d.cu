// The sor3d family (twin: kernels_cl/sor3d.cl): red-black SOR sweeps with the fused convergence
// check. Semantics: backends/host/sor3d.cpp; the point update: core/physics/sor3d.h.
//
// Both designs run 1D blocks of BX x BY (x BZ) threads, mapped onto the box by hand, so the
// block's check is one linear reduction. Launches are guarded: once the control block says stop,
// every block returns at once (cv_fused_stopped, uniform per block).
#include <algorithm>

#include "core/base/error.hpp"
#include "core/physics/sor3d.h"
#include "kernels_cu/control_device.cuh"
#include "kernels_cu/rb_sweep.cuh"
#include "kernels_cu/sor3d.cuh"

namespace poreflow::cu {
namespace {

template <class T>
struct SorParams {
  const T* __restrict__ coef;
  T* __restrict__ p;
  pf_box3 b;
  T omega, thr;
  int colour;
  long long it;
  int decide_slot, check_slot, clear_slot;
  unsigned long long* ctrl;
  int bx, by, bz;  // the block's shape
  long kchunk;     // layers per block along k (march and tiled)
  int pitch;       // tiled: padded row of a plane, in values
  T* scratch;      // zline
  long E;
};

// Simple: one thread per cell of the colour, over (half-row index, row, layer); march shapes walk
// their chunk of layers (the colour-sweep skeleton shared with fluids3d, kernels_cu/rb_sweep.cuh).
template <class T, bool CHECK>
__global__ void sor_simple_kernel(SorParams<T> prm) {
  using K = bits_t<T>;
  if (cv_fused_stopped<T>(prm.ctrl, prm.it, prm.decide_slot, prm.thr)) return;
  K m = 0;
  const RbSweepShape shape{prm.bx, prm.by, prm.bz, prm.kchunk};
  rb_sweep_cells(prm.b, prm.colour, shape, [&](long ih, long j, long k) {
    const T r = phys::sor_point<T>(prm.coef, prm.p, prm.b, prm.colour, ih, j, k, prm.omega);
    if constexpr (CHECK) {
      const K d = metric_bits(r);
      m = d > m ? d : m;
    }
  });
  if constexpr (CHECK) cv_check_block_any<T>(prm.ctrl, prm.check_slot, prm.clear_slot, m, threadIdx.x, blockDim.x);
}

// Tiled (paper 003): a block of BX x BY threads owns a tile of BX half-rows (2 BX cells in i) by
// BY rows and marches through its chunk of layers. The planes k - 1, k, k + 1 of p over the tile
// and its one-cell rim sit in shared memory, each plane as two parity sub-planes (even and odd i)
// of padded rows: the cell a thread updates and its i +- 1 neighbours are then consecutive values
// across the threads of a row, free of bank conflicts. Every plane is loaded once per chunk.
template <class T, bool CHECK>
__global__ void __launch_bounds__(512) sor_tiled_kernel(SorParams<T> prm) {
  using K = bits_t<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* sm = reinterpret_cast<T*>(smem_raw);
  if (cv_fused_stopped<T>(prm.ctrl, prm.it, prm.decide_slot, prm.thr)) return;
  const pf_box3 b = prm.b;
  const int bx = prm.bx, by = prm.by, pitch = prm.pitch;
  const int tid = threadIdx.x, tx = tid % bx, ty = tid / bx;
  const int c = prm.colour;
  const long hx = phys::pf_rb_hx(b);
  const long ih = static_cast<long>(blockIdx.x) * bx + tx;
  const long i0 = 2L * blockIdx.x * bx;  // the tile's first cell in i (even)
  const long sub = static_cast<long>(by + 2) * pitch;  // values of one parity sub-plane
  const long plane = 2 * sub;
  // the value of (parity par, tile row r = j - j0 + 1, half-column h in [-1, bx]) of a plane
  auto slot = [&](int par, int r, int h) { return par * sub + r * pitch + (h + 1); };
  // p at (i, j, k), 0 outside the box and its one-cell halo (never used: coefficient 0)
  auto get = [&](long i, long j, long k) -> T {
    return (i >= -1 && i <= b.nx && j >= -1 && j <= b.ny && k >= -1 && k <= b.nz) ? prm.p[phys::pf_box_at(b, i, j, k)] : T(0);
  };
  K m = 0;
  const long k0 = static_cast<long>(blockIdx.z) * prm.kchunk, k1 = (k0 + prm.kchunk < b.nz) ? k0 + prm.kchunk : b.nz;
  for (long j0 = static_cast<long>(blockIdx.y) * by; j0 < b.ny; j0 += static_cast<long>(gridDim.y) * by) {
    const long j = j0 + ty;
    auto load = [&](long k) {
      T* s = sm + ((k + 3) % 3) * plane;
      const long i = i0 + 2 * tx;
      s[slot(0, ty + 1, tx)] = get(i, j, k);
      s[slot(1, ty + 1, tx)] = get(i + 1, j, k);
      if (tx == 0) s[slot(1, ty + 1, -1)] = get(i0 - 1, j, k);
      if (tx == bx - 1) s[slot(0, ty + 1, bx)] = get(i0 + 2 * bx, j, k);
      if (ty == 0) {
        s[slot(0, 0, tx)] = get(i, j0 - 1, k);
        s[slot(1, 0, tx)] = get(i + 1, j0 - 1, k);
      }
      if (ty == by - 1) {
        s[slot(0, by + 1, tx)] = get(i, j0 + by, k);
        s[slot(1, by + 1, tx)] = get(i + 1, j0 + by, k);
      }
    };
    __syncthreads();  // the previous tile row's last reads are done
    load(k0 - 1);
    load(k0);
    for (long k = k0; k < k1; ++k) {
      load(k + 1);
      __syncthreads();
      if (ih < hx && j < b.ny && phys::pf_rb_present(b, c, ih, j, k)) {
        const int s = static_cast<int>(phys::pf_rb_shift(c, j, k));  // the cell's parity (i0 is even)
        const T* pc = sm + ((k + 3) % 3) * plane;
        const T* pb = sm + ((k + 2) % 3) * plane;
        const T* pt = sm + ((k + 4) % 3) * plane;
        const long q = phys::pf_rb_at(b, c, ih, j, k), m2 = 2 * phys::pf_rb_m(b);
        const T* cf = prm.coef;
        const T own = pc[slot(s, ty + 1, tx)];
        const T d = cf[q + PF_SOR_D * m2];
        const T res = phys::sor_residual<T>(cf[q + PF_SOR_W * m2], cf[q + PF_SOR_E * m2], cf[q + PF_SOR_S * m2],
                                            cf[q + PF_SOR_N * m2], cf[q + PF_SOR_B * m2], cf[q + PF_SOR_T * m2], d,
                                            cf[q + PF_SOR_R * m2], own, pc[slot(1 - s, ty + 1, tx + s - 1)],
                                            pc[slot(1 - s, ty + 1, tx + s)], pc[slot(s, ty, tx)], pc[slot(s, ty + 2, tx)],
                                            pb[slot(s, ty + 1, tx)], pt[slot(s, ty + 1, tx)]);
        prm.p[phys::pf_box_at(b, 2 * ih + s, j, k)] = own + prm.omega * res / d;
        if constexpr (CHECK) {
          const K r = metric_bits(fabs(res));
          m = r > m ? r : m;
        }
      }
      __syncthreads();  // the plane below is overwritten next
    }
  }
  if constexpr (CHECK) cv_check_block_any<T>(prm.ctrl, prm.check_slot, prm.clear_slot, m, tid, blockDim.x);
}

// Zline: one thread per column of the colour, the columns (half-row index, row) numbered along
// the rows so that a block's threads read consecutive values. A thread's column is a chain of
// dependent steps: small blocks spread the columns over every SM.
template <class T, bool CHECK>
__global__ void __launch_bounds__(256) sor_zline_kernel(SorParams<T> prm) {
  using K = bits_t<T>;
  if (cv_fused_stopped<T>(prm.ctrl, prm.it, prm.decide_slot, prm.thr)) return;
  const pf_box3 b = prm.b;
  const int tid = threadIdx.x;
  const long hx = phys::pf_rb_hx(b), columns = hx * b.ny;
  K m = 0;
  for (long col = static_cast<long>(blockIdx.x) * blockDim.x + tid; col < columns;
       col += static_cast<long>(gridDim.x) * blockDim.x) {
    const long ih = col % hx, j = col / hx;
    if (2 * ih + ((prm.colour + j) & 1) < b.nx) {
      const T r = phys::sor_zline_column<T>(prm.coef, prm.p, prm.scratch, prm.E, b, prm.colour, ih, j, prm.omega);
      if constexpr (CHECK) {
        const K d = metric_bits(r);
        m = d > m ? d : m;
      }
    }
  }
  if constexpr (CHECK) cv_check_block_any<T>(prm.ctrl, prm.check_slot, prm.clear_slot, m, tid, blockDim.x);
}

// Zline, a warp per column (few columns: case 2 has 1386 a colour, 44 warps' worth as a thread
// per column, far from filling an H100): the warp's lanes load 32 layers at once (one latency
// instead of a chain of them) and every lane runs the column's Thomas chain on values passed by
// shuffles, keeping its own layer's result. The arithmetic is sor_zline_column's, in its order.
template <class T, bool CHECK>
__global__ void __launch_bounds__(256) sor_zline_warp_kernel(SorParams<T> prm) {
  using K = bits_t<T>;
  if (cv_fused_stopped<T>(prm.ctrl, prm.it, prm.decide_slot, prm.thr)) return;
  constexpr unsigned kAll = 0xffffffffu;
  const pf_box3 b = prm.b;
  const int lane = threadIdx.x & 31;
  const long hx = phys::pf_rb_hx(b), columns = hx * b.ny, m2 = 2 * phys::pf_rb_m(b), E = prm.E;
  const long warps = static_cast<long>(gridDim.x) * (blockDim.x >> 5);
  const T* __restrict__ cf = prm.coef;
  T* __restrict__ p = prm.p;
  T* __restrict__ sc = prm.scratch;
  K m = 0;
  for (long col = static_cast<long>(blockIdx.x) * (blockDim.x >> 5) + (threadIdx.x >> 5); col < columns; col += warps) {
    const long ih = col % hx, j = col / hx, i = 2 * ih + ((prm.colour + j) & 1);
    if (i >= b.nx) continue;  // the same for the whole warp
    T dp = 0;
    for (long k0 = 0; k0 < b.nz; k0 += 32) {
      const long k = k0 + lane;
      const int n = b.nz - k0 < 32 ? static_cast<int>(b.nz - k0) : 32;
      T lb = 0, li = 0, lr = 0;
      long at = 0;
      if (k < b.nz) {
        const long q = phys::pf_rb_of(b, i, j, k);
        at = phys::pf_box_at(b, i, j, k);
        const T w = cf[q + PF_SOR_W * m2], e = cf[q + PF_SOR_E * m2], s = cf[q + PF_SOR_S * m2], nn = cf[q + PF_SOR_N * m2],
                bo = cf[q + PF_SOR_B * m2], t = cf[q + PF_SOR_T * m2], d = cf[q + PF_SOR_D * m2], r = cf[q + PF_SOR_R * m2];
        const T pw = p[at - 1], pe = p[at + 1], ps = p[at - b.sy], pn = p[at + b.sy];
        const T res = phys::sor_residual<T>(w, e, s, nn, bo, t, d, r, p[at], pw, pe, ps, pn, p[at - b.sz], p[at + b.sz]);
        if constexpr (CHECK) {
          const K x = metric_bits(fabs(res));
          m = x > m ? x : m;
        }
        lb = bo;
        li = sc[E + at];
        lr = r + ((w * pw + e * pe) + (s * ps + nn * pn));
      }
      T mine = 0;
#pragma unroll
      for (int u = 0; u < 32; ++u) {
        const T bu = __shfl_sync(kAll, lb, u), iu = __shfl_sync(kAll, li, u), ru = __shfl_sync(kAll, lr, u);
        if (u < n) dp = (ru + bu * dp) * iu;
        if (u == lane) mine = dp;
      }
      if (k < b.nz) sc[2 * E + at] = mine;
    }
    __syncwarp();
    T x = 0;
    for (long k1 = b.nz - 1; k1 >= 0; k1 -= 32) {
      const long k = k1 - lane;
      const int n = k1 + 1 < 32 ? static_cast<int>(k1 + 1) : 32;
      T lc = 0, lq = 0, lo = 0;
      long at = 0;
      if (k >= 0) {
        at = phys::pf_box_at(b, i, j, k);
        lc = sc[at];
        lq = sc[2 * E + at];
        lo = p[at];
      }
      T mine = 0;
#pragma unroll
      for (int u = 0; u < 32; ++u) {
        const T cu = __shfl_sync(kAll, lc, u), qu = __shfl_sync(kAll, lq, u);
        if (u < n) x = qu - cu * x;
        if (u == lane) mine = x;
      }
      if (k >= 0) p[at] = lo + prm.omega * (mine - lo);
    }
  }
  if constexpr (CHECK) cv_check_block_any<T>(prm.ctrl, prm.check_slot, prm.clear_slot, m, threadIdx.x, blockDim.x);
}

unsigned blocks_of(long n, int b) { return static_cast<unsigned>(std::max<long>(1, (n + b - 1) / b)); }

template <class T, bool CHECK>
void launch(const SorLaunch& l, SorParams<T>& prm, cudaStream_t stream) {
  const BoxShape& s = l.shape;
  const long hx = phys::pf_rb_hx(prm.b);
  const unsigned gx = blocks_of(hx, s.bx), gy = std::min(blocks_of(prm.b.ny, s.by), 65535u);
  prm.bx = s.bx;
  prm.by = s.by;
  if (l.design == SorDesign::Zline) {
    const int threads = s.bx * s.by;
    // a warp per column (sor_zline_warp_kernel) where a thread per column leaves the device idle
    const long columns = hx * prm.b.ny;
    if (sor3d_zline_wide(l.zline_lanes, columns, l.sm_count, true)) {
      const unsigned blocks = static_cast<unsigned>(std::min<long>(blocks_of(columns, threads / 32), 1L << 30));
      sor_zline_warp_kernel<T, CHECK><<<blocks, threads, 0, stream>>>(prm);
      return;
    }
    const unsigned blocks = static_cast<unsigned>(std::min<long>(blocks_of(hx * prm.b.ny, threads), 1L << 30));
    sor_zline_kernel<T, CHECK><<<blocks, threads, 0, stream>>>(prm);
    return;
  }
  if (l.design == SorDesign::Tiled) {
    const int threads = s.bx * s.by;
    prm.bz = 1;
    prm.pitch = sor3d_tile_pitch(s.bx);
    prm.kchunk = sor3d_kchunk(prm.b.nz, gx * gy, threads, l.sm_count);
    const unsigned gz = static_cast<unsigned>((prm.b.nz + prm.kchunk - 1) / prm.kchunk);
    const std::size_t smem = sor3d_tile_bytes(s.bx, s.by, sizeof(T));
    if (smem > l.smem_optin)
      throw BackendError("sor3d tiled: a " + to_string(s) + " tile needs " + std::to_string(smem) +
                         " bytes of shared memory, more than the device's " + std::to_string(l.smem_optin));
    // above 48 KB a kernel must opt in; a failure stays in cudaGetLastError for the caller's check
    if (smem > 48 * 1024)
      (void)cudaFuncSetAttribute(sor_tiled_kernel<T, CHECK>, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                 static_cast<int>(smem));
    sor_tiled_kernel<T, CHECK><<<dim3(gx, gy, gz), threads, smem, stream>>>(prm);
    return;
  }
  const RbSweepLaunch g = rb_sweep_launch(prm.b, s, l.sm_count, "sor3d simple");
  prm.bz = g.shape.bz;
  prm.kchunk = g.shape.kchunk;
  sor_simple_kernel<T, CHECK><<<g.grid, g.threads, 0, stream>>>(prm);
}

template <class T>
__global__ void zline_factor_kernel(const T* __restrict__ coef, T* __restrict__ scratch, long E, pf_box3 b) {
  const long col = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (col < b.nx * b.ny) phys::sor_zline_factor<T>(coef, scratch, E, b, col % b.nx, col / b.nx);
}

template <class T>
__global__ void csr_kernel(const T* __restrict__ coef, pf_box3 b, int* __restrict__ row_ptr, int* __restrict__ col,
                           T* __restrict__ val) {
  const long n = b.nx * b.ny * b.nz;
  const long r = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r > n) return;
  row_ptr[r] = static_cast<int>(7 * r);
  if (r == n) return;
  const long i = r % b.nx, j = (r / b.nx) % b.ny, k = r / (b.nx * b.ny);
  const long q = phys::pf_rb_of(b, i, j, k), m2 = 2 * phys::pf_rb_m(b);
  // columns in increasing order: k - 1, j - 1, i - 1, the cell, i + 1, j + 1, k + 1
  const long nb[7] = {r - b.nx * b.ny, r - b.nx, r - 1, r, r + 1, r + b.nx, r + b.nx * b.ny};
  const bool has[7] = {k > 0, j > 0, i > 0, true, i + 1 < b.nx, j + 1 < b.ny, k + 1 < b.nz};
  const int which[7] = {PF_SOR_B, PF_SOR_S, PF_SOR_W, PF_SOR_D, PF_SOR_E, PF_SOR_N, PF_SOR_T};
  for (int e = 0; e < 7; ++e) {
    const T c = coef[q + which[e] * m2];
    col[7 * r + e] = static_cast<int>(has[e] ? nb[e] : r);
    val[7 * r + e] = e == 3 ? c : (has[e] ? -c : T(0));
  }
}

}  // namespace

template <class T>
void launch_sor3d_factor(const T* coef, T* scratch, long extent, pf_box3 b, cudaStream_t stream) {
  const long n = b.nx * b.ny;
  zline_factor_kernel<T><<<static_cast<unsigned>((n + 63) / 64), 64, 0, stream>>>(coef, scratch, extent, b);
}
template void launch_sor3d_factor<float>(const float*, float*, long, pf_box3, cudaStream_t);
template void launch_sor3d_factor<double>(const double*, double*, long, pf_box3, cudaStream_t);

template <class T>
void launch_sor3d_csr(const T* coef, pf_box3 b, int* row_ptr, int* col, T* val, cudaStream_t stream) {
  const long n = b.nx * b.ny * b.nz;
  csr_kernel<T><<<static_cast<unsigned>((n + 1 + 255) / 256), 256, 0, stream>>>(coef, b, row_ptr, col, val);
}
template void launch_sor3d_csr<float>(const float*, pf_box3, int*, int*, float*, cudaStream_t);
template void launch_sor3d_csr<double>(const double*, pf_box3, int*, int*, double*, cudaStream_t);

template <class T>
void launch_sor3d_sweep(const T* coef, T* p, pf_box3 b, T omega, T threshold, unsigned long long* ctrl, T* scratch,
                        long extent, const SorLaunch& l, cudaStream_t stream) {
  SorParams<T> prm{};
  prm.coef = coef;
  prm.p = p;
  prm.b = b;
  prm.omega = omega;
  prm.thr = threshold;
  prm.colour = l.colour;
  prm.it = l.it;
  prm.decide_slot = l.decide_slot;
  prm.check_slot = l.check_slot;
  prm.clear_slot = l.clear_slot;
  prm.ctrl = ctrl;
  prm.scratch = scratch;
  prm.E = extent;
  if (l.check) launch<T, true>(l, prm, stream);
  else launch<T, false>(l, prm, stream);
}

template void launch_sor3d_sweep<float>(const float*, float*, pf_box3, float, float, unsigned long long*, float*, long,
                                        const SorLaunch&, cudaStream_t);
template void launch_sor3d_sweep<double>(const double*, double*, pf_box3, double, double, unsigned long long*, double*, long,
                                         const SorLaunch&, cudaStream_t);

}  // namespace poreflow::cu
