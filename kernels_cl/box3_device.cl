/* The OpenCL side of the 3D box loop (core/kernels/box3.hpp; twin: kernels_cu/box3_device.cuh):
   box families are built per launch shape, PF_BOX_BX x PF_BOX_BY x PF_BOX_BZ work-items a group
   (backends/opencl/box3.hpp). March: one group deep in z, each work-item walks k; Blocks3D: one
   cell each. The k loop strides by the global extent in z, so the same loop serves both. */
#include "core/kernels/box3.h"

#define PF_BOX_KERNEL __kernel __attribute__((reqd_work_group_size(PF_BOX_BX, PF_BOX_BY, PF_BOX_BZ)))

/* PF_BOX_BEGIN(nx, ny, nz) body PF_BOX_END: body for this work-item's cells (i, j, k) */
#define PF_BOX_BEGIN(nx, ny, nz)                                      \
  {                                                                   \
    const long i = get_global_id(0), j = get_global_id(1);            \
    if (i < (nx) && j < (ny))                                         \
      for (long k = get_global_id(2); k < (nz); k += get_global_size(2)) {
#define PF_BOX_END \
  }                \
  }
