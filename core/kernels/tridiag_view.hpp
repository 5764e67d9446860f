#pragma once
// Where the systems of a batched tridiagonal solve lie: the CUDA kernels (kernels_cu/tridiag.cuh)
// read rows through it, and both the CUDA and the OpenCL plan (backends/opencl/tridiag.cpp, which
// passes it to kernels_cl/tridiag.cl's tri_off/tri_rows) build it with make_view.
//
// Row j of system s is at off(s) + j * sj, off(s) = (s / q) * s1 + (s % q) * s2. After `levels`
// global PCR levels (k = 2^levels), subsystem s holds the rows r, r + k, r + 2k, ... of an
// original system of n rows, r = (s / r1) % k; the whole systems are the case k = 1.
//   contiguous:  s1 = n, sj = 1;       split: s = sys * k + r,  q = k, s2 = 1, sj = k, r1 = 1
//   interleaved: s1 = 1, sj = batch;   split: s = r * batch + sys,  sj = k * batch, r1 = batch
// The split subsystems stay where their rows are, so x is written through the same view.
#include <cstddef>

#include "core/base/common.h"

namespace poreflow::tri {

struct View {
  std::size_t s1 = 0, s2 = 0, sj = 1, n = 0, r1 = 1, count = 0;
  unsigned q = 1, k = 1;

  PF_FN std::size_t off(std::size_t s) const { return q == 1 ? s * s1 : (s / q) * s1 + (s % q) * s2; }
  PF_FN std::size_t rows(std::size_t s) const {
    if (k == 1) return n;
    const std::size_t r = (s / r1) % k;
    return (n - r + k - 1) / k;
  }
};

inline View make_view(bool inter, std::size_t n, std::size_t batch, unsigned k) {
  View v;
  v.n = n;
  v.k = k;
  v.count = batch * k;
  if (inter) {
    v.s1 = 1;
    v.sj = k * batch;
    v.r1 = batch;
  } else {
    v.q = k;
    v.s1 = n;
    v.s2 = 1;
    v.sj = k;
  }
  return v;
}

}  // namespace poreflow::tri
