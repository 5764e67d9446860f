/* The colour-sweep skeleton of the red-black families (twin: kernels_cu/rb_sweep.cuh): one
   work-item per cell of a colour over (half-row index, row, layer) of core/base/rb3.h's
   numbering, 1D groups of PF_RB_BX x PF_RB_BY x PF_RB_BZ work-items mapped onto the box by hand
   (so a group's check is one reduction); kchunk layers per group along k.

   PF_RB_SWEEP_BEGIN(b, colour, kchunk, active) body PF_RB_SWEEP_END runs body for this
   work-item's cells (ih, j, k) of the colour; with active == 0 it runs it zero times, so a kernel
   with barriers after it needs no early return (PoCL, see jacobi1d.cl). */
#include "core/base/rb3.h"

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

/* PF_RB_ROWS_BEGIN(b, colour, kchunk, active) body PF_RB_ROWS_END: the same walk for kernels that
   address colour-packed arrays by steps (twin: rb_sweep_rows): body sees ih, i, j, k and
   row = (k ny + j) hx, the start of row (j, k) in a colour's half, all of type PF_RB_INDEX (int
   where the arrays fit, defined by the host; long otherwise); a work-item's layers are walked by
   adding planes to row, PF_RB_UNROLL of them unrolled (core/base/rb3.h). */
#ifndef PF_RB_INDEX
#define PF_RB_INDEX long
#endif
#if defined(PF_RB_FLAT) && PF_RB_FLAT
/* flat (march shapes; the host's define): work-item q of the launch's x takes cell q of each
   layer of its chunk, rows joined (twin: rb_sweep_rows<I, true>) */
#define PF_RB_ROWS_BEGIN(b, colour, kchunk, active)                                                               \
  {                                                                                                             \
    const PF_RB_INDEX rb_hx_ = (PF_RB_INDEX)pf_rb_hx(b), rb_nx_ = (PF_RB_INDEX)(b).nx;                          \
    const PF_RB_INDEX rb_plane_ = (PF_RB_INDEX)(b).ny * rb_hx_, rb_nz_ = (PF_RB_INDEX)(b).nz;                   \
    const PF_RB_INDEX rb_q_ = (PF_RB_INDEX)get_group_id(0) * (PF_RB_BX * PF_RB_BY) + (PF_RB_INDEX)get_local_id(0); \
    if ((active) && rb_q_ < rb_plane_) {                                                                        \
      const PF_RB_INDEX j = rb_q_ / rb_hx_, ih = rb_q_ - j * rb_hx_;                                            \
      const PF_RB_INDEX rb_k0_ = (PF_RB_INDEX)get_group_id(2) * (PF_RB_INDEX)(kchunk);                          \
      const PF_RB_INDEX rb_k1_ = min(rb_nz_, rb_k0_ + (PF_RB_INDEX)(kchunk));                                   \
      {                                                                                                         \
        PF_RB_INDEX row = rb_k0_ * rb_plane_ + j * rb_hx_;                                                      \
        PF_RB_PRAGMA(unroll PF_RB_UNROLL) for (PF_RB_INDEX k = rb_k0_; k < rb_k1_; ++k, row += rb_plane_) {                   \
          const PF_RB_INDEX i = 2 * ih + ((colour + j + k) & 1);                                                \
          if (i < rb_nx_) {
#else
#define PF_RB_ROWS_BEGIN(b, colour, kchunk, active)                                                              \
  {                                                                                                            \
    const int rb_lid_ = get_local_id(0);                                                                       \
    const int rb_tx_ = rb_lid_ % PF_RB_BX, rb_ty_ = (rb_lid_ / PF_RB_BX) % PF_RB_BY;                           \
    const int rb_tz_ = rb_lid_ / (PF_RB_BX * PF_RB_BY);                                                        \
    const PF_RB_INDEX rb_hx_ = (PF_RB_INDEX)pf_rb_hx(b), rb_nx_ = (PF_RB_INDEX)(b).nx;                         \
    const PF_RB_INDEX rb_ny_ = (PF_RB_INDEX)(b).ny, rb_nz_ = (PF_RB_INDEX)(b).nz;                              \
    const PF_RB_INDEX ih = (PF_RB_INDEX)get_group_id(0) * PF_RB_BX + rb_tx_;                                   \
    if ((active) && ih < rb_hx_) {                                                                             \
      const PF_RB_INDEX rb_k0_ = (PF_RB_INDEX)get_group_id(2) * (PF_RB_INDEX)(kchunk);                         \
      const PF_RB_INDEX rb_k1_ = min(rb_nz_, rb_k0_ + (PF_RB_INDEX)(kchunk));                                  \
      const PF_RB_INDEX rb_step_ = rb_ny_ * rb_hx_ * PF_RB_BZ;                                                 \
      for (PF_RB_INDEX j = (PF_RB_INDEX)get_group_id(1) * PF_RB_BY + rb_ty_; j < rb_ny_;                       \
           j += (PF_RB_INDEX)get_num_groups(1) * PF_RB_BY) {                                                   \
        PF_RB_INDEX row = ((rb_k0_ + rb_tz_) * rb_ny_ + j) * rb_hx_;                                           \
        PF_RB_PRAGMA(unroll PF_RB_UNROLL) for (PF_RB_INDEX k = rb_k0_ + rb_tz_; k < rb_k1_; k += PF_RB_BZ, row += rb_step_) { \
          const PF_RB_INDEX i = 2 * ih + ((colour + j + k) & 1);                                               \
          if (i < rb_nx_) {
#endif
#define PF_RB_ROWS_END \
  }                    \
  }                    \
  }                    \
  }                    \
  }
