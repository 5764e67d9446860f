/* halo3d: a pass fills the ghost layers of one direction, one work-item per ghost cell, with the
   shared pf_halo_fill_point (twin: kernels_cu/halo3d.cu). */
#include "core/physics/halo3d.h"
#include "kernels_cl/box3_device.cl"

PF_BOX_KERNEL void halo3d_pass(__global pf_real* f, pf_box3 b, int dir, int mode_lo, int mode_hi, pf_real value_lo,
                               pf_real value_hi) {
  long nu, nv;
  pf_halo_extent(b, dir, &nu, &nv);
  PF_BOX_BEGIN(nu, nv, 2 * b.halo)
  pf_halo_fill_point(f, b, dir, i, j, k, mode_lo, mode_hi, value_lo, value_hi);
  PF_BOX_END
}

PF_BOX_KERNEL void halo3d_pack(__global pf_real* f, pf_box3 b, int dir, __global pf_real* buf, int unpack, int sides,
                               int block) {
  long nu, nv;
  pf_halo_extent(b, dir, &nu, &nv);
  PF_BOX_BEGIN(nu, nv, 2 * b.halo)
  pf_halo_pack_point(f, b, dir, i, j, k, buf, unpack, sides, block);
  PF_BOX_END
}
