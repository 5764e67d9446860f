/* The colour-sweep skeleton of the red-black families (twin: kernels_cu/rb_sweep.cuh): one
   work-item per cell of a colour over (half-row index, row, layer) of core/kernels/rb3.h's
   numbering, 1D groups of PF_RB_BX x PF_RB_BY x PF_RB_BZ work-items mapped onto the box by hand
   (so a group's check is one reduction); kchunk layers per group along k.

   PF_RB_SWEEP_BEGIN(b, colour, kchunk, active) body PF_RB_SWEEP_END runs body for this
   work-item's cells (ih, j, k) of the colour; with active == 0 it runs it zero times, so a kernel
   with barriers after it needs no early return (PoCL, see jacobi1d.cl). */
#include "core/kernels/rb3.h"

#define PF_RB_SWEEP_BEGIN(b, colour, kchunk, active)                                                    \
  {                                                                                                   \
    const int rb_lid_ = get_local_id(0);                                                              \
    const int rb_tx_ = rb_lid_ % PF_RB_BX, rb_ty_ = (rb_lid_ / PF_RB_BX) % PF_RB_BY;                  \
    const int rb_tz_ = rb_lid_ / (PF_RB_BX * PF_RB_BY);                                               \
    const long ih = (long)get_group_id(0) * PF_RB_BX + rb_tx_;                                        \
    if ((active) && ih < pf_rb_hx(b)) {                                                               \
      const long rb_k0_ = (long)get_group_id(2) * (kchunk), rb_k1_ = min((b).nz, rb_k0_ + (kchunk)); \
      for (long j = (long)get_group_id(1) * PF_RB_BY + rb_ty_; j < (b).ny;                            \
           j += (long)get_num_groups(1) * PF_RB_BY)                                                   \
        for (long k = rb_k0_ + rb_tz_; k < rb_k1_; k += PF_RB_BZ)                                     \
          if (pf_rb_present(b, colour, ih, j, k)) {
#define PF_RB_SWEEP_END \
  }                     \
  }                     \
  }
