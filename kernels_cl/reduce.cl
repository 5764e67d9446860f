/* reduce: sum, min, max, max_abs, max_abs_diff of n values.

   Paper variants (reduce_<variant>_<op>): one element per work-item, a work-group of PF_BLOCK,
   the group result either folded into one slot with atomics (host == 0, the slot pre-filled by the
   host with the identity) or written to partials[group] for the host to combine (host == 1).

   Fast (reduce_fast_<op>): a fixed number of groups, each work-item strides over the input with
   16-byte vector loads, and the last group to finish reduces the group partials: one launch. */

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

/* 16-byte loads: 4 floats or 2 doubles per step; the buffers start 16-byte aligned (offset 0) */
#if PF_DOUBLE
#define PF_VW 2
typedef double2 pf_vec;
#define pf_vload(i, p) vload2((i), (p))
pf_real pf_vfold(const int op, pf_vec x) { return pf_apply_r(op, x.s0, x.s1); }
#else
#define PF_VW 4
typedef float4 pf_vec;
#define pf_vload(i, p) vload4((i), (p))
pf_real pf_vfold(const int op, pf_vec x) { return pf_apply_r(op, pf_apply_r(op, x.s0, x.s1), pf_apply_r(op, x.s2, x.s3)); }
#endif

void pf_reduce_fast(const int op, const int ld, const pf_real ident, __global const pf_real* a, __global const pf_real* b,
                    ulong n, __global pf_real* partials, __global uint* counter, __global pf_real* result,
                    __local pf_real* s, __local int* last) {
  const size_t gid = get_global_id(0), gsize = get_global_size(0);
  const uint lid = get_local_id(0), ngroups = get_num_groups(0);
  pf_real acc = ident;
  const size_t nv = n / PF_VW;
  for (size_t j = gid; j < nv; j += gsize) {
    pf_vec x = pf_vload(j, a);
    if (ld == PF_LOAD_ABS) x = fabs(x);
    if (ld == PF_LOAD_ABSDIFF) x = fabs(x - pf_vload(j, b));
    acc = pf_apply_r(op, acc, pf_vfold(op, x));
  }
  for (size_t i = nv * PF_VW + gid; i < n; i += gsize) acc = pf_apply_r(op, acc, pf_load(ld, a, b, i));
  acc = pf_block_reduce_r(PF_V_FAST, op, ident, acc, s);

  /* publish this group's partial, then count it; the group that counts last sees all of them */
  if (pf_is_leader()) {
    partials[get_group_id(0)] = acc;
    pf_fence_global();
    *last = atomic_inc(counter) == ngroups - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (*last) {
    volatile __global pf_real* vp = partials; /* written by other groups: bypass stale caches */
    pf_real v = ident;
    for (uint g = lid; g < ngroups; g += get_local_size(0)) v = pf_apply_r(op, v, vp[g]);
    v = pf_block_reduce_r(PF_V_FAST, op, ident, v, s);
    if (pf_is_leader()) {
      result[0] = v;
      *counter = 0; /* ready for the next launch */
    }
  }
}

#define PF_PAPER_KERNEL(vname, variant, oname, op, ld, ident)                                                   \
  __kernel __attribute__((reqd_work_group_size(PF_BLOCK, 1, 1))) void reduce_##vname##_##oname(                \
      __global const pf_real* a, __global const pf_real* b, ulong n, __global pf_real* partials,                \
      __global ulong* slot, int host) {                                                                         \
    __local pf_real s[PF_BLOCK];                                                                                \
    pf_reduce_paper(variant, op, ld, ident, a, b, n, partials, slot, host, s);                                  \
  }

#define PF_FAST_KERNEL(unused, oname, op, ld, ident)                                                                    \
  __kernel __attribute__((reqd_work_group_size(PF_BLOCK, 1, 1))) void reduce_fast_##oname(                      \
      __global const pf_real* a, __global const pf_real* b, ulong n, __global pf_real* partials,                \
      __global uint* counter, __global pf_real* result) {                                                       \
    __local pf_real s[PF_BLOCK];                                                                                \
    __local int last;                                                                                           \
    pf_reduce_fast(op, ld, ident, a, b, n, partials, counter, result, s, &last);                                \
  }

/* op name, block op, element transform, identity. The op name must reach ## unexpanded: OpenCL
   headers may define min and max as macros, so X pastes it directly. */
#define PF_FOR_EACH_OP(X, ...)                                             \
  X(__VA_ARGS__, sum, PF_OP_SUM, PF_LOAD_PLAIN, (pf_real)0)                \
  X(__VA_ARGS__, min, PF_OP_MIN, PF_LOAD_PLAIN, (pf_real)INFINITY)         \
  X(__VA_ARGS__, max, PF_OP_MAX, PF_LOAD_PLAIN, -(pf_real)INFINITY)        \
  X(__VA_ARGS__, max_abs, PF_OP_MAX, PF_LOAD_ABS, (pf_real)0)              \
  X(__VA_ARGS__, max_abs_diff, PF_OP_MAX, PF_LOAD_ABSDIFF, (pf_real)0)

PF_FOR_EACH_OP(PF_PAPER_KERNEL, interleaved_divergent, PF_V_INTERLEAVED_DIVERGENT)
PF_FOR_EACH_OP(PF_PAPER_KERNEL, interleaved, PF_V_INTERLEAVED)
PF_FOR_EACH_OP(PF_PAPER_KERNEL, sequential, PF_V_SEQUENTIAL)
PF_FOR_EACH_OP(PF_PAPER_KERNEL, unroll_last_warp, PF_V_UNROLL_LAST_WARP)
PF_FOR_EACH_OP(PF_PAPER_KERNEL, complete_unroll, PF_V_COMPLETE_UNROLL)

PF_FOR_EACH_OP(PF_FAST_KERNEL, 0)
