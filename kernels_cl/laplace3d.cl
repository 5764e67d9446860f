/* laplace3d: the box loop around lap7_at (twin: kernels_cu/laplace3d.cu). */
#include "core/physics/laplace3d.h"
#include "kernels_cl/box3_device.cl"

PF_BOX_KERNEL void lap7(__global const pf_real* in, pf_box3 bi, __global pf_real* out, pf_box3 bo, pf_real cx, pf_real cy,
                        pf_real cz) {
  PF_BOX_BEGIN(bi.nx, bi.ny, bi.nz)
  out[pf_box_at(bo, i, j, k)] = lap7_at(in, bi, i, j, k, cx, cy, cz);
  PF_BOX_END
}
