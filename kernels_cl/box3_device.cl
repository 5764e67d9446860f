/* The OpenCL side of the 3D box loop (core/kernels/box3.hpp; twin: kernels_cu/box3_device.cuh):
   box families are built per launch shape, PF_BOX_BX x PF_BOX_BY x PF_BOX_BZ work-items a group
   (backends/opencl/box3.hpp). March: groups one work-item deep in z, each walking a chunk of
   layers; Blocks3D: one cell each. Each group takes a contiguous chunk of the layers (nz / the
   groups in z, rounded up) and its work-items in z stride through it, so one loop serves both. */
#include "core/base/box3.h"

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

/* PF_BOX_CELLS_BEGIN(b) body PF_BOX_END: body for this work-item's cells (i, j, k) of all of box b,
   with at the cell's index in b's arrays: PF_BOX_BEGIN's loop in PF_BOX_INDEX (int where
   box_narrow_index; the build's define), at stepped from layer to layer rather than recomputed */
#ifndef PF_BOX_INDEX
#define PF_BOX_INDEX long
#endif
#define PF_BOX_CELLS_BEGIN(b)                                                                              \
  {                                                                                                        \
    const PF_BOX_INDEX i = (PF_BOX_INDEX)get_global_id(0), j = (PF_BOX_INDEX)get_global_id(1);             \
    const PF_BOX_INDEX box_nz_ = (PF_BOX_INDEX)(b).nz, box_sz_ = (PF_BOX_INDEX)(b).sz;                      \
    const PF_BOX_INDEX box_g_ = (PF_BOX_INDEX)get_num_groups(2), box_kc_ = (box_nz_ + box_g_ - 1) / box_g_; \
    const PF_BOX_INDEX box_k0_ = (PF_BOX_INDEX)get_group_id(2) * box_kc_;                                   \
    const PF_BOX_INDEX box_k1_ = min(box_nz_, box_k0_ + box_kc_);                                          \
    PF_BOX_INDEX at = (PF_BOX_INDEX)(b).off + i + j * (PF_BOX_INDEX)(b).sy +                                \
                      (box_k0_ + (PF_BOX_INDEX)get_local_id(2)) * box_sz_;                                  \
    if (i < (PF_BOX_INDEX)(b).nx && j < (PF_BOX_INDEX)(b).ny)                                              \
      for (PF_BOX_INDEX k = box_k0_ + (PF_BOX_INDEX)get_local_id(2); k < box_k1_; k += PF_BOX_BZ, at += PF_BOX_BZ * box_sz_) {
