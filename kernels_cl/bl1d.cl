/* bl1d: Buckley-Leverett point-wise kernels, one work-item per face or point. The physics is
   core/physics/bl1d.h, shared with the host and CUDA code; the global size is rounded up to the
   work-group size, so every kernel checks its range. PF_KERNEL: see block_reduce.cl. */

PF_KERNEL void bl1d_face_mobility(__global const pf_real* s, __global pf_real* mface, ulong nfaces, pf_real k,
                          pf_real mu_w, pf_real mu_o) {
  const size_t i = get_global_id(0);
  if (i < nfaces) mface[i] = bl_face_mobility(s[i], s[i + 1], k, mu_w, mu_o);
}

PF_KERNEL void bl1d_face_velocity(__global const pf_real* p, __global const pf_real* mface, __global pf_real* u,
                          ulong nfaces, pf_real inv_h) {
  const size_t i = get_global_id(0);
  if (i < nfaces) u[i] = bl_face_velocity(mface[i], p[i], p[i + 1], inv_h);
}

/* s_new[0] = s_inj; the last work-item recomputes point n-2 for s_new[n-1] (dS/dx = 0), so no
   work-item reads a value another one writes in the same launch */
PF_KERNEL void bl1d_saturation(__global const pf_real* s, __global const pf_real* u, __global pf_real* s_new, ulong n,
                          pf_real c, pf_real s_inj, pf_real mu_w, pf_real mu_o) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  const size_t j = i == n - 1 ? n - 2 : i;
  s_new[i] = j == 0 ? s_inj : bl_saturation_point(s[j - 1], s[j], s[j + 1], u[j - 1], u[j], c, mu_w, mu_o);
}
