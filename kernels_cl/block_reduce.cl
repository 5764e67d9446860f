/* Work-group reductions shared by the kernel families (reduce, jacobi1d, and every family whose
   kernels check a convergence metric).

   The program builder's prelude defines: PF_BLOCK (the work-group size of the paper variants'
   kernels, a compile-time constant), pf_real (float or double) with PF_DOUBLE, and where the device
   has them PF_NV_PTX (NVIDIA: inline PTX), PF_HAS_SUBGROUPS, PF_HAS_INT64_ATOMICS.

   Two value types are reduced: pf_real (sum, min, max of data) and pf_key, the unsigned bit pattern
   of a pf_real (uint or ulong), on which jacobi1d takes the max of its non-negative metric so that
   NaN (above +inf) wins. Each function is written once as a macro over (type, suffix).

   Calls must be made by every work-item of the group (they contain barriers), and two calls in a
   row need a barrier between them: the tails leave the local array in use. */

#define PF_OP_SUM 0
#define PF_OP_MIN 1
#define PF_OP_MAX 2

/* numbered as poreflow::ReduceVariant */
#define PF_V_INTERLEAVED_DIVERGENT 0
#define PF_V_INTERLEAVED 1
#define PF_V_SEQUENTIAL 2
#define PF_V_UNROLL_LAST_WARP 3
#define PF_V_COMPLETE_UNROLL 4
#define PF_V_FAST 5

#if PF_DOUBLE
typedef ulong pf_key;
#define PF_KEY_SIGN 0x8000000000000000UL
#define pf_bits(x) as_ulong(x)
#define pf_from_bits(k) as_double(k)
#else
typedef uint pf_key;
#define PF_KEY_SIGN 0x80000000u
#define pf_bits(x) as_uint(x)
#define pf_from_bits(k) as_float(k)
#endif

/* `op` is always a literal at the call site, so after inlining only one branch is left */
pf_real pf_apply_r(const int op, pf_real a, pf_real b) {
  return op == PF_OP_SUM ? a + b : op == PF_OP_MIN ? fmin(a, b) : fmax(a, b);
}
pf_key pf_apply_k(const int op, pf_key a, pf_key b) {
  return op == PF_OP_SUM ? a + b : op == PF_OP_MIN ? min(a, b) : max(a, b);
}

/* ---- the last 32 lanes: PTX shuffles on NVIDIA, sub-group collectives, or barriers ---------- */

#if defined(PF_NV_PTX)
uint pf_shfl_down_u32(uint v, uint offset) {
  uint r;
  asm volatile("shfl.sync.down.b32 %0, %1, %2, 0x1f, 0xffffffff;" : "=r"(r) : "r"(v), "r"(offset));
  return r;
}
#if PF_DOUBLE
pf_real pf_shfl_down_r(pf_real v, uint off) {
  uint2 u = as_uint2(v);
  return as_double((uint2)(pf_shfl_down_u32(u.x, off), pf_shfl_down_u32(u.y, off)));
}
pf_key pf_shfl_down_k(pf_key v, uint off) {
  uint2 u = as_uint2(v);
  return as_ulong((uint2)(pf_shfl_down_u32(u.x, off), pf_shfl_down_u32(u.y, off)));
}
#else
pf_real pf_shfl_down_r(pf_real v, uint off) { return as_float(pf_shfl_down_u32(as_uint(v), off)); }
pf_key pf_shfl_down_k(pf_key v, uint off) { return pf_shfl_down_u32(v, off); }
#endif
/* a warp of 32 work-items (local ids 32w..32w+31 on NVIDIA), all converged: lane 0 gets the result */
#define PF_DEFINE_WARP(T, S)                                                            \
  T pf_warp_reduce_##S(const int op, T v) {                                             \
    for (uint off = 16; off > 0; off >>= 1) v = pf_apply_##S(op, v, pf_shfl_down_##S(v, off)); \
    return v;                                                                           \
  }
PF_DEFINE_WARP(pf_real, r)
PF_DEFINE_WARP(pf_key, k)
#elif defined(PF_HAS_SUBGROUPS)
pf_real pf_sg_reduce_r(const int op, pf_real v) {
  return op == PF_OP_SUM ? sub_group_reduce_add(v) : op == PF_OP_MIN ? sub_group_reduce_min(v) : sub_group_reduce_max(v);
}
pf_key pf_sg_reduce_k(const int op, pf_key v) {
  return op == PF_OP_SUM ? sub_group_reduce_add(v) : op == PF_OP_MIN ? sub_group_reduce_min(v) : sub_group_reduce_max(v);
}
#endif

/* The work-item that holds a group's result after pf_block_reduce_*. With sub-groups the result
   is in sub-group 0, whose mapping to local ids the specification leaves open. */
int pf_is_leader(void) {
#if !defined(PF_NV_PTX) && defined(PF_HAS_SUBGROUPS)
  return get_sub_group_id() == 0 && get_sub_group_local_id() == 0;
#else
  return get_local_id(0) == 0;
#endif
}

/* Tail of unroll_last_warp and complete_unroll: s[0 .. min(n, 64)) holds the values left (a
   barrier after their writes); returns the result at the leader. Without shuffles or sub-groups
   there is no valid warp-synchronous OpenCL, so the tail keeps its barriers (PoCL's CPU device). */
#if defined(PF_NV_PTX)
#define PF_DEFINE_TAIL(T, S)                                       \
  T pf_tail_##S(const int op, T ident, __local T* s, uint lid, uint n) { \
    T v = ident;                                                   \
    if (lid < 32) {                                                \
      v = s[lid];                                                  \
      if (n > 32) v = pf_apply_##S(op, v, s[lid + 32]);            \
      v = pf_warp_reduce_##S(op, v);                               \
    }                                                              \
    return v;                                                      \
  }
#elif defined(PF_HAS_SUBGROUPS)
#define PF_DEFINE_TAIL(T, S)                                                         \
  T pf_tail_##S(const int op, T ident, __local T* s, uint lid, uint n) {             \
    T v = ident;                                                                     \
    if (get_sub_group_id() == 0) {                                                   \
      const uint m = min(n, 64u);                                                    \
      for (uint i = get_sub_group_local_id(); i < m; i += get_sub_group_size())      \
        v = pf_apply_##S(op, v, s[i]);                                               \
      v = pf_sg_reduce_##S(op, v);                                                   \
    }                                                                                \
    return v;                                                                        \
  }
#else
#define PF_DEFINE_TAIL(T, S)                                       \
  T pf_tail_##S(const int op, T ident, __local T* s, uint lid, uint n) { \
    for (uint st = min(n, 64u) / 2; st > 0; st >>= 1) {            \
      if (lid < st) s[lid] = pf_apply_##S(op, s[lid], s[lid + st]); \
      barrier(CLK_LOCAL_MEM_FENCE);                                \
    }                                                              \
    return s[0];                                                   \
  }
#endif
PF_DEFINE_TAIL(pf_real, r)
PF_DEFINE_TAIL(pf_key, k)

/* Fast: a warp (or sub-group) reduces in registers, one value per warp goes through local memory,
   and the first warp reduces those: two barrier-free steps and one barrier, as in a good CUDA kernel. */
#if defined(PF_NV_PTX)
#define PF_DEFINE_FAST(T, S)                                           \
  T pf_fast_block_##S(const int op, T ident, T v, __local T* s) {      \
    const uint lid = get_local_id(0), nwarps = get_local_size(0) >> 5; \
    v = pf_warp_reduce_##S(op, v);                                     \
    if ((lid & 31) == 0) s[lid >> 5] = v;                              \
    barrier(CLK_LOCAL_MEM_FENCE);                                      \
    if (lid < 32) v = pf_warp_reduce_##S(op, lid < nwarps ? s[lid] : ident); \
    return v;                                                          \
  }
#elif defined(PF_HAS_SUBGROUPS)
#define PF_DEFINE_FAST(T, S)                                                       \
  T pf_fast_block_##S(const int op, T ident, T v, __local T* s) {                  \
    v = pf_sg_reduce_##S(op, v);                                                   \
    if (get_sub_group_local_id() == 0) s[get_sub_group_id()] = v;                  \
    barrier(CLK_LOCAL_MEM_FENCE);                                                  \
    v = ident;                                                                     \
    if (get_sub_group_id() == 0) {                                                 \
      for (uint i = get_sub_group_local_id(); i < get_num_sub_groups(); i += get_sub_group_size()) \
        v = pf_apply_##S(op, v, s[i]);                                             \
      v = pf_sg_reduce_##S(op, v);                                                 \
    }                                                                              \
    return v;                                                                      \
  }
#else
/* any group size (the 3D families' groups need not be powers of two): each step folds the upper
   part of the n values left onto the lower ceil(n / 2) */
#define PF_DEFINE_FAST(T, S)                                          \
  T pf_fast_block_##S(const int op, T ident, T v, __local T* s) {     \
    const uint lid = get_local_id(0);                                 \
    s[lid] = v;                                                       \
    barrier(CLK_LOCAL_MEM_FENCE);                                     \
    for (uint n = get_local_size(0); n > 1; n = (n + 1) / 2) {        \
      const uint up = (n + 1) / 2;                                    \
      if (lid < n - up) s[lid] = pf_apply_##S(op, s[lid], s[lid + up]); \
      barrier(CLK_LOCAL_MEM_FENCE);                                   \
    }                                                                 \
    return s[0];                                                      \
  }
#endif
PF_DEFINE_FAST(pf_real, r)
PF_DEFINE_FAST(pf_key, k)

/* One step of complete_unroll: PF_BLOCK is a literal, so the test and the bound fold away. */
#define PF_UNROLL_STEP(S, half)                                              \
  if (PF_BLOCK >= 2 * (half)) {                                              \
    if (lid < (half)) s[lid] = pf_apply_##S(op, s[lid], s[lid + (half)]);   \
    barrier(CLK_LOCAL_MEM_FENCE);                                            \
  }

/* The group's reduction of v by `variant` (a literal at each call site). The paper variants hold
   one value per work-item in s[PF_BLOCK]; the interleaved ones keep the paper's index arithmetic. */
#define PF_DEFINE_BLOCK_REDUCE(T, S)                                                   \
  T pf_block_reduce_##S(const int variant, const int op, T ident, T v, __local T* s) { \
    const uint lid = get_local_id(0), n = get_local_size(0);                           \
    if (variant == PF_V_FAST) return pf_fast_block_##S(op, ident, v, s);               \
    s[lid] = v;                                                                        \
    barrier(CLK_LOCAL_MEM_FENCE);                                                      \
    if (variant == PF_V_INTERLEAVED_DIVERGENT) {                                       \
      for (uint st = 1; st < n; st <<= 1) {                                            \
        if (lid % (2 * st) == 0) s[lid] = pf_apply_##S(op, s[lid], s[lid + st]);       \
        barrier(CLK_LOCAL_MEM_FENCE);                                                  \
      }                                                                                \
      return s[0];                                                                     \
    }                                                                                  \
    if (variant == PF_V_INTERLEAVED) {                                                 \
      for (uint st = 1; st < n; st <<= 1) {                                            \
        const uint i = 2 * st * lid;                                                   \
        if (i < n) s[i] = pf_apply_##S(op, s[i], s[i + st]);                           \
        barrier(CLK_LOCAL_MEM_FENCE);                                                  \
      }                                                                                \
      return s[0];                                                                     \
    }                                                                                  \
    if (variant == PF_V_SEQUENTIAL) {                                                  \
      for (uint st = n / 2; st > 0; st >>= 1) {                                        \
        if (lid < st) s[lid] = pf_apply_##S(op, s[lid], s[lid + st]);                  \
        barrier(CLK_LOCAL_MEM_FENCE);                                                  \
      }                                                                                \
      return s[0];                                                                     \
    }                                                                                  \
    if (variant == PF_V_UNROLL_LAST_WARP) {                                            \
      for (uint st = n / 2; st > 32; st >>= 1) {                                       \
        if (lid < st) s[lid] = pf_apply_##S(op, s[lid], s[lid + st]);                  \
        barrier(CLK_LOCAL_MEM_FENCE);                                                  \
      }                                                                                \
      return pf_tail_##S(op, ident, s, lid, n);                                        \
    }                                                                                  \
    PF_UNROLL_STEP(S, 512)                                                             \
    PF_UNROLL_STEP(S, 256)                                                             \
    PF_UNROLL_STEP(S, 128)                                                             \
    PF_UNROLL_STEP(S, 64)                                                              \
    return pf_tail_##S(op, ident, s, lid, PF_BLOCK);                                   \
  }
PF_DEFINE_BLOCK_REDUCE(pf_real, r)
PF_DEFINE_BLOCK_REDUCE(pf_key, k)

/* ---- combining group results on the device -------------------------------------------------- */

/* A key whose unsigned order is the numeric order of x (negative values flipped whole). */
pf_key pf_order_key(pf_real x) {
  const pf_key b = pf_bits(x);
  return (b & PF_KEY_SIGN) ? ~b : (b | PF_KEY_SIGN);
}

/* A slot is one 64-bit word; float uses its low half (little-endian devices). */
#if PF_DOUBLE
#define PF_SLOT_PTR(word) ((volatile __global ulong*)(word))
#else
#define PF_SLOT_PTR(word) ((volatile __global uint*)(word))
#endif

#if !PF_DOUBLE || defined(PF_HAS_INT64_ATOMICS)
void pf_atomic_max_key(__global ulong* word, pf_key k) {
#if PF_DOUBLE
  atom_max(PF_SLOT_PTR(word), k);
#else
  atomic_max(PF_SLOT_PTR(word), k);
#endif
}

void pf_atomic_min_key(__global ulong* word, pf_key k) {
#if PF_DOUBLE
  atom_min(PF_SLOT_PTR(word), k);
#else
  atomic_min(PF_SLOT_PTR(word), k);
#endif
}

/* OpenCL 1.2 has no floating-point atomic add: NVIDIA's red.add through PTX, else a CAS loop */
void pf_atomic_add_real(__global ulong* word, pf_real v) {
#if defined(PF_NV_PTX) && PF_DOUBLE
  asm volatile("red.global.add.f64 [%0], %1;" ::"l"(word), "d"(v) : "memory");
#elif defined(PF_NV_PTX)
  asm volatile("red.global.add.f32 [%0], %1;" ::"l"(word), "f"(v) : "memory");
#else
  volatile __global pf_key* p = PF_SLOT_PTR(word);
  pf_key old = *p, seen;
  do {
    seen = old;
#if PF_DOUBLE
    old = atom_cmpxchg(p, seen, pf_bits(pf_from_bits(seen) + v));
#else
    old = atomic_cmpxchg(p, seen, pf_bits(pf_from_bits(seen) + v));
#endif
  } while (old != seen);
#endif
}

/* folds a group result into the slot: sum adds, min/max compare order keys */
void pf_atomic_combine(const int op, __global ulong* word, pf_real v) {
  if (op == PF_OP_SUM) pf_atomic_add_real(word, v);
  else if (op == PF_OP_MIN) pf_atomic_min_key(word, pf_order_key(v));
  else pf_atomic_max_key(word, pf_order_key(v));
}
#else
/* without 64-bit atomics the host never launches a double kernel that combines atomically */
void pf_atomic_max_key(__global ulong* word, pf_key k) {}
void pf_atomic_combine(const int op, __global ulong* word, pf_real v) {}
#endif

/* orders this work-item's global writes before its later ones (the last-group handshake) */
void pf_fence_global(void) {
#if defined(PF_NV_PTX)
  asm volatile("membar.gl;" ::: "memory");
#else
  mem_fence(CLK_GLOBAL_MEM_FENCE);
#endif
}
