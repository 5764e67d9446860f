/* adi2d: one work-item per node around the shared stencils of core/physics/adi2d.h (twin:
   kernels_cu/adi2d.cu); the global size is rounded up to the work-group size, so every kernel
   checks its range. PF_KERNEL: work-groups of PF_BLOCK (backends/opencl/program.cpp). */
#include "core/physics/adi2d.h"
#include "kernels_cl/control_device.cl"

PF_KERNEL void adi2d_flash(long nx, long ny, pf_real h, __global const pf_real* prm, __global const pf_real* m1,
                           __global const pf_real* m2, __global const pf_real* m3, __global const pf_real* m4,
                           __global const pf_real* p, __global pf_real* sw, __global pf_real* so, __global pf_real* sg,
                           __global pf_real* co3, __global pf_real* cg3, __global pf_real* vol,
                           __global pf_real* props) {
  long k = get_global_id(0);
  if (k >= nx * ny) return;
  adi_flash_node(prm, k % nx, k / nx, nx, ny, h, m1, m2, m3, m4, p, sw, so, sg, co3, cg3, vol, props);
}

PF_KERNEL void adi2d_coefficients(long nx, long ny, pf_real h, pf_real dt, __global const pf_real* prm,
                                  __global const pf_real* p, __global const pf_real* sw, __global const pf_real* so,
                                  __global const pf_real* sg, __global const pf_real* co3, __global const pf_real* cg3, __global const pf_real* props,
                                  __global const pf_real* vol, __global const pf_real* inj, __global const pf_real* prod,
                                  pf_real p_bh, __global pf_real* aw, __global pf_real* ae, __global pf_real* as,
                                  __global pf_real* an, __global pf_real* d0, __global pf_real* rhs) {
  long k = get_global_id(0);
  if (k >= nx * ny) return;
  adi_coefficients_node(prm, k % nx, k / nx, nx, ny, h, dt, p, sw, so, sg, co3, cg3, props, vol, inj, prod, p_bh, aw, ae, as,
                        an, d0, rhs);
}

#define PF_ADI_SWEEP_ARGS                                                                                      \
  long nx, long ny, int x_sweep, pf_real r, __global const pf_real *aw, __global const pf_real *ae,            \
      __global const pf_real *as, __global const pf_real *an, __global const pf_real *d0,                        \
      __global const pf_real *rhs, __global const pf_real *q, __global pf_real *a, __global pf_real *b,          \
      __global pf_real *c, __global pf_real *d, __global ulong *ctrl, int check_slot, int clear_slot

/* under a control block (ctrl may be null) nothing is done once it says stop */
PF_KERNEL void adi2d_sweep(PF_ADI_SWEEP_ARGS) {
  if (ctrl && !pf_cv_running(ctrl)) return;
  long k = get_global_id(0);
  if (k >= nx * ny) return;
  adi_sweep_node(k % nx, k / nx, nx, ny, x_sweep, r, aw, ae, as, an, d0, rhs, q, a, b, c, d);
}

/* the same with ADI's check: max |rhs - A q| into check_slot, and q into the candidate buffer
   pf_cv_candidate names when there are candidates (barriers on the top level, no early return:
   PoCL 3.1, see jacobi1d.cl) */
PF_KERNEL void adi2d_sweep_check(PF_ADI_SWEEP_ARGS, __global pf_real* cand0, __global pf_real* cand1) {
  __local pf_key s[PF_BLOCK];
  const int active = pf_cv_running(ctrl);
  const long k = get_global_id(0);
  pf_key key = 0;
  if (active && k < nx * ny) {
    key = pf_bits(fabs(adi_sweep_node(k % nx, k / nx, nx, ny, x_sweep, r, aw, ae, as, an, d0, rhs, q, a, b, c, d)));
    if (cand0) (pf_cv_candidate(ctrl) ? cand1 : cand0)[k] = q[k];
  }
  key = pf_block_reduce_k(PF_V_FAST, PF_OP_MAX, (pf_key)0, key, s);
  if (active && pf_is_leader()) pf_cv_publish(key, ctrl, check_slot, clear_slot, ctrl, 0);
}

PF_KERNEL void adi2d_total_velocity(long nx, long ny, __global const pf_real* prm, __global const pf_real* p,
                                    __global const pf_real* sw, __global const pf_real* so, __global const pf_real* sg,
                                    __global const pf_real* co3, __global const pf_real* cg3, __global const pf_real* props, __global pf_real* ux,
                                    __global pf_real* uy) {
  long k = get_global_id(0);
  if (k >= nx * ny) return;
  adi_total_velocity_node(prm, k % nx, k / nx, nx, ny, p, sw, so, sg, co3, cg3, props, ux, uy);
}

PF_KERNEL void adi2d_transport(long nx, long ny, pf_real dt, __global const pf_real* prm, __global const pf_real* p,
                               __global const pf_real* sw, __global const pf_real* so, __global const pf_real* sg,
                               __global const pf_real* co3, __global const pf_real* cg3, __global const pf_real* props, __global const pf_real* ux,
                               __global const pf_real* uy, __global const pf_real* inj,
                               __global const pf_real* prod, pf_real p_bh, __global const pf_real* m1,
                               __global const pf_real* m2, __global const pf_real* m3, __global const pf_real* m4,
                               __global pf_real* o1, __global pf_real* o2, __global pf_real* o3, __global pf_real* o4,
                               __global pf_real* a1, __global pf_real* a2, __global pf_real* a3, __global pf_real* a4) {
  long k = get_global_id(0);
  if (k >= nx * ny) return;
  adi_transport_node(prm, k % nx, k / nx, nx, ny, dt, p, sw, so, sg, co3, cg3, props, ux, uy, inj, prod, p_bh, m1, m2, m3, m4, o1, o2,
                     o3, o4, a1, a2, a3, a4);
}

PF_KERNEL void adi2d_rate(long nx, long ny, pf_real h, __global const pf_real* prm, __global const pf_real* p,
                          __global const pf_real* sw, __global const pf_real* so, __global const pf_real* sg,
                          __global const pf_real* co3, __global const pf_real* cg3, __global const pf_real* props, __global const pf_real* ux,
                          __global const pf_real* uy, __global const pf_real* vol,
                          __global const pf_real* prod, pf_real p_bh, __global pf_real* rate) {
  long k = get_global_id(0);
  if (k >= nx * ny) return;
  rate[k] = adi_rate_node(prm, k % nx, k / nx, nx, ny, h, p, sw, so, sg, co3, cg3, props, ux, uy, vol, prod, p_bh);
}
