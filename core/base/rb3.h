/* The red-black ordering of a box's cells, shared by the red-black sweeps (sor3d, and fluids3d to
   come) and by whoever writes their coefficients (impes3d's assembly). Written once for C++, CUDA
   and OpenCL C.

   Cell (i, j, k) is red (colour 0) when i + j + k is even, else black (colour 1): its six
   neighbours have the other colour, so all cells of one colour can be updated at once.

   Colour-packed arrays ("rb layout") hold one value per interior cell of a box, the cells of each
   colour apart and row by row: the colour-c cell at half-index ih of row (j, k) is at
   c m + (k ny + j) hx + ih, with hx = (nx + 1) / 2 and m = hx ny nz, and is cell
   i = 2 ih + pf_rb_shift(c, j, k) (present when i < nx). A sweep of one colour thus reads its
   coefficients as contiguous rows, one value per thread. The box's pitches and halo do not enter:
   the layout depends on the cell counts only. */
#ifndef PF_KERNELS_RB3_H
#define PF_KERNELS_RB3_H

#include "core/base/box3.h"

PF_NAMESPACE_BEGIN

PF_FN long pf_rb_hx(pf_box3 b) { return (b.nx + 1) / 2; }
PF_FN long pf_rb_m(pf_box3 b) { return pf_rb_hx(b) * b.ny * b.nz; }
/* i of the colour-c cell at half-index ih of row (j, k) is 2 ih + this */
PF_FN long pf_rb_shift(int c, long j, long k) { return (c + j + k) & 1; }
PF_FN int pf_rb_present(pf_box3 b, int c, long ih, long j, long k) { return 2 * ih + pf_rb_shift(c, j, k) < b.nx; }
PF_FN int pf_rb_colour(long i, long j, long k) { return (int)((i + j + k) & 1); }
PF_FN long pf_rb_at(pf_box3 b, int c, long ih, long j, long k) { return c * pf_rb_m(b) + (k * b.ny + j) * pf_rb_hx(b) + ih; }
/* where cell (i, j, k) is in a colour-packed array */
PF_FN long pf_rb_of(pf_box3 b, long i, long j, long k) { return pf_rb_at(b, pf_rb_colour(i, j, k), i >> 1, j, k); }

PF_NAMESPACE_END

/* Layers unrolled in the GPU sweeps' row walk (kernels_cu/rb_sweep.cuh rb_sweep_rows, its twin
   PF_RB_ROWS_BEGIN in kernels_cl/rb_sweep.cl); a -D option overrides it, for experiments. 1 on
   both: unrolled by 4, NVIDIA's OpenCL compiler gave fluids3d's sweep 40 registers (48 of 64 warps
   resident on an H100, 0.49-0.59x copy; it ignores -cl-nv-maxrregcount) and CUDA's twin, held at
   32 by __launch_bounds__, spilled 24 bytes (0.73-0.75x); not unrolled, 32 registers without
   spills on both and 0.77-0.78x. */
#ifndef PF_RB_UNROLL
#define PF_RB_UNROLL 1
#endif
#define PF_RB_PRAGMA_(x) _Pragma(#x)
#define PF_RB_PRAGMA(x) PF_RB_PRAGMA_(x)

#endif
