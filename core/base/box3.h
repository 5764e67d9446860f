/* The box view every 3D family indexes its arrays through, the same way in C++, CUDA and
   OpenCL C (after AMReX's Array4): the interior cells (i, j, k), 0 <= i < nx, 0 <= j < ny,
   0 <= k < nz, of a box lie at off + i + j sy + k sz of their array, which holds `halo` ghost
   layers around them (i from -halo to nx + halo - 1, the same in j and k). A box may be a part of a
   larger array: the pitches sy, sz and the offset say where. Kernels receive it by value. */
#ifndef PF_KERNELS_BOX3_H
#define PF_KERNELS_BOX3_H

#include "core/base/common.h"

typedef struct pf_box3_s {
  long nx, ny, nz; /* interior cells */
  long halo;       /* ghost layers on every side */
  long sy, sz;     /* pitches of j and k in the array (i is contiguous) */
  long off;        /* index of cell (0, 0, 0) in the array */
} pf_box3;

PF_NAMESPACE_BEGIN

PF_FN long pf_box_at(pf_box3 b, long i, long j, long k) { return b.off + i + j * b.sy + k * b.sz; }

PF_FN int pf_box_inside(pf_box3 b, long i, long j, long k) {
  return i >= 0 && i < b.nx && j >= 0 && j < b.ny && k >= 0 && k < b.nz;
}

PF_NAMESPACE_END

#endif
