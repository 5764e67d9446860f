/* tridiag: batched solves of a_i x_{i-1} + b_i x_i + c_i x_{i+1} = d_i (a_0, c_{m-1} ignored), the
   twin of kernels_cu/tridiag.cu: the same kernels, index maps and arithmetic
   (backends/host/tridiag_host.hpp's reduce_eq; a neighbour outside a system is the identity
   equation x = 0, so systems are padded with identities freely). See that file for the design.

   The CUDA templates that shape the code are compile-time #defines here: the backend builds this
   file alone, once per launch shape (backends/opencl/tridiag.cpp), with PF_BLOCK the exact
   work-group size (the reqd_work_group_size of PF_KERNEL stands in for __launch_bounds__) and
     TRI_THOMAS_DIRECT | TRI_THOMAS_TILED | TRI_CR | TRI_PCR | TRI_PCR_GLOBAL | TRI_PCR_SPLIT
     TRI_M       rows per work-item (cr, pcr), TRI_Q = log2(TRI_M)
     TRI_STAGED  cr: contiguous whole systems through local memory, 4 or 1 planes at a time
     TRI_INTER   pcr_global, pcr_split: interleaved layout
   The two that only move a loop bound are arguments, which halves the programs PoCL compiles:
   cr's `stop` (CUDA's HYBRID: 1 for CR, 32 for CR+PCR) and pcr's `thomas` (THOMAS).
   Unlike CUDA, a cr or pcr group may have more work-items than its G * P (the host rounds the group
   size up, tridiag.cpp): the extra ones (t >= P) hold identities and never touch a row.
   PoCL 3.1: barriers only on the kernel's top level or in uniform loops there, no early return in
   a kernel with barriers (see jacobi1d.cl).
   Every kernel takes a guard (a control block of core/base/converge.h, or null): once it says
   stop, the solve does nothing. The kernels that store the solution take `add` (or null): x then
   receives the solution plus add. Kernels without barriers return at once; the others run their
   barriers on empty work, without a load or a store. */
#include "core/base/converge.h"

typedef struct {
  pf_real a, b, c, d;
} tri_eq;

int tri_stopped(__global const ulong* guard) { return guard != 0 && guard[PF_CV_STOP] != 0; }

/* a solution value as stored: plus add[p] when the solve updates an iterate (may be null) */
pf_real tri_plus(pf_real v, __global const pf_real* add, ulong p) { return add != 0 ? v + add[p] : v; }

tri_eq tri_ident(void) {
  tri_eq e = {(pf_real)0, (pf_real)1, (pf_real)0, (pf_real)0};
  return e;
}

/* a / b as the CUDA twin's dv(): on NVIDIA the approximate reciprocal (double: refined by Newton
   steps to about an ulp; float: within 2 ulps as it is), since IEEE division is a register-hungry
   subroutine (and -cl-fp32-correctly-rounded-divide-sqrt asks for it in float); elsewhere plain
   division. The divisors are diagonals of diagonally dominant systems, far from 0 and denormals. */
pf_real tri_dv(pf_real a, pf_real b) {
#if defined(PF_NV_PTX) && PF_DOUBLE
  double r;
  asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(r) : "d"(b));
  r = fma(r, fma(-b, r, 1.0), r);
  r = fma(r, fma(-b, r, 1.0), r);
  const double q = a * r;
  return fma(r, fma(-b, q, a), q);
#elif defined(PF_NV_PTX)
  float r;
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(b));
  return a * r;
#else
  return a / b;
#endif
}

/* reduce_eq with identities for the missing neighbours */
tri_eq tri_reduce(tri_eq e, tri_eq l, tri_eq r) {
  const pf_real k1 = tri_dv(e.a, l.b), k2 = tri_dv(e.c, r.b);
  tri_eq o = {-l.a * k1, e.b - l.c * k1 - r.a * k2, -r.c * k2, e.d - l.d * k1 - r.d * k2};
  return o;
}

/* row `row` of a system of m rows at position p; the ignored ends are replaced by 0 (they may
   hold anything, NaN included) */
tri_eq tri_load(__global const pf_real* restrict a, __global const pf_real* restrict b,
                __global const pf_real* restrict c, __global const pf_real* restrict d, ulong p, ulong row, ulong m) {
  tri_eq e = {row == 0 ? (pf_real)0 : a[p], b[p], row + 1 == m ? (pf_real)0 : c[p], d[p]};
  return e;
}

/* ---- where the systems lie (View of tridiag.cuh): v = (s1, s2, sj, n, r1, count, q, k) --------
   row j of system s at off(s) + j * sj; after log2(k) global PCR levels subsystem s holds rows
   r, r + k, ... of an original system, r = (s / r1) % k */
ulong tri_off(ulong8 v, ulong s) { return v.s6 == 1 ? s * v.s0 : (s / v.s6) * v.s0 + (s % v.s6) * v.s1; }
ulong tri_rows(ulong8 v, ulong s) {
  if (v.s7 == 1) return v.s3;
  const ulong r = (s / v.s4) % v.s7;
  return (v.s3 - r + v.s7 - 1) / v.s7;
}

/* an equation as four planes of `stride` values in local memory */
void tri_put(__local pf_real* s, int stride, int i, tri_eq e) {
  s[i] = e.a;
  s[i + stride] = e.b;
  s[i + 2 * stride] = e.c;
  s[i + 3 * stride] = e.d;
}
tri_eq tri_get(__local const pf_real* s, int stride, int i) {
  tri_eq e = {s[i], s[i + stride], s[i + 2 * stride], s[i + 3 * stride]};
  return e;
}

/* the solve kernels' leading parameters (TridiagArgs::kernel_args; add and guard may be null); what
   the plan adds follows them */
#define TRI_ARGS                                                                                          \
  __global const pf_real *restrict a, __global const pf_real *restrict b, __global const pf_real *restrict c, \
      __global const pf_real *restrict d, __global pf_real *restrict x, __global const pf_real *add,            \
      __global const ulong *guard

/* ---- Thomas, one work-item per system, rows where they lie; c' in cp, d' in x ----------------- */
#if defined(TRI_THOMAS_DIRECT)
#define TRI_U 8 /* rows loaded together, to keep loads in flight while the chain runs */
PF_KERNEL void tridiag_thomas_direct(TRI_ARGS, __global pf_real* restrict cp, ulong8 v) {
  const ulong s = get_global_id(0);
  if (s >= v.s5 || tri_stopped(guard)) return;
  const ulong o = tri_off(v, s), m = tri_rows(v, s), sj = v.s2;
  pf_real cprev = (pf_real)0, dprev = (pf_real)0;
  for (ulong j0 = 0; j0 < m; j0 += TRI_U) {
    tri_eq e[TRI_U];
#pragma unroll
    for (int u = 0; u < TRI_U; ++u) e[u] = j0 + u < m ? tri_load(a, b, c, d, o + (j0 + u) * sj, j0 + u, m) : tri_ident();
#pragma unroll
    for (int u = 0; u < TRI_U; ++u) {
      if (j0 + u < m) {
        const pf_real inv = tri_dv((pf_real)1, e[u].b - e[u].a * cprev);
        cprev = e[u].c * inv;
        dprev = (e[u].d - e[u].a * dprev) * inv;
        cp[o + (j0 + u) * sj] = cprev;
        x[o + (j0 + u) * sj] = dprev;
      }
    }
  }
  pf_real xn = (pf_real)0;
  for (ulong j1 = m; j1 > 0;) {
    const ulong j0 = j1 > TRI_U ? j1 - TRI_U : 0;
    pf_real cv[TRI_U], dv[TRI_U], av[TRI_U]; /* add's values loaded with the others (the CUDA twin) */
#pragma unroll
    for (int u = 0; u < TRI_U; ++u) {
      cv[u] = j0 + u < j1 ? cp[o + (j0 + u) * sj] : (pf_real)0;
      dv[u] = j0 + u < j1 ? x[o + (j0 + u) * sj] : (pf_real)0;
      av[u] = add != 0 && j0 + u < j1 ? add[o + (j0 + u) * sj] : (pf_real)0;
    }
#pragma unroll
    for (int u = TRI_U - 1; u >= 0; --u) {
      if (j0 + u < j1) {
        xn = dv[u] - cv[u] * xn;
        x[o + (j0 + u) * sj] = add != 0 ? xn + av[u] : xn;
      }
    }
    j1 = j0;
  }
}
#endif

/* ---- Thomas on the contiguous layout: a group of 32 systems, tiles of 32 rows through local
   memory so that global accesses coalesce (PF_BLOCK == TRI_TILE) -------------------------------- */
#if defined(TRI_THOMAS_TILED)
#define TRI_TILE 32
#define TRI_RP (TRI_TILE + 1) /* rows padded against bank conflicts */
PF_KERNEL void tridiag_thomas_tiled(TRI_ARGS, __global pf_real* restrict cp, ulong n, ulong batch) {
  __local pf_real sa[TRI_TILE * TRI_RP], sb[TRI_TILE * TRI_RP], sc[TRI_TILE * TRI_RP], sd[TRI_TILE * TRI_RP];
  const int W = TRI_TILE, R = TRI_TILE;
  const int tid = get_local_id(0);
  const ulong s0 = get_group_id(0) * (ulong)W;
  const int ns = (int)(batch - s0 < (ulong)W ? batch - s0 : (ulong)W);
  const ulong base = s0 * n, tiles = tri_stopped(guard) ? 0 : (n + R - 1) / R;
  pf_real cprev = (pf_real)0, dprev = (pf_real)0;
  for (ulong tile = 0; tile < tiles; ++tile) {
    const ulong r0 = tile * R;
    const int rows = (int)(n - r0 < (ulong)R ? n - r0 : (ulong)R);
    for (int k = tid; k < ns * R; k += W) {
      const int sys = k / R, j = k % R;
      if (j < rows) {
        const ulong row = r0 + j, p = base + sys * n + row;
        const int q = sys * TRI_RP + j;
        sa[q] = row == 0 ? (pf_real)0 : a[p];
        sb[q] = b[p];
        sc[q] = row + 1 == n ? (pf_real)0 : c[p];
        sd[q] = d[p];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < ns) {
      for (int j = 0; j < rows; ++j) {
        const int q = tid * TRI_RP + j;
        const pf_real aj = sa[q], inv = tri_dv((pf_real)1, sb[q] - aj * cprev);
        cprev = sc[q] * inv;
        dprev = (sd[q] - aj * dprev) * inv;
        sc[q] = cprev;
        sd[q] = dprev;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = tid; k < ns * R; k += W) {
      const int sys = k / R, j = k % R;
      if (j < rows) {
        const ulong p = base + sys * n + r0 + j;
        cp[p] = sc[sys * TRI_RP + j];
        x[p] = sd[sys * TRI_RP + j];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  pf_real xn = (pf_real)0;
  for (ulong tile = tiles; tile-- > 0;) {
    const ulong r0 = tile * R;
    const int rows = (int)(n - r0 < (ulong)R ? n - r0 : (ulong)R);
    for (int k = tid; k < ns * R; k += W) {
      const int sys = k / R, j = k % R;
      if (j < rows) {
        const ulong p = base + sys * n + r0 + j;
        sc[sys * TRI_RP + j] = cp[p];
        sd[sys * TRI_RP + j] = x[p];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (tid < ns) {
      for (int j = rows - 1; j >= 0; --j) {
        const int q = tid * TRI_RP + j;
        xn = sd[q] - sc[q] * xn;
        sd[q] = xn;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (int k = tid; k < ns * R; k += W) {
      const int sys = k / R, j = k % R;
      if (j < rows) x[base + sys * n + r0 + j] = tri_plus(sd[sys * TRI_RP + j], add, base + sys * n + r0 + j);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}
#endif

/* ---- CR and CR+PCR, register-blocked: G systems x P work-items, tid = t * G + g; work-item t of
   system g holds rows tM .. tM+M-1 (identities past the system) ------------------------------ */
#if defined(TRI_CR)
/* one gap every 32 (float) or 16 (double) values: reads of rows tM + j are conflict-free */
#if PF_DOUBLE
#define TRI_PAD(f) ((f) + ((f) >> 4))
#else
#define TRI_PAD(f) ((f) + ((f) >> 5))
#endif

PF_KERNEL void tridiag_cr(TRI_ARGS, ulong8 v, int P, int G, int stop, __local pf_real* sm) {
  const int tid = get_local_id(0), bd = PF_BLOCK; /* bd >= G * P */
  const int g = tid % G, t = tid / G;
  const int halt = tri_stopped(guard);
  const ulong sys0 = get_group_id(0) * (ulong)G, sys = sys0 + g;
  const ulong m = !halt && sys < v.s5 ? tri_rows(v, sys) : 0;
  const ulong off = sys < v.s5 ? tri_off(v, sys) : 0;
  const int row0 = t * TRI_M;
  tri_eq e[TRI_M];

  /* ---- load */
#if TRI_STAGED
  const ulong gs = halt ? 0 : v.s5 - sys0 < (ulong)G ? v.s5 - sys0 : (ulong)G;
  const int flat = (int)(gs * v.s3);
  const ulong base = sys0 * v.s3;
  /* the arrays in global order into planes (f = tid + u * bd covers flat <= bd * M), then each
     work-item takes its rows; the planes are skewed against bank conflicts. TRI_STAGED 4: all
     four planes at once (CUDA); 1: one array at a time through one plane, four rounds, where four
     planes do not fit the local memory (48 KB on NVIDIA's OpenCL) */
  const int plane = TRI_PAD(G * (int)v.s3) + 1;
  const int mine = g * (int)v.s3 + row0; /* flat index of this work-item's first row */
  const int mi = (int)m;
#pragma unroll
  for (int r = 0; r < 4 / TRI_STAGED; ++r) {
#pragma unroll
    for (int u = 0; u < TRI_M; ++u) {
      const int f = tid + u * bd;
      if (f < flat) {
        const int q = TRI_PAD(f);
        if (TRI_STAGED == 4 || r == 0) sm[q] = a[base + f];
        if (TRI_STAGED == 4 || r == 1) sm[q + (TRI_STAGED == 4) * plane] = b[base + f];
        if (TRI_STAGED == 4 || r == 2) sm[q + (TRI_STAGED == 4) * 2 * plane] = c[base + f];
        if (TRI_STAGED == 4 || r == 3) sm[q + (TRI_STAGED == 4) * 3 * plane] = d[base + f];
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int j = 0; j < TRI_M; ++j) {
      const int row = row0 + j, q = TRI_PAD(mine + j);
      const int p1 = (TRI_STAGED == 4) * plane;
      if (TRI_STAGED == 4 || r == 0) e[j].a = row < mi && row > 0 ? sm[q] : (pf_real)0;
      if (TRI_STAGED == 4 || r == 1) e[j].b = row < mi ? sm[q + p1] : (pf_real)1;
      if (TRI_STAGED == 4 || r == 2) e[j].c = row + 1 < mi ? sm[q + 2 * p1] : (pf_real)0;
      if (TRI_STAGED == 4 || r == 3) e[j].d = row < mi ? sm[q + 3 * p1] : (pf_real)0;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#else
#pragma unroll
  for (int j = 0; j < TRI_M; ++j) {
    const ulong row = (ulong)(row0 + j);
    e[j] = row < m ? tri_load(a, b, c, d, off + row * v.s2, row, m) : tri_ident();
  }
#endif

  /* ---- CR levels inside the work-item: level L (span s = 2^L) reduces rows j with
     (j+1) % 2s == 0 against j - s and j + s; all but the last row's are local */
#pragma unroll
  for (int L = 0; L < TRI_Q; ++L) {
    const int s = 1 << L;
#pragma unroll
    for (int j = 2 * s - 1; j < TRI_M - 1; j += 2 * s) e[j] = tri_reduce(e[j], e[j - s], e[j + s]);
  }
  /* the last row's level L needs the next work-item's row 2^L - 1, final by now: publish those */
  __local pf_real* ex = sm; /* [Q][4][bd] */
#pragma unroll
  for (int L = 0; L < TRI_Q; ++L) tri_put(ex + L * 4 * bd, bd, tid, e[(1 << L) - 1]);
  barrier(CLK_LOCAL_MEM_FENCE);
  const int last = t + 1 >= P;
#pragma unroll
  for (int L = 0; L < TRI_Q; ++L) {
    const tri_eq r = last ? tri_ident() : tri_get(ex + L * 4 * bd, bd, tid + G);
    e[TRI_M - 1] = tri_reduce(e[TRI_M - 1], e[TRI_M - 1 - (1 << L)], r);
  }
  barrier(CLK_LOCAL_MEM_FENCE); /* ex is reused below */

  /* ---- the P equations left (one per work-item): CR across work-items, in place */
  __local pf_real* top = sm;          /* [4][bd] */
  __local pf_real* tx = sm + 4 * bd;  /* [bd] solutions */
  __local pf_real* pp = sm + 5 * bd;  /* [4][bd] second buffer of the PCR part */
  tri_put(top, bd, tid, e[TRI_M - 1]);
  barrier(CLK_LOCAL_MEM_FENCE);
  int s = 1;
  for (; P / s > stop; s *= 2) {
    if ((t + 1) % (2 * s) == 0 && t < P) {
      const tri_eq r = t + s < P ? tri_get(top, bd, tid + s * G) : tri_ident();
      tri_put(top, bd, tid, tri_reduce(tri_get(top, bd, tid), tri_get(top, bd, tid - s * G), r));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  /* PCR on the mt = P / s equations left, rows s - 1 + k s, work-item t taking k = t;
     ping-pong between top and pp, one barrier a level */
  const int mt = P / s;
  const int ki = (s - 1 + t * s) * G + g;
  __local pf_real* src = top;
  __local pf_real* dst = pp;
  for (int dd = 1; dd < mt; dd *= 2) {
    if (t < mt) {
      const tri_eq l = t >= dd ? tri_get(src, bd, ki - dd * s * G) : tri_ident();
      const tri_eq r = t + dd < mt ? tri_get(src, bd, ki + dd * s * G) : tri_ident();
      tri_put(dst, bd, ki, tri_reduce(tri_get(src, bd, ki), l, r));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __local pf_real* tmp = src;
    src = dst;
    dst = tmp;
  }
  if (t < mt) tx[ki] = tri_dv(src[ki + 3 * bd], src[ki + bd]);
  barrier(CLK_LOCAL_MEM_FENCE);
  /* back substitution of the CR levels across work-items */
  for (; s > 1; s /= 2) {
    const int h = s / 2;
    if ((t + 1) % s == h && t < P) {
      const pf_real xl = t >= h ? tx[tid - h * G] : (pf_real)0;
      const pf_real xr = t + h < P ? tx[tid + h * G] : (pf_real)0;
      const tri_eq q = tri_get(top, bd, tid);
      tx[tid] = tri_dv(q.d - q.a * xl - q.c * xr, q.b);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }

  /* ---- back substitution inside the work-item; x_j into e[j].d; row -1 is the previous
     work-item's last row */
  const pf_real xp = t > 0 ? tx[tid - G] : (pf_real)0;
  e[TRI_M - 1].d = tx[tid];
#pragma unroll
  for (int L = TRI_Q - 1; L >= 0; --L) {
    const int s2 = 1 << L;
#pragma unroll
    for (int j = s2 - 1; j < TRI_M - 1; j += 2 * s2) {
      const pf_real xl = j >= s2 ? e[j - s2].d : xp;
      e[j].d = tri_dv(e[j].d - e[j].a * xl - e[j].c * e[j + s2].d, e[j].b);
    }
  }

  /* ---- store */
#if TRI_STAGED
  barrier(CLK_LOCAL_MEM_FENCE); /* tx is read above; the staging buffer overlaps it */
#pragma unroll
  for (int j = 0; j < TRI_M; ++j)
    if (row0 + j < mi) sm[TRI_PAD(mine + j)] = e[j].d;
  barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
  for (int u = 0; u < TRI_M; ++u) {
    const int f = tid + u * bd;
    if (f < flat) x[base + f] = tri_plus(sm[TRI_PAD(f)], add, base + f);
  }
#else
#pragma unroll
  for (int j = 0; j < TRI_M; ++j) {
    const ulong row = (ulong)(row0 + j);
    if (row < m) x[off + row * v.s2] = tri_plus(e[j].d, add, off + row * v.s2);
  }
#endif
}
#endif

/* ---- PCR and PCR+Thomas, cyclic rows: G systems x P work-items (P a power of two), work-item t
   holds rows t + jP; local memory holds every row of the group's systems, [4][mcap][G] --------- */
#if defined(TRI_PCR)
PF_KERNEL void tridiag_pcr(TRI_ARGS, ulong8 v, int P, int G, int mcap, int thomas, __local pf_real* sm) {
  const int tid = get_local_id(0);
  const int g = tid % G, t = tid / G;
  const ulong sys = get_group_id(0) * (ulong)G + g;
  const int m = !tri_stopped(guard) && sys < v.s5 && t < P ? (int)tri_rows(v, sys) : 0; /* rows t + jP, t >= P, are others' */
  const ulong off = sys < v.s5 ? tri_off(v, sys) : 0;
  const int plane = mcap * G;
  tri_eq e[TRI_M];
#pragma unroll
  for (int j = 0; j < TRI_M; ++j) {
    const int row = t + j * P;
    e[j] = row < m ? tri_load(a, b, c, d, off + (ulong)row * v.s2, (ulong)row, (ulong)m) : tri_ident();
  }
  /* PCR until s >= the longest system, PCR+Thomas until s == P, after which row t + jP is
     coupled to t + (j +- 1)P only */
  const int end = thomas ? P : mcap;
  for (int s = 1; s < end; s *= 2) {
#pragma unroll
    for (int j = 0; j < TRI_M; ++j)
      if (t + j * P < m) tri_put(sm, plane, (t + j * P) * G + g, e[j]);
    barrier(CLK_LOCAL_MEM_FENCE);
#pragma unroll
    for (int j = 0; j < TRI_M; ++j) {
      const int row = t + j * P;
      if (row < m) {
        const tri_eq l = row >= s ? tri_get(sm, plane, (row - s) * G + g) : tri_ident();
        const tri_eq r = row + s < m ? tri_get(sm, plane, (row + s) * G + g) : tri_ident();
        e[j] = tri_reduce(e[j], l, r);
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (thomas) {
    /* Thomas on this work-item's rows; the couplings out of them are exact zeros by now */
    pf_real cprev = (pf_real)0, dprev = (pf_real)0;
#pragma unroll
    for (int j = 0; j < TRI_M; ++j) {
      if (t + j * P < m) {
        const pf_real aj = j == 0 ? (pf_real)0 : e[j].a;
        const pf_real inv = tri_dv((pf_real)1, e[j].b - aj * cprev);
        cprev = e[j].c * inv;
        dprev = (e[j].d - aj * dprev) * inv;
        e[j].c = cprev;
        e[j].d = dprev;
      }
    }
#pragma unroll
    for (int j = TRI_M - 2; j >= 0; --j)
      if (t + (j + 1) * P < m) e[j].d -= e[j].c * e[j + 1].d;
  } else {
#pragma unroll
    for (int j = 0; j < TRI_M; ++j) e[j].d = tri_dv(e[j].d, e[j].b);
  }
#pragma unroll
  for (int j = 0; j < TRI_M; ++j)
    if (t + j * P < m) x[off + (ulong)(t + j * P) * v.s2] = tri_plus(e[j].d, add, off + (ulong)(t + j * P) * v.s2);
}
#endif

/* ---- one PCR level in global memory: level input (a..d) to output (a2..d2) at the same
   positions; u runs over the fast index (rows of a contiguous system, systems of interleaved
   ones), v over the other (dimension 1, grid-stride loops as the CUDA twin) ---------------------- */
#if defined(TRI_PCR_GLOBAL)
PF_KERNEL void tridiag_pcr_global(__global const pf_real* restrict a, __global const pf_real* restrict b,
                                  __global const pf_real* restrict c, __global const pf_real* restrict d,
                                  __global pf_real* restrict a2, __global pf_real* restrict b2,
                                  __global pf_real* restrict c2, __global pf_real* restrict d2, ulong n, ulong batch,
                                  ulong s, __global const ulong* guard) {
  if (tri_stopped(guard)) return;
  const ulong nu = TRI_INTER ? batch : n, nv = TRI_INTER ? n : batch;
  const ulong step = TRI_INTER ? batch : 1;
  for (ulong vv = get_group_id(1); vv < nv; vv += get_num_groups(1)) {
    for (ulong u = get_global_id(0); u < nu; u += get_global_size(0)) {
      const ulong i = TRI_INTER ? vv : u;
      const ulong p = TRI_INTER ? vv * batch + u : vv * n + u;
      const tri_eq l = i >= s ? tri_load(a, b, c, d, p - s * step, i - s, n) : tri_ident();
      const tri_eq r = i + s < n ? tri_load(a, b, c, d, p + s * step, i + s, n) : tri_ident();
      const tri_eq e = tri_reduce(tri_load(a, b, c, d, p, i, n), l, r);
      a2[p] = e.a;
      b2[p] = e.b;
      c2[p] = e.c;
      d2[p] = e.d;
    }
  }
}
#endif

/* ---- k PCR levels of spans s0, 2 s0, ..., 2^(k-1) s0 in one pass: a tile of R rows of G systems
   is read with H = s0 (2^k - 1) rows of halo on each side (identities outside the system); the rows
   a level gets right shrink by its span on each side, and after the k levels they are the R rows
   of the tile. Two buffers of four planes of (R + 2H) G values in local memory (sm). Contiguous:
   group x = tile, y = system; interleaved: x = G systems, y = tile (y grid-stride as CUDA). ---- */
#if defined(TRI_PCR_SPLIT)
#define TRI_SG (TRI_INTER ? 8 : 1) /* G: interleaved systems side by side in a tile */
PF_KERNEL void tridiag_pcr_split(__global const pf_real* restrict a, __global const pf_real* restrict b,
                                 __global const pf_real* restrict c, __global const pf_real* restrict d,
                                 __global pf_real* restrict a2, __global pf_real* restrict b2,
                                 __global pf_real* restrict c2, __global pf_real* restrict d2, ulong n, ulong batch,
                                 int s0, int k, int R, __local pf_real* sm, __global const ulong* guard) {
  const int G = TRI_SG;
  const int H = s0 * ((1 << k) - 1);
  const int len = R + 2 * H, span = len * G;
  const int tid = get_local_id(0), bd = PF_BLOCK;
  const ulong tiles = (n + R - 1) / R;
  const ulong groups = TRI_INTER ? (batch + G - 1) / G : batch;
  const ulong ny = tri_stopped(guard) ? 0 : TRI_INTER ? tiles : groups;
  for (ulong y = get_group_id(1); y < ny; y += get_num_groups(1)) {
    __local pf_real* cur = sm;
    __local pf_real* nxt = sm + 4 * span;
    const ulong tile = TRI_INTER ? y : get_group_id(0), grp = TRI_INTER ? get_group_id(0) : y;
    const long lo = (long)(tile * R) - H; /* first row of the tile's window */
    const ulong sys0 = grp * G;
    for (int idx = tid; idx < span; idx += bd) {
      const long row = lo + idx / G;
      const ulong sys = sys0 + idx % G;
      const int in = row >= 0 && row < (long)n && sys < batch;
      const ulong r = in ? (ulong)row : 0;
      const ulong p = TRI_INTER ? r * batch + sys : sys * n + r;
      tri_put(cur, span, idx, in ? tri_load(a, b, c, d, p, r, n) : tri_ident());
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    int w = 0; /* rows lost on each side so far */
    for (int l = 0; l < k; ++l) {
      const int s = s0 << l;
      w += s;
      for (int idx = w * G + tid; idx < (len - w) * G; idx += bd)
        tri_put(nxt, span, idx,
                tri_reduce(tri_get(cur, span, idx), tri_get(cur, span, idx - s * G), tri_get(cur, span, idx + s * G)));
      barrier(CLK_LOCAL_MEM_FENCE);
      __local pf_real* tmp = cur;
      cur = nxt;
      nxt = tmp;
    }
    for (int idx = H * G + tid; idx < (H + R) * G; idx += bd) {
      const long row = lo + idx / G;
      const ulong sys = sys0 + idx % G;
      if (row < (long)n && sys < batch) {
        const ulong p = TRI_INTER ? (ulong)row * batch + sys : sys * n + (ulong)row;
        const tri_eq e = tri_get(cur, span, idx);
        a2[p] = e.a;
        b2[p] = e.b;
        c2[p] = e.c;
        d2[p] = e.d;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE); /* before the next tile overwrites the buffers */
  }
}
#endif
