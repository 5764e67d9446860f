#pragma once
// The tridiag family (twin: kernels_cl/tridiag.cl): batched solves of
//   a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i,  i = 0..m-1  (a_0 and c_{m-1} ignored),
// with the arithmetic of core/reference/tridiag_host.hpp: one reduction step of CR and PCR is
// tridiag_host::reduce_eq, and a neighbour outside the system is the identity equation x = 0.
// Reducing with an identity changes nothing, so the kernels pad systems with identities freely.
//
// Kernels (the plan at the end picks and chains them):
//   thomas_direct_kernel  one thread per system, rows read where they lie (coalesced when the
//                         systems are interleaved); c' in scratch, d' in x.
//   thomas_tiled_kernel   one thread per system of the contiguous layout; tiles of 32 rows of 32
//                         systems pass through shared memory so that global accesses coalesce.
//   cr_kernel             CR and the CR+PCR hybrid, register-blocked: each thread holds M
//                         consecutive rows and does the first log2(M) CR levels on them alone
//                         (one exchange with its neighbour thread), the one equation per thread
//                         that is left goes through CR (or CR down to kCrPcrStop, then PCR) in
//                         shared memory, and the back substitution runs the other way.
//   pcr_kernel            PCR and PCR+Thomas: thread t holds rows t, t+P, t+2P, ...; PCR levels
//                         exchange whole equations through shared memory; PCR runs until every
//                         row is alone, PCR+Thomas stops after log2(P) levels, when each
//                         thread's rows form one independent system, and runs Thomas on them.
//   pcr_global_kernel     one PCR level in global memory: systems too long for the chip are
//                         split into K = 2^levels interleaved subsystems, which cr_kernel or
//                         pcr_kernel then solve with the requested algorithm.
//
// Only the CUDA subset that a CPU emulation of a thread block (threads plus a barrier) can also
// run is used here (no warp intrinsics), so the index logic can be checked without a GPU.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "kernels_cu/launch.hpp"

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

// a / b from the hardware's approximate reciprocal, refined by Newton steps to within about an
// ulp of the rounded quotient. The compiler's IEEE division calls a slow-path subroutine that
// costs registers (and spills) in these register-heavy kernels. No pivoting anyway: the
// divisors are diagonals of diagonally dominant systems, far from 0 and from denormals.
__host__ __device__ __forceinline__ float dv(float a, float b) {
#ifdef __CUDA_ARCH__
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
  const float q = a * r;
  return fmaf(r, fmaf(-b, q, a), q);
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

// ---- where the systems lie ----------------------------------------------------------------------
// Row j of system s is at off(s) + j * sj, off(s) = (s / q) * s1 + (s % q) * s2. After `levels`
// global PCR levels (k = 2^levels), subsystem s holds the rows r, r + k, r + 2k, ... of an
// original system of n rows, r = (s / r1) % k; the whole systems are the case k = 1.
//   contiguous:  s1 = n, sj = 1;       split: s = sys * k + r,  q = k, s2 = 1, sj = k, r1 = 1
//   interleaved: s1 = 1, sj = batch;   split: s = r * batch + sys,  sj = k * batch, r1 = batch
// The split subsystems stay where their rows are, so x is written through the same view.
struct View {
  std::size_t s1 = 0, s2 = 0, sj = 1, n = 0, r1 = 1, count = 0;
  unsigned q = 1, k = 1;

  __host__ __device__ std::size_t off(std::size_t s) const { return q == 1 ? s * s1 : (s / q) * s1 + (s % q) * s2; }
  __host__ __device__ std::size_t rows(std::size_t s) const {
    if (k == 1) return n;
    const std::size_t r = (s / r1) % k;
    return (n - r + k - 1) / k;
  }
};

inline View make_view(bool inter, std::size_t n, std::size_t batch, unsigned k) {
  View v;
  v.n = n;
  v.k = k;
  v.count = batch * k;
  if (inter) {
    v.s1 = 1;
    v.sj = k * batch;
    v.r1 = batch;
  } else {
    v.q = k;
    v.s1 = n;
    v.s2 = 1;
    v.sj = k;
  }
  return v;
}

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

// Threads per block of a kernel whose threads hold M equations (4M values of T) in registers:
// the most that leave each thread the registers it needs without spills (ptxas -v; a block's
// warps are allotted registers in groups of four, so the counts are multiples of 128 threads).
template <class T, int M>
constexpr int max_threads() {
  if constexpr (sizeof(T) == 4) return M <= 4 ? 1024 : M == 8 ? 640 : 512;
  else return M <= 4 ? 640 : M == 8 ? 512 : 384;
}

// ---- Thomas ---------------------------------------------------------------------------------------

constexpr int kThomasBlock = 128;
constexpr int kThomasUnroll = 8;  // rows loaded together, to keep loads in flight while the chain runs

template <class T>
__global__ void __launch_bounds__(kThomasBlock)
    thomas_direct_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                         const T* __restrict__ d, T* __restrict__ x, T* __restrict__ cp, View v) {
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
    T cv[U], dv[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const std::size_t j = j0 + u;
      cv[u] = j < j1 ? cp[o + j * sj] : T(0);
      dv[u] = j < j1 ? x[o + j * sj] : T(0);
    }
#pragma unroll
    for (int u = U - 1; u >= 0; --u) {
      const std::size_t j = j0 + u;
      if (j < j1) {
        xn = dv[u] - cv[u] * xn;
        x[o + j * sj] = xn;
      }
    }
    j1 = j0;
  }
}

constexpr int kTileSys = 32;   // systems (threads) per block
constexpr int kTileRows = 32;  // rows per tile: 32 consecutive values of one system per warp access

template <class T>
constexpr std::size_t tiled_smem_bytes() {
  return 4 * kTileSys * (kTileRows + 1) * sizeof(T);
}

template <class T>
__global__ void __launch_bounds__(kTileSys)
    thomas_tiled_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                        const T* __restrict__ d, T* __restrict__ x, T* __restrict__ cp, std::size_t n,
                        std::size_t batch) {
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
      if (j < rows) x[base + sys * n + r0 + j] = sd[sys * RP + j];
    }
    __syncthreads();
  }
}

// ---- CR and CR+PCR, register-blocked --------------------------------------------------------------
// Block: G systems x P threads, thread tid = t * G + g (g fastest, so that a warp's loads of an
// interleaved view cover G neighbouring systems). Thread t of system g holds rows tM .. tM+M-1;
// rows past the system are identities, so CR runs on P*M rows exactly as on the host's n.
// STAGED (contiguous layout, whole systems): the block's systems are one contiguous range,
// copied in global order into shared memory, from where each thread takes its rows.

constexpr int kCrPcrStop = 32;  // CR+PCR: CR until at most this many equations, then PCR

template <class T>
__host__ __device__ __forceinline__ int pad(int f) {
  // one gap every 32 (4-byte T) or 16 (8-byte T) values: a warp reading rows tM + j is conflict-free
  return f + (f >> (sizeof(T) == 4 ? 5 : 4));
}

template <class T, int M, bool STAGED, bool HYBRID>
__global__ void __launch_bounds__(max_threads<T, M>())
    cr_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c, const T* __restrict__ d,
              T* __restrict__ x, View v, int P, int G) {
  constexpr int Q = log2c<M>();  // CR levels inside a thread
  static_assert(M >= 2 && (M & (M - 1)) == 0, "M is a power of two");
  const int tid = threadIdx.x, bd = blockDim.x;  // bd == G * P
  const int g = tid % G, t = tid / G;
  const std::size_t sys0 = static_cast<std::size_t>(blockIdx.x) * G, sys = sys0 + g;
  const std::size_t m = sys < v.count ? v.rows(sys) : 0;
  const std::size_t off = sys < v.count ? v.off(sys) : 0;
  const int row0 = t * M;
  T* sm = smem<T>();
  Eq<T> e[M];

  // ---- load
  int flat = 0;  // STAGED: values of the block's systems
  std::size_t base = 0;
  if constexpr (STAGED) {
    const std::size_t gs = v.count - sys0 < static_cast<std::size_t>(G) ? v.count - sys0 : G;
    flat = static_cast<int>(gs * v.n);
    base = sys0 * v.n;
    // the four arrays in global order into four planes (f = tid + u * bd covers flat <= bd * M),
    // then each thread takes its rows; the planes are skewed against bank conflicts
    const int plane = pad<T>(G * static_cast<int>(v.n)) + 1;
#pragma unroll
    for (int u = 0; u < M; ++u) {
      const int f = tid + u * bd;
      if (f < flat) {
        const int q = pad<T>(f);
        sm[q] = a[base + f];
        sm[q + plane] = b[base + f];
        sm[q + 2 * plane] = c[base + f];
        sm[q + 3 * plane] = d[base + f];
      }
    }
    __syncthreads();
    const int mine = g * static_cast<int>(v.n) + row0;  // flat index of this thread's first row
    const int mi = static_cast<int>(m);
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
  } else {
#pragma unroll
    for (int j = 0; j < M; ++j) {
      const std::size_t row = static_cast<std::size_t>(row0 + j);
      e[j] = row < m ? load_eq(a, b, c, d, off + row * v.sj, row, m) : ident<T>();
    }
  }

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
  T* ex = sm;  // [Q][4][bd]
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
  T* top = sm;          // [4][bd]: a, b, c, d
  T* tx = sm + 4 * bd;  // [bd]: solutions
  T* pp = sm + 5 * bd;  // [4][bd]: second buffer of the PCR part
  put(top, bd, tid, e[M - 1]);
  __syncthreads();
  constexpr int stop = HYBRID ? kCrPcrStop : 1;
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

  // ---- store
  if constexpr (STAGED) {
    __syncthreads();  // tx is read above; the staging buffer overlaps it
    const int mine = g * static_cast<int>(v.n) + row0;
    const int mi = static_cast<int>(m);
#pragma unroll
    for (int j = 0; j < M; ++j)
      if (row0 + j < mi) sm[pad<T>(mine + j)] = e[j].d;
    __syncthreads();
#pragma unroll
    for (int u = 0; u < M; ++u) {
      const int f = tid + u * bd;
      if (f < flat) x[base + f] = sm[pad<T>(f)];
    }
  } else {
#pragma unroll
    for (int j = 0; j < M; ++j) {
      const std::size_t row = static_cast<std::size_t>(row0 + j);
      if (row < m) x[off + row * v.sj] = e[j].d;
    }
  }
}

// ---- PCR and PCR+Thomas, cyclic rows ---------------------------------------------------------------
// Block: G systems x P threads (P a power of two), tid = t * G + g; thread t holds rows t + jP.
// Shared memory holds every row of the block's systems: [4][mcap][G], row-major over systems.

template <class T, int M, bool THOMAS>
__global__ void __launch_bounds__(max_threads<T, M>())
    pcr_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c, const T* __restrict__ d,
               T* __restrict__ x, View v, int P, int G, int mcap) {
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
    if (row < m) x[off + static_cast<std::size_t>(row) * v.sj] = e[j].d;
  }
}

// ---- one PCR level in global memory ------------------------------------------------------------
// Reads level input (a, b, c, d), writes level output (a2 ...) at the same positions. u runs over
// the fast index (rows of a contiguous system, systems of interleaved ones), v over the other.

constexpr int kGlobalBlock = 256;

template <class T, bool INTER>
__global__ void __launch_bounds__(kGlobalBlock)
    pcr_global_kernel(const T* __restrict__ a, const T* __restrict__ b, const T* __restrict__ c,
                      const T* __restrict__ d, T* __restrict__ a2, T* __restrict__ b2, T* __restrict__ c2,
                      T* __restrict__ d2, std::size_t n, std::size_t batch, std::size_t s) {
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

// ---- the plan ---------------------------------------------------------------------------------------

enum class Kern { ThomasDirect, ThomasTiled, Cr, Pcr };

struct Plan {
  Kern kern = Kern::ThomasDirect;
  int M = 0, P = 0, G = 1;  // rows per thread, threads per system, systems per block
  bool staged = false;      // cr_kernel: contiguous systems through shared memory
  unsigned K = 1;           // subsystems per system after log2(K) global PCR levels
  int threads = 0;
  std::size_t grid = 0, smem = 0;
  std::size_t scratch = 0;  // elements of T
  int mcap = 0;             // longest (sub)system
  View view;                // what the last kernel solves
};

constexpr std::size_t kSmemCap = 160 * 1024;  // leave room for a second block on an SM when possible
constexpr int kStagedThreads = 256;           // small contiguous systems: several per block up to this
constexpr int kMinGroupBytes = 16;            // interleaved views: neighbouring systems per warp access

inline std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }
inline unsigned log2c_rt(unsigned k) {
  unsigned l = 0;
  while ((1u << l) < k) ++l;
  return l;
}
inline int next_pow2(std::size_t v) {
  int p = 1;
  while (static_cast<std::size_t>(p) < v) p *= 2;
  return p;
}

// Rows per thread the kernels are built for.
template <class T>
int max_rows() {
  return 16;
}

// Default rows per thread: few threads per system for short ones (fewer levels across threads),
// more rows per thread as systems grow (the block's thread limit).
inline int default_rows(std::size_t m) { return m <= 256 ? 4 : m <= 2048 ? 8 : 16; }

// Fits cr_kernel (cr) or pcr_kernel for systems of at most m rows in view v; fills p. `whole`:
// contiguous whole systems (a block's systems are one range; short ones are grouped up to
// kStagedThreads threads); otherwise a block takes neighbouring systems of an interleaved or
// split view, at least kMinGroupBytes of them side by side.
template <class T>
bool fit_onchip(Plan& p, bool cr, bool whole, std::size_t m, const View& v, std::size_t smem_cap,
                const TridiagTuning& tune) {
  const int gmin = static_cast<int>(std::min<std::size_t>(v.count, kMinGroupBytes / sizeof(T)));
  const int gdirect = static_cast<int>(std::min<std::size_t>(v.count, 64 / sizeof(T)));
  const int mmax = cr ? max_rows<T>() : 8;  // pcr_kernel is built for 4 and 8 rows
  for (int M = tune.rows > 0 ? tune.rows : std::min(default_rows(m), mmax); M <= mmax; M *= 2) {
    const int cap = M == 4 ? max_threads<T, 4>() : M == 8 ? max_threads<T, 8>() : max_threads<T, 16>();
    const std::size_t pm = ceil_div(m, M);
    const int P = pm > static_cast<std::size_t>(cap) ? cap + 1 : cr ? static_cast<int>(pm) : next_pow2(pm);
    int G = 0;
    if (P <= cap) {
      if (tune.group > 0) G = tune.group;
      else if (whole) G = static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(v.count, kStagedThreads / P)));
      else G = std::min(gdirect, cap / P) >= gmin ? std::min(gdirect, cap / P) : 0;
    }
    std::size_t sm = 0;
    if (G > 0 && G * P <= cap) {
      const std::size_t bd = static_cast<std::size_t>(G) * P;
      if (cr) {
        const int Q = M == 4 ? 2 : M == 8 ? 3 : 4;
        sm = static_cast<std::size_t>(std::max(4 * Q, 9)) * bd;
        if (whole) sm = std::max<std::size_t>(sm, 4 * (static_cast<std::size_t>(pad<T>(static_cast<int>(G * v.n))) + 1));
      } else {
        sm = 4 * m * G;
      }
      sm *= sizeof(T);
    }
    if (G == 0 || G * P > cap || sm > smem_cap) {
      if (tune.rows > 0) return false;
      continue;
    }
    p.M = M;
    p.P = P;
    p.G = G;
    p.threads = G * P;
    p.smem = sm;
    p.grid = ceil_div(v.count, G);
    p.mcap = static_cast<int>(m);
    p.staged = cr && whole;
    return true;
  }
  return false;
}

template <class T>
Plan make_plan(const TridiagLaunch& l) {
  Plan p;
  const bool inter = l.layout == TridiagLayout::Interleaved;
  const std::size_t n = l.n, batch = l.batch;
  const std::size_t smem_cap = std::min<std::size_t>(l.max_smem, kSmemCap);
  if (l.algo == TridiagAlgo::Thomas) {
    p.kern = inter ? Kern::ThomasDirect : Kern::ThomasTiled;
    p.view = make_view(inter, n, batch, 1);
    p.scratch = n * batch;  // c'
    p.threads = inter ? kThomasBlock : kTileSys;
    p.grid = ceil_div(batch, static_cast<std::size_t>(p.threads));
    p.smem = inter ? 0 : tiled_smem_bytes<T>();
    p.mcap = static_cast<int>(std::min<std::size_t>(n, 1u << 30));
    return p;
  }
  const bool cr = l.algo == TridiagAlgo::CR || l.algo == TridiagAlgo::CrPcr;
  p.kern = cr ? Kern::Cr : Kern::Pcr;
  for (unsigned K = 1;; K *= 2) {
    const std::size_t m = ceil_div(n, K);
    const bool forced = l.tune.split >= 0;
    if (forced && K < (1u << l.tune.split)) continue;
    const View v = make_view(inter, n, batch, K);
    if (fit_onchip<T>(p, cr, !inter && K == 1, m, v, smem_cap, l.tune)) {
      p.K = K;
      p.view = v;
      const unsigned levels = log2c_rt(K);
      p.scratch = levels == 0 ? 0 : (levels == 1 ? 4 : 8) * n * batch;
      return p;
    }
    if (forced || m <= 1)
      throw BackendError("tridiag: no kernel configuration for n = " + std::to_string(n) + " (" +
                               to_string(l.algo) + ", " + to_string(l.layout) + ")");
  }
}

// ---- enqueueing --------------------------------------------------------------------------------------
// `launch(kernel, grid, block, smem_bytes, args...)` enqueues one kernel: the CUDA stream launcher
// in tridiag.cu, or a CPU emulation of thread blocks.

template <class T, bool STAGED, bool HYBRID, class L>
void launch_cr(L& launch, const Plan& p, const T* a, const T* b, const T* c, const T* d, T* x) {
  const dim3 grid(static_cast<unsigned>(p.grid)), block(static_cast<unsigned>(p.threads));
  switch (p.M) {
    case 4: launch(cr_kernel<T, 4, STAGED, HYBRID>, grid, block, p.smem, a, b, c, d, x, p.view, p.P, p.G); break;
    case 8: launch(cr_kernel<T, 8, STAGED, HYBRID>, grid, block, p.smem, a, b, c, d, x, p.view, p.P, p.G); break;
    default: launch(cr_kernel<T, 16, STAGED, HYBRID>, grid, block, p.smem, a, b, c, d, x, p.view, p.P, p.G); break;
  }
}

template <class T, bool THOMAS, class L>
void launch_pcr(L& launch, const Plan& p, const T* a, const T* b, const T* c, const T* d, T* x) {
  const dim3 grid(static_cast<unsigned>(p.grid)), block(static_cast<unsigned>(p.threads));
  if (p.M == 4) launch(pcr_kernel<T, 4, THOMAS>, grid, block, p.smem, a, b, c, d, x, p.view, p.P, p.G, p.mcap);
  else launch(pcr_kernel<T, 8, THOMAS>, grid, block, p.smem, a, b, c, d, x, p.view, p.P, p.G, p.mcap);
}

template <class T, class L>
void enqueue(L& launch, const TridiagLaunch& l, const Plan& p) {
  const T* a = static_cast<const T*>(l.a);
  const T* b = static_cast<const T*>(l.b);
  const T* c = static_cast<const T*>(l.c);
  const T* d = static_cast<const T*>(l.d);
  T* x = static_cast<T*>(l.x);
  T* scr = static_cast<T*>(l.scratch);
  const bool inter = l.layout == TridiagLayout::Interleaved;
  const std::size_t n = l.n, batch = l.batch;
  switch (p.kern) {
    case Kern::ThomasDirect:
      launch(thomas_direct_kernel<T>, dim3(static_cast<unsigned>(p.grid)), dim3(kThomasBlock), 0, a, b, c, d, x, scr,
             p.view);
      return;
    case Kern::ThomasTiled:
      launch(thomas_tiled_kernel<T>, dim3(static_cast<unsigned>(p.grid)), dim3(kTileSys), p.smem, a, b, c, d, x, scr,
             n, batch);
      return;
    default: break;
  }
  if (p.K > 1) {
    // log2(K) PCR levels in global memory, ping-ponging between two sets of four arrays
    const std::size_t nb = n * batch;
    const std::size_t nu = inter ? batch : n, nv = inter ? n : batch;
    const dim3 grid(static_cast<unsigned>(std::min<std::size_t>(ceil_div(nu, kGlobalBlock), 1u << 20)),
                    static_cast<unsigned>(std::min<std::size_t>(nv, 65535)));
    int set = 0;
    for (std::size_t s = 1; s < p.K; s *= 2, set ^= 1) {
      T* o = scr + static_cast<std::size_t>(set) * 4 * nb;
      if (inter)
        launch(pcr_global_kernel<T, true>, grid, dim3(kGlobalBlock), 0, a, b, c, d, o, o + nb, o + 2 * nb, o + 3 * nb,
               n, batch, s);
      else
        launch(pcr_global_kernel<T, false>, grid, dim3(kGlobalBlock), 0, a, b, c, d, o, o + nb, o + 2 * nb,
               o + 3 * nb, n, batch, s);
      a = o;
      b = o + nb;
      c = o + 2 * nb;
      d = o + 3 * nb;
    }
  }
  switch (l.algo) {
    case TridiagAlgo::CR:
      if (p.staged) launch_cr<T, true, false>(launch, p, a, b, c, d, x);
      else launch_cr<T, false, false>(launch, p, a, b, c, d, x);
      break;
    case TridiagAlgo::CrPcr:
      if (p.staged) launch_cr<T, true, true>(launch, p, a, b, c, d, x);
      else launch_cr<T, false, true>(launch, p, a, b, c, d, x);
      break;
    case TridiagAlgo::PCR: launch_pcr<T, false>(launch, p, a, b, c, d, x); break;
    default: launch_pcr<T, true>(launch, p, a, b, c, d, x); break;
  }
}

}  // namespace poreflow::cu::tri
