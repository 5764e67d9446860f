/* reduce: sum, min, max, max_abs, max_abs_diff of n values.

   Paper variants (reduce_<variant>_<op>): one element per work-item, a work-group of PF_BLOCK,
   the group result either folded into one slot with atomics (host == 0, the slot pre-filled by the
   host with the identity) or written to partials[group] for the host to combine (host == 1).

   Fast (reduce_fast_<op>): a fixed number of groups (the host picks about 4 per compute unit, as
   the CUDA twin does per SM), each work-item strides over the input with 16-byte vector loads, four
   in flight, and the last group to finish reduces the group partials: one launch. */
#include "kernels_cl/block_reduce.cl"

#define PF_LOAD_PLAIN 0
#define PF_LOAD_ABS 1
#define PF_LOAD_ABSDIFF 2

pf_real pf_load(const int ld, __global const pf_real* a, __global const pf_real* b, size_t i) {
  return ld == PF_LOAD_PLAIN ? a[i] : ld == PF_LOAD_ABS ? fabs(a[i]) : fabs(a[i] - b[i]);
}

void pf_reduce_paper(const int variant, const int op, const int ld, const pf_real ident, __global const pf_real* a,
                     __global const pf_real* b, ulong n, __global pf_real* partials, __global ulong* slot, int host,
                     __local pf_real* s) {
  const size_t i = get_global_id(0);
  pf_real v = i < n ? pf_load(ld, a, b, i) : ident;
  v = pf_block_reduce_r(variant, op, ident, v, s);
  if (pf_is_leader()) {
    if (host)
      partials[get_group_id(0)] = v;
    else
      pf_atomic_combine(op, slot, v);
  }
}

/* 16-byte loads: 4 floats or 2 doubles per step. Through a vector pointer rather than vload4/
   vload2, which promise only element alignment, so NVIDIA's compiler splits them into scalar loads;
   the inputs are whole buffers, whose base is aligned far beyond 16 bytes
   (CL_DEVICE_MEM_BASE_ADDR_ALIGN is at least 128 bytes). */
#if PF_DOUBLE
#define PF_VW 2
typedef double2 pf_vec;
pf_real pf_vfold(const int op, pf_vec x) { return pf_apply_r(op, x.s0, x.s1); }
#else
#define PF_VW 4
typedef float4 pf_vec;
pf_real pf_vfold(const int op, pf_vec x) { return pf_apply_r(op, pf_apply_r(op, x.s0, x.s1), pf_apply_r(op, x.s2, x.s3)); }
#endif

/* the element transform applied to a vector of each input */
pf_vec pf_vtransform(const int ld, pf_vec x, pf_vec y) {
  return ld == PF_LOAD_PLAIN ? x : ld == PF_LOAD_ABS ? fabs(x) : fabs(x - y);
}

/* independent vector loads (of each input) in flight per work-item, each with its own accumulator */
#define PF_FAST_U 4

void pf_reduce_fast(const int op, const int ld, const pf_real ident, __global const pf_real* a, __global const pf_real* b,
                    ulong n, __global pf_real* partials, __global uint* counter, __global pf_real* result,
                    __local pf_real* s, __local int* last) {
  const size_t gid = get_global_id(0), gsize = get_global_size(0);
  const uint lid = get_local_id(0), ngroups = get_num_groups(0);
  pf_real acc[PF_FAST_U];
#pragma unroll
  for (int u = 0; u < PF_FAST_U; ++u) acc[u] = ident;
  const size_t nv = n / PF_VW;
  __global const pf_vec* av = (__global const pf_vec*)a;
  __global const pf_vec* bv = (__global const pf_vec*)b;
  size_t j = gid;
  for (; j + (PF_FAST_U - 1) * gsize < nv; j += PF_FAST_U * gsize) {
    pf_vec xa[PF_FAST_U], xb[PF_FAST_U];
#pragma unroll
    for (int u = 0; u < PF_FAST_U; ++u) {  /* all loads first, so their latencies overlap */
      xa[u] = av[j + u * gsize];
      xb[u] = ld == PF_LOAD_ABSDIFF ? bv[j + u * gsize] : xa[u];
    }
#pragma unroll
    for (int u = 0; u < PF_FAST_U; ++u) acc[u] = pf_apply_r(op, acc[u], pf_vfold(op, pf_vtransform(ld, xa[u], xb[u])));
  }
  for (; j < nv; j += gsize) acc[0] = pf_apply_r(op, acc[0], pf_vfold(op, pf_vtransform(ld, av[j], ld == PF_LOAD_ABSDIFF ? bv[j] : av[j])));
  for (size_t i = nv * PF_VW + gid; i < n; i += gsize) acc[1] = pf_apply_r(op, acc[1], pf_load(ld, a, b, i));
  pf_real v = acc[0];
#pragma unroll
  for (int u = 1; u < PF_FAST_U; ++u) v = pf_apply_r(op, v, acc[u]);
  v = pf_block_reduce_r(PF_V_FAST, op, ident, v, s);

  /* publish this group's partial, then count it; the group that counts last sees all of them */
  if (pf_is_leader()) {
    partials[get_group_id(0)] = v;
    pf_fence_global();
    *last = atomic_inc(counter) == ngroups - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (*last) {
    pf_fence_global();                        /* our reads of partials after the count we saw */
    volatile __global pf_real* vp = partials; /* written by other groups: bypass stale caches */
    v = ident;
    for (uint g = lid; g < ngroups; g += get_local_size(0)) v = pf_apply_r(op, v, vp[g]);
    v = pf_block_reduce_r(PF_V_FAST, op, ident, v, s);
    if (pf_is_leader()) {
      result[0] = v;
      *counter = 0; /* ready for the next launch */
    }
  }
}

#define PF_PAPER_KERNEL(vname, variant, oname, op, ld, ident)                                                   \
  PF_KERNEL void reduce_##vname##_##oname(                \
      __global const pf_real* a, __global const pf_real* b, ulong n, __global pf_real* partials,                \
      __global ulong* slot, int host) {                                                                         \
    __local pf_real s[PF_BLOCK];                                                                                \
    pf_reduce_paper(variant, op, ld, ident, a, b, n, partials, slot, host, s);                                  \
  }

#define PF_FAST_KERNEL(oname, op, ld, ident)                                                                    \
  PF_KERNEL void reduce_fast_##oname(                      \
      __global const pf_real* a, __global const pf_real* b, ulong n, __global pf_real* partials,                \
      __global uint* counter, __global pf_real* result) {                                                       \
    __local pf_real s[PF_BLOCK];                                                                                \
    __local int last;                                                                                           \
    pf_reduce_fast(op, ld, ident, a, b, n, partials, counter, result, s, &last);                                \
  }

/* Every op of one paper variant: name, block op, element transform, identity. (OpenCL C has no
   variadic macros; the op name reaches ## unexpanded, which matters because OpenCL headers may
   define min and max as macros.) */
#define PF_PAPER_KERNELS(vname, variant)                                                      \
  PF_PAPER_KERNEL(vname, variant, sum, PF_OP_SUM, PF_LOAD_PLAIN, (pf_real)0)                  \
  PF_PAPER_KERNEL(vname, variant, min, PF_OP_MIN, PF_LOAD_PLAIN, (pf_real)INFINITY)           \
  PF_PAPER_KERNEL(vname, variant, max, PF_OP_MAX, PF_LOAD_PLAIN, -(pf_real)INFINITY)          \
  PF_PAPER_KERNEL(vname, variant, max_abs, PF_OP_MAX, PF_LOAD_ABS, (pf_real)0)                \
  PF_PAPER_KERNEL(vname, variant, max_abs_diff, PF_OP_MAX, PF_LOAD_ABSDIFF, (pf_real)0)

PF_PAPER_KERNELS(interleaved_divergent, PF_V_INTERLEAVED_DIVERGENT)
PF_PAPER_KERNELS(interleaved, PF_V_INTERLEAVED)
PF_PAPER_KERNELS(sequential, PF_V_SEQUENTIAL)
PF_PAPER_KERNELS(unroll_last_warp, PF_V_UNROLL_LAST_WARP)
PF_PAPER_KERNELS(complete_unroll, PF_V_COMPLETE_UNROLL)

PF_FAST_KERNEL(sum, PF_OP_SUM, PF_LOAD_PLAIN, (pf_real)0)
PF_FAST_KERNEL(min, PF_OP_MIN, PF_LOAD_PLAIN, (pf_real)INFINITY)
PF_FAST_KERNEL(max, PF_OP_MAX, PF_LOAD_PLAIN, -(pf_real)INFINITY)
PF_FAST_KERNEL(max_abs, PF_OP_MAX, PF_LOAD_ABS, (pf_real)0)
PF_FAST_KERNEL(max_abs_diff, PF_OP_MAX, PF_LOAD_ABSDIFF, (pf_real)0)
