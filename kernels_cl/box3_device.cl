/* The OpenCL side of the 3D box loop (core/kernels/box3.hpp; twin: kernels_cu/box3_device.cuh):
   box families are built per launch shape, PF_BOX_BX x PF_BOX_BY x PF_BOX_BZ work-items a group
   (backends/opencl/box3.hpp). March: groups one work-item deep in z, each walking a chunk of
   layers; Blocks3D: one cell each. Each group takes a contiguous chunk of the layers (nz / the
   groups in z, rounded up) and its work-items in z stride through it, so one loop serves both. */
#include "core/kernels/box3.h"

#define PF_BOX_KERNEL __kernel __attribute__((reqd_work_group_size(PF_BOX_BX, PF_BOX_BY, PF_BOX_BZ)))

/* PF_BOX_BEGIN(nx, ny, nz) body PF_BOX_END: body for this work-item's cells (i, j, k) */
#define PF_BOX_BEGIN(nx, ny, nz)                                                                    \
  {                                                                                                 \
    const long i = get_global_id(0), j = get_global_id(1);                                          \
    const long box_kc_ = ((nz) + (long)get_num_groups(2) - 1) / (long)get_num_groups(2);            \
    const long box_k0_ = (long)get_group_id(2) * box_kc_, box_k1_ = min((long)(nz), box_k0_ + box_kc_); \
    if (i < (nx) && j < (ny))                                                                       \
      for (long k = box_k0_ + (long)get_local_id(2); k < box_k1_; k += PF_BOX_BZ) {
#define PF_BOX_END \
  }                \
  }
