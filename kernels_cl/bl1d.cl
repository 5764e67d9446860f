/* bl1d: Buckley-Leverett point-wise kernels, one work-item per face or point. The physics is
   core/physics/bl1d.h, shared with the host and CUDA code; the global size is rounded up to the
   work-group size, so every kernel checks its range. PF_KERNEL: work-groups of PF_BLOCK
   (backends/opencl/program.cpp). */
#include "core/physics/bl1d.h"

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

/* row i of the pressure equation as one tridiagonal system (bl_pressure_row); M- of point 0 and
   M+ of point n-1 are 0. The row is built in private memory: the shared function takes pointers
   of the default address space, which in OpenCL C 1.2 is private. */
PF_KERNEL void bl1d_pressure_system(__global const pf_real* mface, ulong n, pf_real p_left, pf_real p_right,
                                    __global pf_real* a, __global pf_real* b, __global pf_real* c, __global pf_real* d) {
  const size_t i = get_global_id(0);
  if (i >= n) return;
  pf_real ra, rb, rc, rd;
  bl_pressure_row((long)i, (long)n, i > 0 ? mface[i - 1] : (pf_real)0, i + 1 < n ? mface[i] : (pf_real)0, p_left,
                  p_right, &ra, &rb, &rc, &rd);
  a[i] = ra;
  b[i] = rb;
  c[i] = rc;
  d[i] = rd;
}
