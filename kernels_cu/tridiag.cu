// The tridiag family (twin: kernels_cl/tridiag.cl): batched solves of
//   a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i,  i = 0..m-1  (a_0 and c_{m-1} ignored),
// with the arithmetic of backends/host/tridiag_host.hpp: one reduction step of CR and PCR is
// tridiag_host::reduce_eq, and a neighbour outside the system is the identity equation x = 0.
// Reducing with an identity changes nothing, so the kernels pad systems with identities freely.
//
// Kernels (the plan of core/kernels/tridiag_plan.hpp picks and chains them):
//   thomas_direct_kernel  one thread per system, rows read where they lie (coalesced when the
//                         systems are interleaved); c' in scratch, d' in x.
//   thomas_tiled_kernel   one thread per system of the contiguous layout; tiles of 32 rows of 32
//                         systems pass through shared memory so that global accesses coalesce.
//   cr_kernel             CR and the CR+PCR hybrid, register-blocked: each thread holds M
//                         consecutive rows and does the first log2(M) CR levels on them alone
//                         (one exchange with its neighbour thread), the one equation per thread
//                         that is left goes through CR (CR+PCR: CR down to kCrPcrStop equations,
//                         then PCR) in shared memory, and the back substitution runs the other
//                         way. Contiguous systems: persistent blocks, the next group of systems
//                         copied into shared memory (cp.async) while the current one is solved.
//   pcr_kernel            PCR and PCR+Thomas: thread t holds rows t, t+P, t+2P, ...; PCR levels
//                         exchange whole equations through shared memory; PCR runs until every
//                         row is alone, PCR+Thomas stops after log2(P) levels, when each
//                         thread's rows form one independent system, and runs Thomas on them.
//   pcr_split_kernel,     PCR levels in global memory: systems too long for one block are split
//   pcr_global_kernel     into K = 2^levels interleaved subsystems (several levels a pass, tiles
//                         with halos), which cr_kernel or pcr_kernel then solve with the
//                         requested algorithm.
//
// Only the CUDA subset that a CPU emulation of a thread block (threads plus a barrier) can also
// run is used here (no warp intrinsics; cp.async and the reciprocals fall back to plain code off
// the GPU), so the index logic can be checked without a GPU.
//
// After the kernels: the launch of a plan (core/kernels/tridiag_plan.hpp, host code, with the
// numbers of these kernels it needs: their register-limited block sizes, their shared-memory
// layouts) and the copy that cuSPARSE's in-place solvers need.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <mutex>
#include <type_traits>
#include <utility>
#include <vector>

#include "core/base/converge.h"
#include "core/kernels/tridiag_plan.hpp"
#include "core/kernels/tridiag_view.hpp"
#include "kernels_cu/tridiag.cuh"

namespace poreflow::cu::tri {

// ---- equations --------------------------------------------------------------------------------

template <class T>
struct Eq {
  T a, b, c, d;
};

template <class T>
__host__ __device__ __forceinline__ Eq<T> ident() {
  return {T(0), T(1), T(0), T(0)};
}

// a / b from the hardware's approximate reciprocal (double: refined by Newton steps to within
// about an ulp of the rounded quotient). The compiler's IEEE division calls a slow-path subroutine that
// costs registers (and spills) in these register-heavy kernels. No pivoting anyway: the
// divisors are diagonals of diagonally dominant systems, far from 0 and from denormals.
__host__ __device__ __forceinline__ float dv(float a, float b) {
#ifdef __CUDA_ARCH__
  float r;  // within an ulp of 1/b: a * r is within 2 ulps of a / b, plenty for float's tolerance
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
  return a * r;
#else
  return a / b;
#endif
}
__host__ __device__ __forceinline__ double dv(double a, double b) {
#ifdef __CUDA_ARCH__
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(b));
  r = fma(r, fma(-b, r, 1.0), r);
  r = fma(r, fma(-b, r, 1.0), r);
  const double q = a * r;
  return fma(r, fma(-b, q, a), q);
#else
  return a / b;
#endif
}

// tridiag_host::reduce_eq with identities for the missing neighbours
template <class T>
__host__ __device__ __forceinline__ Eq<T> reduce(const Eq<T>& e, const Eq<T>& l, const Eq<T>& r) {
  const T k1 = dv(e.a, l.b), k2 = dv(e.c, r.b);
  return {-l.a * k1, e.b - l.c * k1 - r.a * k2, -r.c * k2, e.d - l.d * k1 - r.d * k2};
}

// Row `row` of a system of m rows at global position p; the ignored ends read as 0 (they may
// hold anything, NaN included, so they are not multiplied by 0 but replaced).
template <class T>
__device__ __forceinline__ Eq<T> load_eq(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                                         const T* __restrict__ d, std::size_t p, std::size_t row, std::size_t m) {
  return {row == 0 ? T(0) : a[p], b[p], row + 1 == m ? T(0) : c[p], d[p]};
}

// A solve under an iteration control (core/base/converge.h) does nothing once it says stop;
// every kernel checks at its start, before any barrier (the answer is the same for the whole grid).
__device__ __forceinline__ bool stopped(const unsigned long long* guard) { return guard && guard[PF_CV_STOP] != 0; }

// A solution value as stored: plus add[p] when the solve updates an iterate (x = correction + add).
template <class T>
__device__ __forceinline__ T plus(T v, const T* __restrict__ add, std::size_t p) {
  return add ? v + add[p] : v;
}

// ---- where the systems lie ----------------------------------------------------------------------
// (core/kernels/tridiag_view.hpp, shared with the OpenCL plan)
using poreflow::tri::View;

// ---- what the plan knows of the kernels (core/kernels/tridiag_plan.hpp) --------------------------
using poreflow::tri::kGlobalBlock;
using poreflow::tri::kSplitGroup;
using poreflow::tri::kSplitThreads;
using poreflow::tri::kThomasBlock;
using poreflow::tri::kTileRows;
using poreflow::tri::kTileSys;
using poreflow::tri::Kern;
using poreflow::tri::Plan;
using poreflow::tri::SplitPass;

// ---- shared memory --------------------------------------------------------------------------------

template <class T>
__device__ __forceinline__ T* smem() {
  extern __shared__ __align__(16) unsigned char pf_tri_smem[];
  return reinterpret_cast<T*>(pf_tri_smem);
}

// An equation stored as four planes of `stride` values.
template <class T>
__device__ __forceinline__ void put(T* s, int stride, int i, const Eq<T>& e) {
  s[i] = e.a;
  s[i + stride] = e.b;
  s[i + 2 * stride] = e.c;
  s[i + 3 * stride] = e.d;
}
template <class T>
__device__ __forceinline__ Eq<T> get(const T* s, int stride, int i) {
  return {s[i], s[i + stride], s[i + 2 * stride], s[i + 3 * stride]};
}

template <int M>
constexpr int log2c() {
  if constexpr (M <= 1) return 0;
  else return 1 + log2c<M / 2>();
}

// Threads per block of a kernel whose threads hold M equations in registers, and of the staged
// (persistent) CR kernel, which keeps a few more values live: tridiag_plan.hpp's table, which the
// plan sizes its blocks by.
template <class T, int M>
constexpr int max_threads() {
  return poreflow::tri::max_threads(sizeof(T), M);
}
template <class T, int M, bool STAGED>
constexpr int cr_max_threads() {
  return poreflow::tri::cr_max_threads(sizeof(T), M, STAGED);
}

// ---- Thomas ---------------------------------------------------------------------------------------

constexpr int kThomasUnroll = 8;  // rows loaded together, to keep loads in flight while the chain runs

template <class T>
__global__ void __launch_bounds__(kThomasBlock)
    thomas_direct_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                         const T* __restrict__ d, T* __restrict__ x, T* __restrict__ cp, View v,
                         const T* __restrict__ add, const unsigned long long* __restrict__ guard) {
  if (stopped(guard)) return;
  constexpr int U = kThomasUnroll;
  const std::size_t s = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (s >= v.count) return;
  const std::size_t o = v.off(s), m = v.rows(s), sj = v.sj;
  // forward: c'_j = c_j / bet, d'_j = (d_j - a_j d'_{j-1}) / bet, bet = b_j - a_j c'_{j-1}
  T cprev = T(0), dprev = T(0);
  for (std::size_t j0 = 0; j0 < m; j0 += U) {
    Eq<T> e[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::size_t j = j0 + u;
      e[u] = j < m ? load_eq(a, b, c, d, o + j * sj, j, m) : ident<T>();
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::size_t j = j0 + u;
      if (j < m) {
        const T inv = dv(T(1), e[u].b - e[u].a * cprev);
        cprev = e[u].c * inv;
        dprev = (e[u].d - e[u].a * dprev) * inv;
        cp[o + j * sj] = cprev;
        x[o + j * sj] = dprev;
      }
    }
  }
  // backward: x_j = d'_j - c'_j x_{j+1} (c' of the last row is 0)
  T xn = T(0);
  for (std::size_t j1 = m; j1 > 0;) {
    const std::size_t j0 = j1 > static_cast<std::size_t>(U) ? j1 - U : 0;
    T cv[U], dv[U], av[U];  // add's values loaded with the others: a load per row in the chain costs 30%
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::size_t j = j0 + u;
      cv[u] = j < j1 ? cp[o + j * sj] : T(0);
      dv[u] = j < j1 ? x[o + j * sj] : T(0);
      av[u] = add && j < j1 ? add[o + j * sj] : T(0);
    }
#pragma unroll
    for (int u = U - 1; u >= 0; --u) {
      const std::size_t j = j0 + u;
      if (j < j1) {
        xn = dv[u] - cv[u] * xn;
        x[o + j * sj] = add ? xn + av[u] : xn;
      }
    }
    j1 = j0;
  }
}

// kTileSys systems (threads) per block, tiles of kTileRows rows: 32 consecutive values of one
// system per warp access (tridiag_plan.hpp, whose tiled_smem_bytes is the tiles' shared memory)
template <class T>
__global__ void __launch_bounds__(kTileSys)
    thomas_tiled_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                        const T* __restrict__ d, T* __restrict__ x, T* __restrict__ cp, std::size_t n,
                        std::size_t batch, const T* __restrict__ add, const unsigned long long* __restrict__ guard) {
  if (stopped(guard)) return;
  constexpr int W = kTileSys, R = kTileRows, RP = R + 1;  // RP: rows padded against bank conflicts
  T* sa = smem<T>();
  T* sb = sa + W * RP;
  T* sc = sb + W * RP;
  T* sd = sc + W * RP;
  const int tid = threadIdx.x;
  const std::size_t s0 = static_cast<std::size_t>(blockIdx.x) * W;
  const int ns = static_cast<int>(batch - s0 < static_cast<std::size_t>(W) ? batch - s0 : W);
  const std::size_t base = s0 * n;
  const std::size_t tiles = (n + R - 1) / R;
  // forward, tile by tile; c' goes to cp and d' to x
  T cprev = T(0), dprev = T(0);
  for (std::size_t tile = 0; tile < tiles; ++tile) {
    const std::size_t r0 = tile * R;
    const int rows = static_cast<int>(n - r0 < static_cast<std::size_t>(R) ? n - r0 : R);
    for (int k = tid; k < ns * R; k += W) {
      const int sys = k / R, j = k % R;
      if (j < rows) {
        const std::size_t row = r0 + j, p = base + sys * n + row;
        const int q = sys * RP + j;
        sa[q] = row == 0 ? T(0) : a[p];
        sb[q] = b[p];
        sc[q] = row + 1 == n ? T(0) : c[p];
        sd[q] = d[p];
      }
    }
    __syncthreads();
    if (tid < ns) {
      for (int j = 0; j < rows; ++j) {
        const int q = tid * RP + j;
        const T aj = sa[q];
        const T inv = dv(T(1), sb[q] - aj * cprev);
        cprev = sc[q] * inv;
        dprev = (sd[q] - aj * dprev) * inv;
        sc[q] = cprev;
        sd[q] = dprev;
      }
    }
    __syncthreads();
    for (int k = tid; k < ns * R; k += W) {
      const int sys = k / R, j = k % R;
      if (j < rows) {
        const std::size_t p = base + sys * n + r0 + j;
        cp[p] = sc[sys * RP + j];
        x[p] = sd[sys * RP + j];
      }
    }
    __syncthreads();
  }
  // backward, from the last tile
  T xn = T(0);
  for (std::size_t tile = tiles; tile-- > 0;) {
    const std::size_t r0 = tile * R;
    const int rows = static_cast<int>(n - r0 < static_cast<std::size_t>(R) ? n - r0 : R);
    for (int k = tid; k < ns * R; k += W) {
      const int sys = k / R, j = k % R;
      if (j < rows) {
        const std::size_t p = base + sys * n + r0 + j;
        sc[sys * RP + j] = cp[p];
        sd[sys * RP + j] = x[p];
      }
    }
    __syncthreads();
    if (tid < ns) {
      for (int j = rows - 1; j >= 0; --j) {
        const int q = tid * RP + j;
        xn = sd[q] - sc[q] * xn;
        sd[q] = xn;
      }
    }
    __syncthreads();
    for (int k = tid; k < ns * R; k += W) {
      const int sys = k / R, j = k % R;
      if (j < rows) x[base + sys * n + r0 + j] = plus(sd[sys * RP + j], add, base + sys * n + r0 + j);
    }
    __syncthreads();
  }
}

// ---- CR and CR+PCR, register-blocked --------------------------------------------------------------
// Block: G systems x P threads, thread tid = t * G + g (g fastest, so that a warp's loads of an
// interleaved view cover G neighbouring systems). Thread t of system g holds rows tM .. tM+M-1;
// rows past the system are identities, so CR runs on P*M rows exactly as on the host's n.
// STAGED (contiguous layout, whole systems): a persistent block takes groups of G systems (one
// contiguous range each) in turn; cp.async copies the next group into shared memory while the
// current one is solved in registers, so loads and arithmetic overlap even at one block per SM.

// CR+PCR: CR across threads until at most `stop` equations are left (tridiag_plan.hpp's
// kCrPcrStop), then PCR on them (one barrier a level either way; 128 measured fastest on an H100,
// 32 and 64 within 10%)

// one gap every 32 (4-byte T) or 16 (8-byte T) values: a warp reading rows tM + j is conflict-free
// (tridiag_plan.hpp's pad, which the plan sizes the staged planes by)
template <class T>
__host__ __device__ __forceinline__ int pad(int f) {
  return poreflow::tri::pad(sizeof(T), f);
}

// cp.async: global to shared memory without a register, so that a thread has all its copies in
// flight at once (copies of 4 and 8 bytes go through L1: .ca). Plain copies off the GPU.
template <class T>
__device__ __forceinline__ void cp_async(T* dst, const T* src) {
#ifdef __CUDA_ARCH__
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  if constexpr (sizeof(T) == 4) asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(s), "l"(src) : "memory");
  else asm volatile("cp.async.ca.shared.global [%0], [%1], 8;\n" ::"r"(s), "l"(src) : "memory");
#else
  *dst = *src;
#endif
}
__device__ __forceinline__ void cp_async_commit() {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.commit_group;\n" ::: "memory");
#endif
}
__device__ __forceinline__ void cp_async_wait_all() {
#ifdef __CUDA_ARCH__
  asm volatile("cp.async.wait_all;\n" ::: "memory");
#endif
}

// CR on the rows e of every thread of the block, CR across threads down to `stop` equations and
// PCR on those (stop 1: plain CR); x_j ends in e[j].d. `work` holds cr_work_per_thread(M) * bd
// values (tridiag_plan.hpp). Every thread of the block calls it (barriers inside).
template <class T, int M>
__device__ __forceinline__ void cr_solve(Eq<T> (&e)[M], T* work, int tid, int bd, int t, int g, int P, int G, int stop) {
  constexpr int Q = log2c<M>();  // CR levels inside a thread
  // ---- CR levels inside the thread: level L (span s = 2^L) reduces rows j with (j+1) % 2s == 0
  // against j - s and j + s. All but the last row's are local; they never read the last row.
#pragma unroll
  for (int L = 0; L < Q; ++L) {
    const int s = 1 << L;
#pragma unroll
    for (int j = 2 * s - 1; j < M - 1; j += 2 * s) e[j] = reduce(e[j], e[j - s], e[j + s]);
  }
  // The last row's level L needs the next thread's row 2^L - 1, which is final by now: publish
  // those, then run the last row's chain.
  T* ex = work;  // [Q][4][bd]
#pragma unroll
  for (int L = 0; L < Q; ++L) put(ex + L * 4 * bd, bd, tid, e[(1 << L) - 1]);
  __syncthreads();
  const bool last = t + 1 == P;
#pragma unroll
  for (int L = 0; L < Q; ++L) {
    const int s = 1 << L;
    const Eq<T> r = last ? ident<T>() : get(ex + L * 4 * bd, bd, tid + G);
    e[M - 1] = reduce(e[M - 1], e[M - 1 - s], r);
  }
  __syncthreads();  // ex is reused below

  // ---- the P equations left (one per thread): CR across threads, in place (the neighbours an
  // active equation reads are not active at the same level)
  T* top = work;          // [4][bd]: a, b, c, d
  T* tx = work + 4 * bd;  // [bd]: solutions
  T* pp = work + 5 * bd;  // [4][bd]: second buffer of the PCR part
  put(top, bd, tid, e[M - 1]);
  __syncthreads();
  int s = 1;
  for (; P / s > stop; s *= 2) {
    if ((t + 1) % (2 * s) == 0) {
      const Eq<T> r = t + s < P ? get(top, bd, tid + s * G) : ident<T>();
      put(top, bd, tid, reduce(get(top, bd, tid), get(top, bd, tid - s * G), r));
    }
    __syncthreads();
  }
  // PCR on the mt = P / s equations left, rows s - 1 + k s (k < mt), thread t taking k = t;
  // ping-pong between top and pp, one barrier a level (with mt == 1 it is just x = d / b)
  const int mt = P / s;
  const int ki = (s - 1 + t * s) * G + g;  // this thread's equation, if t < mt
  T* src = top;
  T* dst = pp;
  for (int dd = 1; dd < mt; dd *= 2) {
    if (t < mt) {
      const Eq<T> l = t >= dd ? get(src, bd, ki - dd * s * G) : ident<T>();
      const Eq<T> r = t + dd < mt ? get(src, bd, ki + dd * s * G) : ident<T>();
      put(dst, bd, ki, reduce(get(src, bd, ki), l, r));
    }
    __syncthreads();
    T* tmp = src;
    src = dst;
    dst = tmp;
  }
  if (t < mt) tx[ki] = dv(src[ki + 3 * bd], src[ki + bd]);
  __syncthreads();
  // back substitution of the CR levels across threads (coefficients as they were eliminated)
  for (; s > 1; s /= 2) {
    const int h = s / 2;
    if ((t + 1) % s == h) {
      const T xl = t >= h ? tx[tid - h * G] : T(0);
      const T xr = t + h < P ? tx[tid + h * G] : T(0);
      const Eq<T> q = get(top, bd, tid);
      tx[tid] = dv(q.d - q.a * xl - q.c * xr, q.b);
    }
    __syncthreads();
  }

  // ---- back substitution inside the thread; x_j goes into e[j].d. Row -1 is the previous
  // thread's last row.
  const T xp = t > 0 ? tx[tid - G] : T(0);
  e[M - 1].d = tx[tid];
#pragma unroll
  for (int L = Q - 1; L >= 0; --L) {
    const int s2 = 1 << L;
#pragma unroll
    for (int j = s2 - 1; j < M - 1; j += 2 * s2) {
      const T xl = j >= s2 ? e[j - s2].d : xp;
      e[j].d = dv(e[j].d - e[j].a * xl - e[j].c * e[j + s2].d, e[j].b);
    }
  }
}

// Shared memory of a STAGED group: the four coefficient planes of G systems of n rows
// (tridiag_plan.hpp).
template <class T>
__host__ __device__ __forceinline__ int staged_plane(int G, int n) {
  return poreflow::tri::staged_plane(sizeof(T), G, n);
}

template <class T, int M, bool STAGED>
__global__ void __launch_bounds__(cr_max_threads<T, M, STAGED>())
    cr_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c, const T* __restrict__ d,
              T* __restrict__ x, View v, int P, int G, int stop, const T* __restrict__ add,
              const unsigned long long* __restrict__ guard) {
  if (stopped(guard)) return;
  static_assert(M >= 2 && (M & (M - 1)) == 0, "M is a power of two");
  const int tid = threadIdx.x, bd = blockDim.x;  // bd == G * P
  const int g = tid % G, t = tid / G;
  const int row0 = t * M;
  T* sm = smem<T>();
  Eq<T> e[M];

  if constexpr (STAGED) {
    // planes [4][plane], then the work area (also the staging of x on the way out)
    const int n = static_cast<int>(v.n);
    const int plane = staged_plane<T>(G, n);
    T* work = sm + 4 * plane;
    const std::size_t groups = (v.count + G - 1) / G;
    auto present = [&](std::size_t grp) {  // systems in group grp
      const std::size_t s0 = grp * G;
      return static_cast<int>(v.count - s0 < static_cast<std::size_t>(G) ? v.count - s0 : G);
    };
    // the group's systems in global order (f = tid + u * bd covers G * n <= bd * M), skewed; the
    // copies are asynchronous, so a rolled loop keeps them all in flight with few registers
    auto prefetch = [&](std::size_t grp) {
      const int flat = present(grp) * n;
      const std::size_t base = grp * G * v.n;
      const T *ga = a + base, *gb = b + base, *gc = c + base, *gd = d + base;
#pragma unroll 1
      for (int f = tid; f < flat; f += bd) {
        const int q = pad<T>(f);
        cp_async(sm + q, ga + f);
        cp_async(sm + plane + q, gb + f);
        cp_async(sm + 2 * plane + q, gc + f);
        cp_async(sm + 3 * plane + q, gd + f);
      }
      cp_async_commit();
    };
    std::size_t grp = blockIdx.x;
    if (grp < groups) prefetch(grp);
    for (; grp < groups; grp += gridDim.x) {
      const int gs = present(grp);
      const int mi = g < gs ? n : 0;                      // rows of this thread's system
      const int mine = g * n + row0;                      // flat index of this thread's first row
      const std::size_t base = grp * G * v.n;
      cp_async_wait_all();
      __syncthreads();
#pragma unroll
      for (int j = 0; j < M; ++j) {
        const int row = row0 + j;
        if (row < mi) {
          const int q = pad<T>(mine + j);
          e[j] = {row == 0 ? T(0) : sm[q], sm[q + plane], row + 1 == mi ? T(0) : sm[q + 2 * plane], sm[q + 3 * plane]};
        } else {
          e[j] = ident<T>();
        }
      }
      __syncthreads();
      if (grp + gridDim.x < groups) prefetch(grp + gridDim.x);  // lands while this group is solved
      cr_solve<T, M>(e, work, tid, bd, t, g, P, G, stop);
      __syncthreads();  // the work area is read in cr_solve's last steps
#pragma unroll
      for (int j = 0; j < M; ++j)
        if (row0 + j < mi) work[pad<T>(mine + j)] = e[j].d;
      __syncthreads();
      const int flat = gs * n;
      T* gx = x + base;
#pragma unroll 4
      for (int f = tid; f < flat; f += bd) gx[f] = plus(work[pad<T>(f)], add, base + f);
      // the next group's first barrier orders these reads before the work area is written again
    }
  } else {
    const std::size_t sys = static_cast<std::size_t>(blockIdx.x) * G + g;
    const std::size_t m = sys < v.count ? v.rows(sys) : 0;
    const std::size_t off = sys < v.count ? v.off(sys) : 0;
#pragma unroll
    for (int j = 0; j < M; ++j) {
      const std::size_t row = static_cast<std::size_t>(row0 + j);
      e[j] = row < m ? load_eq(a, b, c, d, off + row * v.sj, row, m) : ident<T>();
    }
    cr_solve<T, M>(e, sm, tid, bd, t, g, P, G, stop);
#pragma unroll
    for (int j = 0; j < M; ++j) {
      const std::size_t row = static_cast<std::size_t>(row0 + j);
      if (row < m) x[off + row * v.sj] = plus(e[j].d, add, off + row * v.sj);
    }
  }
}

// ---- PCR and PCR+Thomas, cyclic rows ---------------------------------------------------------------
// Block: G systems x P threads (P a power of two), tid = t * G + g; thread t holds rows t + jP.
// Shared memory holds every row of the block's systems: [4][mcap][G], row-major over systems.

template <class T, int M, bool THOMAS>
__global__ void __launch_bounds__(max_threads<T, M>())
    pcr_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c, const T* __restrict__ d,
               T* __restrict__ x, View v, int P, int G, int mcap, const T* __restrict__ add,
               const unsigned long long* __restrict__ guard) {
  if (stopped(guard)) return;
  const int tid = threadIdx.x;
  const int g = tid % G, t = tid / G;
  const std::size_t sys = static_cast<std::size_t>(blockIdx.x) * G + g;
  const int m = sys < v.count ? static_cast<int>(v.rows(sys)) : 0;
  const std::size_t off = sys < v.count ? v.off(sys) : 0;
  T* sm = smem<T>();
  const int plane = mcap * G;
  Eq<T> e[M];
#pragma unroll
  for (int j = 0; j < M; ++j) {
    const int row = t + j * P;
    e[j] = row < m ? load_eq(a, b, c, d, off + static_cast<std::size_t>(row) * v.sj, static_cast<std::size_t>(row),
                             static_cast<std::size_t>(m))
                   : ident<T>();
  }
  // PCR levels s = 1, 2, 4, ...: PCR until s >= the longest system, PCR+Thomas until s == P,
  // after which row t + jP is coupled to t + (j +- 1)P only
  const int end = THOMAS ? P : mcap;
  for (int s = 1; s < end; s *= 2) {
#pragma unroll
    for (int j = 0; j < M; ++j) {
      const int row = t + j * P;
      if (row < m) put(sm, plane, row * G + g, e[j]);
    }
    __syncthreads();
#pragma unroll
    for (int j = 0; j < M; ++j) {
      const int row = t + j * P;
      if (row < m) {
        const Eq<T> l = row >= s ? get(sm, plane, (row - s) * G + g) : ident<T>();
        const Eq<T> r = row + s < m ? get(sm, plane, (row + s) * G + g) : ident<T>();
        e[j] = reduce(e[j], l, r);
      }
    }
    __syncthreads();
  }
  if constexpr (THOMAS) {
    // Thomas on this thread's rows; the couplings out of them are exact zeros by now
    T cprev = T(0), dprev = T(0);
#pragma unroll
    for (int j = 0; j < M; ++j) {
      if (t + j * P < m) {
        const T aj = j == 0 ? T(0) : e[j].a;
        const T inv = dv(T(1), e[j].b - aj * cprev);
        cprev = e[j].c * inv;
        dprev = (e[j].d - aj * dprev) * inv;
        e[j].c = cprev;
        e[j].d = dprev;
      }
    }
#pragma unroll
    for (int j = M - 2; j >= 0; --j)
      if (t + (j + 1) * P < m) e[j].d -= e[j].c * e[j + 1].d;
  } else {
#pragma unroll
    for (int j = 0; j < M; ++j) e[j].d = dv(e[j].d, e[j].b);
  }
#pragma unroll
  for (int j = 0; j < M; ++j) {
    const int row = t + j * P;
    if (row < m) x[off + static_cast<std::size_t>(row) * v.sj] = plus(e[j].d, add, off + static_cast<std::size_t>(row) * v.sj);
  }
}

// ---- PCR levels in global memory -------------------------------------------------------------------
// Systems too long for the chip are split by PCR levels into K interleaved subsystems. Each pass
// reads level input (a, b, c, d) and writes its output (a2 ...) at the same positions.

// One level of span s, an equation per thread. u runs over the fast index (rows of a contiguous
// system, systems of interleaved ones), v over the other.
template <class T, bool INTER>
__global__ void __launch_bounds__(kGlobalBlock)
    pcr_global_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                      const T* __restrict__ d, T* __restrict__ a2, T* __restrict__ b2, T* __restrict__ c2,
                      T* __restrict__ d2, std::size_t n, std::size_t batch, std::size_t s, const unsigned long long* __restrict__ guard) {
  if (stopped(guard)) return;
  const std::size_t nu = INTER ? batch : n, nv = INTER ? n : batch;
  const std::size_t step = INTER ? batch : 1;
  for (std::size_t vv = blockIdx.y; vv < nv; vv += gridDim.y) {
    for (std::size_t u = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; u < nu;
         u += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
      const std::size_t i = INTER ? vv : u;
      const std::size_t p = INTER ? vv * batch + u : vv * n + u;
      const Eq<T> l = i >= s ? load_eq(a, b, c, d, p - s * step, i - s, n) : ident<T>();
      const Eq<T> r = i + s < n ? load_eq(a, b, c, d, p + s * step, i + s, n) : ident<T>();
      const Eq<T> e = reduce(load_eq(a, b, c, d, p, i, n), l, r);
      a2[p] = e.a;
      b2[p] = e.b;
      c2[p] = e.c;
      d2[p] = e.d;
    }
  }
}

// k levels of spans s0, 2 s0, ..., 2^(k-1) s0 in one pass: a tile of R rows of G systems is read
// with H = s0 (2^k - 1) rows of halo on each side (identities outside the system); the rows a
// level gets right shrink by its span on each side, and after the k levels they are the R rows
// of the tile. Two buffers of four planes of (R + 2H) * G values in shared memory.
// kSplitThreads threads a block; interleaved: kSplitGroup systems side by side in a tile (32-byte
// sectors of float); (R + 2H) * G values a plane: split_tile_values (tridiag_plan.hpp).
template <class T, bool INTER>
__global__ void __launch_bounds__(kSplitThreads)
    pcr_split_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                     const T* __restrict__ d, T* __restrict__ a2, T* __restrict__ b2, T* __restrict__ c2,
                     T* __restrict__ d2, std::size_t n, std::size_t batch, int s0, int k, int R, const unsigned long long* __restrict__ guard) {
  if (stopped(guard)) return;
  constexpr int G = INTER ? kSplitGroup : 1;
  const int H = s0 * ((1 << k) - 1);
  const int len = R + 2 * H, span = len * G;
  T* cur = smem<T>();
  T* nxt = cur + 4 * span;
  const int tid = threadIdx.x, bd = blockDim.x;
  const std::size_t tiles = (n + R - 1) / R;
  const std::size_t groups = INTER ? (batch + G - 1) / G : batch;
  // contiguous: x = tile, y = system; interleaved: x = group of G systems, y = tile
  const std::size_t ny = INTER ? tiles : groups;
  for (std::size_t y = blockIdx.y; y < ny; y += gridDim.y) {
    const std::size_t tile = INTER ? y : blockIdx.x, grp = INTER ? blockIdx.x : y;
    const long long lo = static_cast<long long>(tile) * R - H;  // first row of the tile's window
    const std::size_t sys0 = grp * G;
    auto pos = [&](std::size_t sys, std::size_t row) { return INTER ? row * batch + sys : sys * n + row; };
    for (int idx = tid; idx < span; idx += bd) {
      const int i = idx / G, g = idx % G;
      const long long row = lo + i;
      const std::size_t sys = sys0 + g;
      const bool in = row >= 0 && row < static_cast<long long>(n) && sys < batch;
      const std::size_t r = static_cast<std::size_t>(in ? row : 0);
      put(cur, span, idx, in ? load_eq(a, b, c, d, pos(sys, r), r, n) : ident<T>());
    }
    __syncthreads();
    int w = 0;  // rows lost on each side so far
    for (int l = 0; l < k; ++l) {
      const int s = s0 << l;
      w += s;
      for (int idx = w * G + tid; idx < (len - w) * G; idx += bd)
        put(nxt, span, idx, reduce(get(cur, span, idx), get(cur, span, idx - s * G), get(cur, span, idx + s * G)));
      __syncthreads();
      T* tmp = cur;
      cur = nxt;
      nxt = tmp;
    }
    for (int idx = H * G + tid; idx < (H + R) * G; idx += bd) {
      const int i = idx / G, g = idx % G;
      const long long row = lo + i;
      const std::size_t sys = sys0 + g;
      if (row < static_cast<long long>(n) && sys < batch) {
        const std::size_t p = pos(sys, static_cast<std::size_t>(row));
        const Eq<T> e = get(cur, span, idx);
        a2[p] = e.a;
        b2[p] = e.b;
        c2[p] = e.c;
        d2[p] = e.d;
      }
    }
    __syncthreads();  // before the next tile overwrites the buffers
    cur = smem<T>();
    nxt = cur + 4 * span;
  }
}

// ---- enqueueing --------------------------------------------------------------------------------------
// The kernels of a plan (core/kernels/tridiag_plan.hpp). `launch(kernel, grid, block, smem_bytes,
// args...)` enqueues one kernel: the CUDA stream launcher below, or a CPU emulation of thread
// blocks; `launch.resident(kernel, block, smem)` is how many blocks of it the device runs at once
// (the persistent grid of the staged CR kernel).

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

template <class T, bool STAGED, class L>
void launch_cr(L& launch, const Plan& p, const T* a, const T* b, const T* c, const T* d, T* x, const T* add,
               const unsigned long long* guard) {
  const dim3 block(static_cast<unsigned>(p.threads));
  auto go = [&](auto kernel) {
    const std::size_t grid = STAGED ? std::min<std::size_t>(p.grid, launch.resident(kernel, block, p.smem)) : p.grid;
    launch(kernel, dim3(static_cast<unsigned>(std::max<std::size_t>(grid, 1))), block, p.smem, a, b, c, d, x, p.view,
           p.P, p.G, p.stop, add, guard);
  };
  switch (p.M) {
    case 4: go(cr_kernel<T, 4, STAGED>); break;
    case 8: go(cr_kernel<T, 8, STAGED>); break;
    default: go(cr_kernel<T, 16, STAGED>); break;
  }
}

template <class T, bool THOMAS, class L>
void launch_pcr(L& launch, const Plan& p, const T* a, const T* b, const T* c, const T* d, T* x, const T* add,
                const unsigned long long* guard) {
  const dim3 grid(static_cast<unsigned>(p.grid)), block(static_cast<unsigned>(p.threads));
  if (p.M == 4) launch(pcr_kernel<T, 4, THOMAS>, grid, block, p.smem, a, b, c, d, x, p.view, p.P, p.G, p.mcap, add, guard);
  else launch(pcr_kernel<T, 8, THOMAS>, grid, block, p.smem, a, b, c, d, x, p.view, p.P, p.G, p.mcap, add, guard);
}

template <class T, class L>
void enqueue(L& launch, const TridiagLaunch& l, const T* a, const T* b, const T* c, const T* d, T* x, const T* add,
             const unsigned long long* guard) {
  const Plan& p = l.plan;
  T* scr = static_cast<T*>(l.scratch);
  const bool inter = l.shape.layout == TridiagLayout::Interleaved;
  const std::size_t n = l.shape.n, batch = l.shape.batch;
  switch (p.kern) {
    case Kern::ThomasDirect:
      launch(thomas_direct_kernel<T>, dim3(static_cast<unsigned>(p.grid)), dim3(static_cast<unsigned>(p.threads)), 0, a,
             b, c, d, x, scr, p.view, add, guard);
      return;
    case Kern::ThomasTiled:
      launch(thomas_tiled_kernel<T>, dim3(static_cast<unsigned>(p.grid)), dim3(kTileSys), p.smem, a, b, c, d, x, scr,
             n, batch, add, guard);
      return;
    default: break;
  }
  // the split: passes of PCR levels in global memory, ping-ponging between two sets of four arrays
  const std::size_t nb = n * batch;
  for (int i = 0; i < p.npass; ++i) {
    const SplitPass& sp = p.pass[i];
    T* o = scr + static_cast<std::size_t>(i % 2) * 4 * nb;
    if (sp.R == 0) {
      const std::size_t nu = inter ? batch : n, nv = inter ? n : batch;
      const dim3 grid(static_cast<unsigned>(std::min<std::size_t>(ceil_div(nu, kGlobalBlock), 1u << 20)),
                      static_cast<unsigned>(std::min<std::size_t>(nv, 65535)));
      if (inter)
        launch(pcr_global_kernel<T, true>, grid, dim3(kGlobalBlock), 0, a, b, c, d, o, o + nb, o + 2 * nb, o + 3 * nb,
               n, batch, static_cast<std::size_t>(sp.s0), guard);
      else
        launch(pcr_global_kernel<T, false>, grid, dim3(kGlobalBlock), 0, a, b, c, d, o, o + nb, o + 2 * nb,
               o + 3 * nb, n, batch, static_cast<std::size_t>(sp.s0), guard);
    } else {
      const std::size_t tiles = ceil_div(n, static_cast<std::size_t>(sp.R));
      const int G = inter ? kSplitGroup : 1;
      const int len = sp.R + 2 * sp.s0 * ((1 << sp.k) - 1);
      const std::size_t smem = 8 * static_cast<std::size_t>(len) * G * sizeof(T);
      const std::size_t gx = inter ? ceil_div(batch, G) : tiles, gy = inter ? tiles : batch;
      const dim3 grid(static_cast<unsigned>(gx), static_cast<unsigned>(std::min<std::size_t>(gy, 65535)));
      if (inter)
        launch(pcr_split_kernel<T, true>, grid, dim3(kSplitThreads), smem, a, b, c, d, o, o + nb, o + 2 * nb, o + 3 * nb,
               n, batch, sp.s0, sp.k, sp.R, guard);
      else
        launch(pcr_split_kernel<T, false>, grid, dim3(kSplitThreads), smem, a, b, c, d, o, o + nb, o + 2 * nb,
               o + 3 * nb, n, batch, sp.s0, sp.k, sp.R, guard);
    }
    a = o;
    b = o + nb;
    c = o + 2 * nb;
    d = o + 3 * nb;
  }
  switch (l.shape.algo) {
    case TridiagAlgo::CR:
    case TridiagAlgo::CrPcr:
      if (p.staged) launch_cr<T, true>(launch, p, a, b, c, d, x, add, guard);
      else launch_cr<T, false>(launch, p, a, b, c, d, x, add, guard);
      break;
    case TridiagAlgo::PCR: launch_pcr<T, false>(launch, p, a, b, c, d, x, add, guard); break;
    default: launch_pcr<T, true>(launch, p, a, b, c, d, x, add, guard); break;
  }
}

}  // namespace poreflow::cu::tri

namespace poreflow::cu {
namespace {

// Kernels above 48 KB of dynamic shared memory must opt in, once per kernel; remembered here.
void allow_smem(const void* kernel, std::size_t bytes) {
  static std::mutex mu;
  static std::vector<std::pair<const void*, std::size_t>> done;
  std::lock_guard<std::mutex> lock(mu);
  for (auto& [k, b] : done)
    if (k == kernel && b >= bytes) return;
  // an error stays in cudaGetLastError for the caller's PF_CHECK_LAUNCH, like the launch's own
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)) != cudaSuccess)
    return;
  done.emplace_back(kernel, bytes);
}

struct StreamLauncher {
  cudaStream_t stream;
  int sm_count;
  // blocks of `kernel` the device holds at once (cached: asked on every solve of a persistent kernel)
  template <class... P>
  std::size_t resident(void (*kernel)(P...), dim3 block, std::size_t smem) const {
    const void* k = reinterpret_cast<const void*>(kernel);
    if (smem > 48 * 1024) allow_smem(k, smem);
    struct Entry {
      const void* k;
      unsigned threads;
      std::size_t smem;
      int per_sm;
    };
    static std::mutex mu;
    static std::vector<Entry> cache;
    std::lock_guard<std::mutex> lock(mu);
    int per_sm = 0;
    auto it = std::find_if(cache.begin(), cache.end(),
                           [&](const Entry& e) { return e.k == k && e.threads == block.x && e.smem == smem; });
    if (it != cache.end()) {
      per_sm = it->per_sm;
    } else if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, k, static_cast<int>(block.x), smem) == cudaSuccess) {
      cache.push_back({k, block.x, smem, per_sm});
    }  // else the error waits in cudaGetLastError for the caller
    return static_cast<std::size_t>(std::max(per_sm, 1)) * static_cast<std::size_t>(std::max(sm_count, 1));
  }
  template <class... P>
  void operator()(void (*kernel)(P...), dim3 grid, dim3 block, std::size_t smem, std::type_identity_t<P>... args) const {
    const void* k = reinterpret_cast<const void*>(kernel);
    if (smem > 48 * 1024) allow_smem(k, smem);
    void* ptrs[] = {static_cast<void*>(&args)...};
    (void)cudaLaunchKernel(k, grid, block, ptrs, smem, stream);  // errors: cudaGetLastError
  }
};

// x = d; a0, c0 = a, c with the ignored ends zeroed; b0 = b unless b0 is null. u: fast index,
// v: slow (as pcr_global_kernel).
template <class T, bool INTER>
__global__ void vendor_prep_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                                   const T* __restrict__ d, T* __restrict__ a0, T* __restrict__ b0, T* __restrict__ c0,
                                   T* __restrict__ x, std::size_t n, std::size_t batch) {
  const std::size_t nu = INTER ? batch : n, nv = INTER ? n : batch;
  for (std::size_t vv = blockIdx.y; vv < nv; vv += gridDim.y) {
    for (std::size_t u = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; u < nu;
         u += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
      const std::size_t i = INTER ? vv : u;
      const std::size_t p = INTER ? vv * batch + u : vv * n + u;
      a0[p] = i == 0 ? T(0) : a[p];
      c0[p] = i + 1 == n ? T(0) : c[p];
      if (b0) b0[p] = b[p];
      x[p] = d[p];
    }
  }
}

}  // namespace

template <class T>
void launch_tridiag(const T* a, const T* b, const T* c, const T* d, T* x, const T* add, const unsigned long long* guard,
                    const TridiagLaunch& l, cudaStream_t stream) {
  if (l.shape.n == 0 || l.shape.batch == 0) return;
  StreamLauncher launch{stream, l.shape.sm_count};
  tri::enqueue<T>(launch, l, a, b, c, d, x, add, guard);
}

template <class T>
void launch_tridiag_vendor_prep(const T* a, const T* b, const T* c, const T* d, T* a0, T* b0, T* c0, T* x,
                                std::size_t n, std::size_t batch, TridiagLayout layout, cudaStream_t stream) {
  if (n == 0 || batch == 0) return;
  const bool inter = layout == TridiagLayout::Interleaved;
  const std::size_t nu = inter ? batch : n, nv = inter ? n : batch;
  const dim3 grid(static_cast<unsigned>(std::min<std::size_t>((nu + 255) / 256, 1u << 20)),
                  static_cast<unsigned>(std::min<std::size_t>(nv, 65535)));
  if (inter) vendor_prep_kernel<T, true><<<grid, 256, 0, stream>>>(a, b, c, d, a0, b0, c0, x, n, batch);
  else vendor_prep_kernel<T, false><<<grid, 256, 0, stream>>>(a, b, c, d, a0, b0, c0, x, n, batch);
}

template void launch_tridiag<float>(const float*, const float*, const float*, const float*, float*, const float*,
                                    const unsigned long long*, const TridiagLaunch&, cudaStream_t);
template void launch_tridiag<double>(const double*, const double*, const double*, const double*, double*, const double*,
                                     const unsigned long long*, const TridiagLaunch&, cudaStream_t);
template void launch_tridiag_vendor_prep<float>(const float*, const float*, const float*, const float*, float*, float*,
                                                float*, float*, std::size_t, std::size_t, TridiagLayout, cudaStream_t);
template void launch_tridiag_vendor_prep<double>(const double*, const double*, const double*, const double*, double*,
                                                 double*, double*, double*, std::size_t, std::size_t, TridiagLayout,
                                                 cudaStream_t);

}  // namespace poreflow::cu
