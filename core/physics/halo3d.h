/* Halo layers of a box (core/base/box3.h), filled by kernels rather than special cases inside
   stencils, so that an MPI halo exchange can later fill the same layers. Written once for C++,
   CUDA and OpenCL C.

   The layers are filled direction by direction, x, then y, then z: the y pass covers the x ghosts
   of its rows and the z pass the x and y ghosts of its planes, so edges and corners are defined
   too (from values the earlier passes wrote). A pass of direction d covers a 3D index space
   (u, v, w): u and v run along the face (u fastest), w = side * halo + g picks the side (0: low,
   1: high) and the layer g = 0, 1, ... counted outwards from the face.

   Modes of a face, for the ghost g layers outside it (n interior cells in that direction):
     NONE      left as it is (filled by someone else: a neighbour rank's exchange)
     COPY      the nearest interior cell (zero gradient)
     MIRROR    the interior cell mirrored about the face: ghost -1-g takes cell g
     NEGATE    as MIRROR with the sign flipped (a wall for the normal velocity)
     VALUE     a given value
     PERIODIC  the cell a period away: ghost -1-g takes cell n-1-g
   MIRROR, NEGATE and PERIODIC need n >= halo. */
#ifndef PF_KERNELS_HALO3D_H
#define PF_KERNELS_HALO3D_H

#include "core/base/box3.h"

#define PF_HALO_NONE 0
#define PF_HALO_COPY 1
#define PF_HALO_MIRROR 2
#define PF_HALO_NEGATE 3
#define PF_HALO_VALUE 4
#define PF_HALO_PERIODIC 5

PF_NAMESPACE_BEGIN

/* the extent (nu, nv) of the face index space of direction dir (w runs over 2 * halo) */
PF_FN void pf_halo_extent(pf_box3 b, int dir, long* nu, long* nv) {
  const long h2 = 2 * b.halo;
  *nu = dir == 0 ? b.ny : b.nx + h2;
  *nv = dir == 2 ? b.ny + h2 : b.nz;
}

/* the interior index in the face's direction that ghost layer g of side `hi` takes its value from
   (n interior cells), or -1 when the mode takes none */
PF_FN long pf_halo_source(int mode, long g, long n, int hi) {
  if (mode == PF_HALO_COPY) return hi ? n - 1 : 0;
  if (mode == PF_HALO_MIRROR || mode == PF_HALO_NEGATE) return hi ? n - 1 - g : g;
  if (mode == PF_HALO_PERIODIC) return hi ? g : n - 1 - g;
  return -1;
}

/* the cell of a pass's index space: index x along direction dir, (u, v) along the face (the y pass
   starts u at -halo, the z pass u and v) */
PF_FN void pf_halo_cell(pf_box3 b, int dir, long u, long v, long x, long* i, long* j, long* k) {
  const long h = b.halo;
  if (dir == 0) {
    *i = x;
    *j = u;
    *k = v;
  } else if (dir == 1) {
    *i = u - h;
    *j = x;
    *k = v;
  } else {
    *i = u - h;
    *j = v - h;
    *k = x;
  }
}

/* fills ghost (u, v, w) of the pass of direction dir */
PF_TEMPLATE PF_FN void pf_halo_fill_point(PF_GLOBAL pf_real* f, pf_box3 b, int dir, long u, long v, long w,
                                          int mode_lo, int mode_hi, pf_real value_lo, pf_real value_hi) {
  const long h = b.halo;
  const int hi = w >= h;
  const long g = hi ? w - h : w;
  const int mode = hi ? mode_hi : mode_lo;
  if (mode == PF_HALO_NONE) return;
  const long n = dir == 0 ? b.nx : dir == 1 ? b.ny : b.nz;
  const long ghost = hi ? n + g : -1 - g;
  long i, j, k;
  pf_halo_cell(b, dir, u, v, ghost, &i, &j, &k);
  pf_real val = hi ? value_hi : value_lo;
  const long src = pf_halo_source(mode, g, n, hi);
  if (src >= 0) {
    const long at = dir == 0 ? pf_box_at(b, src, j, k) : dir == 1 ? pf_box_at(b, i, src, k) : pf_box_at(b, i, j, src);
    val = mode == PF_HALO_NEGATE ? -f[at] : f[at];
  }
  f[pf_box_at(b, i, j, k)] = val;
}

/* An exchange between neighbouring boxes of one grid (core/comm/halo_exchange.hpp) moves a
   direction's layers through a contiguous buffer with the pass's index space (u, v, w):
   buf[(w * nv + v) * nu + u]. Packing reads the interior layer nearest the face first (side hi:
   cell n-1-g, side lo: cell g), unpacking writes ghost g (hi: n+g, lo: -1-g), so the high side a
   box packs is its high neighbour's low side unpacked, and the tangential ranges are the fill's:
   exchanged x, then y, then z, edges and corners come from the boxes that own them. `sides`:
   bit 0 the low side, bit 1 the high side (a side without a neighbour is left alone). A field of
   `block` values a cell (a 2 x 2 system's vectors) keeps a cell's values adjacent, in f and in buf. */
PF_TEMPLATE PF_FN void pf_halo_pack_point(PF_GLOBAL pf_real* f, pf_box3 b, int dir, long u, long v, long w,
                                          PF_GLOBAL pf_real* buf, int unpack, int sides, int block) {
  const long h = b.halo;
  const int hi = w >= h;
  if (!(sides & (hi ? 2 : 1))) return;
  const long g = hi ? w - h : w;
  const long n = dir == 0 ? b.nx : dir == 1 ? b.ny : b.nz;
  const long at = unpack ? (hi ? n + g : -1 - g) : (hi ? n - 1 - g : g);
  long i, j, k;
  pf_halo_cell(b, dir, u, v, at, &i, &j, &k);
  long nu, nv;
  pf_halo_extent(b, dir, &nu, &nv);
  const long q = ((w * nv + v) * nu + u) * block;
  const long L = pf_box_at(b, i, j, k) * block;
  for (int c = 0; c < block; ++c) {
    if (unpack)
      f[L + c] = buf[q + c];
    else
      buf[q + c] = f[L + c];
  }
}

PF_NAMESPACE_END

#endif
