// Experiment (not part of the build): variants of fluids3d's red-black lin_solve colour sweep on
// the colour-packed layout, timed alone, to find what limits the sweep (issue 11).
// nvcc -O3 -std=c++20 -arch=sm_90 -I. --expt-relaxed-constexpr tools/device/experiments/fl_sweep_variants.cu
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "core/physics/fluids3d.h"
#include "tools/device/experiments/experiment.cuh"

using poreflow::phys::fl_ghost;
using poreflow::phys::fl_lin_point;
using poreflow::phys::fl_lin_update_packed;
using poreflow::phys::pf_rb_hx;
using poreflow::phys::pf_rb_m;
using poreflow::phys::pf_rb_present;
using poreflow::phys::pf_rb_shift;

__device__ __forceinline__ void block_max(unsigned m, unsigned* out) {
  __shared__ unsigned w[32];
  for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_down_sync(~0u, m, o));
  const int tid = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
  const int nt = blockDim.x * blockDim.y * blockDim.z;
  if ((tid & 31) == 0) w[tid >> 5] = m;
  __syncthreads();
  if (tid < 32) {
    m = tid < (nt >> 5) ? w[tid] : 0u;
    for (int o = 16; o > 0; o >>= 1) m = max(m, __shfl_down_sync(~0u, m, o));
    if (tid == 0) atomicMax(out, m);
  }
}

struct P {
  float* x;
  const float* x0;
  pf_box3 b;
  float a, inv_c;
  int c;
  long kchunk;
  unsigned* out;
  int pitch = 0;  // F: the packed rows' pitch (0: hx)
};

// A: today's kernel (rb_sweep_cells' loop with fl_lin_update_packed), 1D blocks of 32 x 8
template <int BX, int BY, int UNROLL>
__device__ __forceinline__ void body_a(const P& p) {
  const int tid = threadIdx.x, tx = tid % BX, ty = tid / BX;
  const long ih = static_cast<long>(blockIdx.x) * BX + tx;
  unsigned m = 0;
  if (ih < pf_rb_hx(p.b)) {
    const long k0 = static_cast<long>(blockIdx.z) * p.kchunk, k1 = (k0 + p.kchunk < p.b.nz) ? k0 + p.kchunk : p.b.nz;
    for (long j = static_cast<long>(blockIdx.y) * BY + ty; j < p.b.ny; j += static_cast<long>(gridDim.y) * BY)
#pragma unroll UNROLL
      for (long k = k0; k < k1; ++k)
        if (pf_rb_present(p.b, p.c, ih, j, k))
          m = max(m, __float_as_uint(fl_lin_update_packed<float>(p.x, p.x0, p.b, 0, p.c, ih, j, k, p.a, p.inv_c)));
  }
  block_max(m, p.out);
}
__global__ void k_a(P p) { body_a<32, 8, 2>(p); }
__global__ void __launch_bounds__(256, 8) k_a_lb8(P p) { body_a<32, 8, 2>(p); }
__global__ void __launch_bounds__(256, 6) k_a_lb6(P p) { body_a<32, 8, 2>(p); }
__global__ void __launch_bounds__(256, 8) k_a_lb8_u4(P p) { body_a<32, 8, 4>(p); }

// E: one cell per thread, 2D blocks (ih, j), grid z = layers
template <int BX, int BY>
__global__ void __launch_bounds__(BX * BY) k_e(P p) {
  const long ih = static_cast<long>(blockIdx.x) * BX + threadIdx.x;
  const long j = static_cast<long>(blockIdx.y) * BY + threadIdx.y;
  const long k = blockIdx.z;
  unsigned m = 0;
  if (ih < pf_rb_hx(p.b) && j < p.b.ny && pf_rb_present(p.b, p.c, ih, j, k))
    m = __float_as_uint(fl_lin_update_packed<float>(p.x, p.x0, p.b, 0, p.c, ih, j, k, p.a, p.inv_c));
  block_max(m, p.out);
}

// F: march in k with 32-bit offsets advanced by a plane per layer, the row's edge tests hoisted.
// LDG (variant G): the read-only streams (the other colour, x0) through the non-coherent path.
// CHECK (variant H): behind a block-wide stop check as the real sweep (thread 0 reads a control
// word, barrier).
template <bool LDG>
__device__ __forceinline__ float ld(const float* a) {
  if constexpr (LDG) return __ldg(a);
  else return *a;
}

template <int BX, int BY, int UNROLL, int MINB, bool LDG = false, bool CHECK = false>
__global__ void __launch_bounds__(BX * BY, MINB) k_f(P p) {
  if constexpr (CHECK) {
    __shared__ int stop;
    if (threadIdx.x == 0) stop = *reinterpret_cast<volatile unsigned*>(p.out + 1) == 12345u;
    __syncthreads();
    if (stop) return;
  }
  const int tx = threadIdx.x % BX, ty = threadIdx.x / BX;
  const int hx = static_cast<int>(pf_rb_hx(p.b)), nx = static_cast<int>(p.b.nx), ny = static_cast<int>(p.b.ny),
            nz = static_cast<int>(p.b.nz);
  const int ih = blockIdx.x * BX + tx, j = blockIdx.y * BY + ty;
  unsigned m = 0;
  if (ih < hx && j < ny) {
    const int px = p.pitch ? p.pitch : hx, plane = ny * px, mm = plane * nz;
    const int k0 = blockIdx.z * static_cast<int>(p.kchunk), k1 = min(k0 + static_cast<int>(p.kchunk), nz);
    const float* other = p.x + (1 - p.c) * mm;
    float* own = p.x + p.c * mm;
    const float* x0 = p.x0 + p.c * mm;
    const float a = p.a, inv_c = p.inv_c;
    int row = (k0 * ny + j) * px;
#pragma unroll UNROLL
    for (int k = k0; k < k1; ++k, row += plane) {
      const int i = 2 * ih + ((p.c + j + k) & 1);
      if (i < nx) {
        const int q = row + ih;
        const float old = own[q];
        const float w = i > 0 ? ld<LDG>(other + row + ((i - 1) >> 1)) : fl_ghost<float>(old, 0, 1, 0, 0);
        const float e = i < nx - 1 ? ld<LDG>(other + row + ((i + 1) >> 1)) : fl_ghost<float>(old, 0, 1, 0, 0);
        const float s = j > 0 ? ld<LDG>(other + row - px + (i >> 1)) : fl_ghost<float>(old, 0, 0, 1, 0);
        const float n = j < ny - 1 ? ld<LDG>(other + row + px + (i >> 1)) : fl_ghost<float>(old, 0, 0, 1, 0);
        const float bo = k > 0 ? ld<LDG>(other + row - plane + (i >> 1)) : fl_ghost<float>(old, 0, 0, 0, 1);
        const float t = k < nz - 1 ? ld<LDG>(other + row + plane + (i >> 1)) : fl_ghost<float>(old, 0, 0, 0, 1);
        const float v = fl_lin_point<float>(ld<LDG>(x0 + q), w, e, s, n, bo, t, a, inv_c);
        own[q] = v;
        m = max(m, __float_as_uint(fabsf(v - old)));
      }
    }
  }
  block_max(m, p.out);
}

// S: the sweep's stream mix without the stencil, the bound its bytes allow: per cell of a colour
// read own, x0 and the other colour at the same index, write own (2 N^3 values a colour, as the
// sweep's model); grid-stride, LDG: the read-only streams through the non-coherent path
template <bool LDG>
__global__ void __launch_bounds__(256) k_stream(P p, long half) {
  float* own = p.x + p.c * half;
  const float* other = p.x + (1 - p.c) * half;
  const float* x0 = p.x0 + p.c * half;
  for (long q = static_cast<long>(blockIdx.x) * blockDim.x + threadIdx.x; q < half; q += static_cast<long>(gridDim.x) * blockDim.x)
    own[q] = p.inv_c * (ld<LDG>(x0 + q) + p.a * (own[q] + ld<LDG>(other + q)));
}

struct Box {
  pf_box3 b;
  long hx, m;
};

static Box make_box(long n) {
  Box r{};
  r.b.nx = r.b.ny = r.b.nz = n;
  r.b.halo = 1;
  r.b.sy = n + 2;
  r.b.sz = (n + 2) * (n + 2);
  r.b.off = 1 + r.b.sy + r.b.sz;
  r.hx = pf_rb_hx(r.b);
  r.m = pf_rb_m(r.b);
  return r;
}

static long kchunk_for(long nz, long blocks_xy, int resident_blocks) {
  long chunks = (resident_blocks + blocks_xy - 1) / blocks_xy;
  if (chunks < 1) chunks = 1;
  if (chunks > nz) chunks = nz;
  return (nz + chunks - 1) / chunks;
}

int main(int argc, char** argv) {
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  // copy bandwidth
  {
    const size_t nb = size_t(1) << 30;
    void *s, *d;
    CK(cudaMalloc(&s, nb));
    CK(cudaMalloc(&d, nb));
    CK(cudaMemset(s, 1, nb));
    const float ms = time_ms([&] { CK(cudaMemcpyAsync(d, s, nb, cudaMemcpyDeviceToDevice)); }, 10);
    std::printf("copy %.0f GB/s (read + write)\n", 2.0 * nb / (ms * 1e-3) / 1e9);
    CK(cudaFree(s));
    CK(cudaFree(d));
  }
  std::vector<long> sizes = {84, 168, 256, 288};
  if (argc > 1) {
    sizes.clear();
    for (int i = 1; i < argc; ++i) sizes.push_back(std::atol(argv[i]));
  }
  for (long n : sizes) {
    const Box bx = make_box(n);
    const long total = 2 * bx.m;
    std::vector<float> h(total), h0(total);
    unsigned s = 12345;
    for (long q = 0; q < total; ++q) {
      s = s * 1664525u + 1013904223u;
      h[q] = (s >> 8) * (1.0f / 16777216.0f);
      s = s * 1664525u + 1013904223u;
      h0[q] = (s >> 8) * (1.0f / 16777216.0f);
    }
    float *x, *x0;
    unsigned* out;
    CK(cudaMalloc(&x, total * 4));
    CK(cudaMalloc(&x0, total * 4));
    CK(cudaMalloc(&out, 8));
    CK(cudaMemset(out, 0, 8));
    CK(cudaMemcpy(x0, h0.data(), total * 4, cudaMemcpyHostToDevice));
    std::vector<float> ref;
    const double bytes = 2.0 * n * n * n * 4;  // one colour sweep
    const float a = 0.1f * 1e-4f * n * n * n, inv_c = 1.0f / (1 + 6 * a);
    auto run = [&](const char* name, auto launch) {
      CK(cudaMemcpy(x, h.data(), total * 4, cudaMemcpyHostToDevice));
      for (int it = 0; it < 6; ++it) launch(it & 1);
      CK(cudaGetLastError());
      CK(cudaDeviceSynchronize());
      std::vector<float> got(total);
      CK(cudaMemcpy(got.data(), x, total * 4, cudaMemcpyDeviceToHost));
      const char* same = "ref";
      if (ref.empty())
        ref = got;
      else
        same = std::memcmp(ref.data(), got.data(), total * 4) == 0 ? "same" : "DIFFERENT";
      const double t = time_ms([&](int it) { launch(it & 1); }, 200, 0) * 1e-3;
      std::printf("N=%ld %-28s %8.1f us/colour  %6.0f GB/s  %s\n", n, name, t * 1e6, bytes / t / 1e9, same);
    };
    const unsigned gx = (bx.hx + 31) / 32, gy = (n + 7) / 8;
    auto march = [&](const char* name, auto kern, int resident) {
      const long kc = kchunk_for(n, long(gx) * gy, resident);
      const dim3 grid(gx, gy, (n + kc - 1) / kc);
      char label[96];
      std::snprintf(label, sizeof label, "%s occ%d kc%ld", name, resident / sms, kc);
      run(label, [&](int c) {
        P p{x, x0, bx.b, a, inv_c, c, kc, out};
        kern<<<grid, 256>>>(p);
      });
    };
    march("A today", k_a, sms * 8);
    auto fk = [&](const char* name, auto kern, int bxs, int bys, long kc) {
      const unsigned fx = (bx.hx + bxs - 1) / bxs, fy = (n + bys - 1) / bys;
      const dim3 grid(fx, fy, (n + kc - 1) / kc);
      char label[96];
      std::snprintf(label, sizeof label, "%s %dx%d kc%ld", name, bxs, bys, kc);
      run(label, [&](int c) {
        P p{x, x0, bx.b, a, inv_c, c, kc, out};
        kern<<<grid, bxs * bys>>>(p);
      });
    };
    for (long kc : {2L, 4L, 8L, 16L, 32L}) {
      fk("F u4 lb8", k_f<32, 8, 4, 8>, 32, 8, kc);
      fk("F u2 lb8", k_f<32, 8, 2, 8>, 32, 8, kc);
      fk("F u1 lb8", k_f<32, 8, 1, 8>, 32, 8, kc);
      fk("F u1 lb8", k_f<64, 4, 1, 8>, 64, 4, kc);
      fk("F u1 lb4", k_f<32, 16, 1, 4>, 32, 16, kc);
      fk("G ldg u1 lb8", k_f<32, 8, 1, 8, true>, 32, 8, kc);
      fk("F u4 lb4", k_f<32, 16, 4, 4>, 32, 16, kc);
      fk("F u4 lb16", k_f<32, 4, 4, 16>, 32, 4, kc);
      fk("F u4 lb8", k_f<64, 4, 4, 8>, 64, 4, kc);
      fk("G ldg u4 lb8", k_f<32, 8, 4, 8, true>, 32, 8, kc);
      fk("H check u4 lb8", k_f<32, 8, 4, 8, false, true>, 32, 8, kc);
    }
    auto one = [&](const char* name, auto kern, int bxs, int bys) {
      const dim3 grid((bx.hx + bxs - 1) / bxs, (n + bys - 1) / bys, n);
      run(name, [&](int c) {
        P p{x, x0, bx.b, a, inv_c, c, 1, out};
        kern<<<grid, dim3(bxs, bys)>>>(p);
      });
    };
    one("E one cell 32x8", k_e<32, 8>, 32, 8);
    for (int waves : {1, 4, 16}) {  // the stream bound: blocks of 256, `waves` full waves of them
      const unsigned blocks = static_cast<unsigned>(sms * 8 * waves);
      char label[64];
      std::snprintf(label, sizeof label, "S stream 3r1w x%d", waves);
      ref.clear();  // a different computation: its own reference
      run(label, [&](int c) { k_stream<false><<<blocks, 256>>>(P{x, x0, bx.b, a, inv_c, c, 1, out}, bx.m); });
      std::snprintf(label, sizeof label, "S stream 3r1w ldg x%d", waves);
      run(label, [&](int c) { k_stream<true><<<blocks, 256>>>(P{x, x0, bx.b, a, inv_c, c, 1, out}, bx.m); });
    }
    CK(cudaFree(x));
    CK(cudaFree(x0));
    // padded rows: the packed rows' pitch rounded up to 8 and 32 values (sector and line)
    for (long px : {bx.hx, (bx.hx + 7) / 8 * 8, (bx.hx + 31) / 32 * 32}) {
      const long tot = 2 * px * n * n;
      float *y, *y0;
      CK(cudaMalloc(&y, tot * 4));
      CK(cudaMalloc(&y0, tot * 4));
      std::vector<float> hy(tot, 0.5f);
      CK(cudaMemcpy(y, hy.data(), tot * 4, cudaMemcpyHostToDevice));
      CK(cudaMemcpy(y0, hy.data(), tot * 4, cudaMemcpyHostToDevice));
      const long kc = 4;
      const dim3 grid((bx.hx + 31) / 32, (n + 7) / 8, (n + kc - 1) / kc);
      auto sweep = [&](int it) { k_f<32, 8, 4, 8><<<grid, 256>>>(P{y, y0, bx.b, a, inv_c, it & 1, kc, out, int(px)}); };
      const double t = time_ms(sweep, 200, 6) * 1e-3;
      std::printf("N=%ld F u4 lb8 32x8 kc4 pitch %ld (hx %ld) %8.1f us/colour  %6.0f GB/s\n", n, px, bx.hx, t * 1e6, bytes / t / 1e9);
      CK(cudaFree(y));
      CK(cudaFree(y0));
    }
    CK(cudaFree(out));
  }
  return 0;
}
