#pragma once
// Launch wrappers of the csr family (kernels_cu/csr.cu; twin kernels_cl/csr.cl). The leading
// parameters are the argument structs' descriptions (core/kernels/csr.hpp); the launch's own
// values follow: the block size (1 or 2) and the lanes per row, which select the kernel.
#include <cuda_runtime_api.h>

#include <cstddef>

namespace poreflow::cu {

constexpr unsigned kCsrThreads = 256;  // threads per CUDA block of every csr kernel

struct CsrLaunch {
  int block = 1;  // unknowns per block row
  int lanes = 1;  // threads summing one row: 1, 2, 4, 8, 16 or 32 (lanes of one warp)
};

// y = alpha A x + beta z (z null: not read); spmv and residual (CsrSpmvArgs, CsrResidualArgs)
template <class T>
void launch_csr_spmv(long rows, const int* ptr, const int* col, const T* val, const T* x, T alpha, T beta, const T* z, T* y,
                     const unsigned long long* guard, CsrLaunch l, cudaStream_t stream);

// one Chebyshev step of a scalar matrix, lanes threads a row (CsrChebyshevArgs)
template <class T>
void launch_csr_chebyshev(long rows, const int* ptr, const int* col, const T* val, const T* x, const T* b, const T* dinv,
                          T* d, T* x_out, T* r, T alpha, T beta, T start, const unsigned long long* guard, int lanes,
                          cudaStream_t stream);

// dinv = the diagonal blocks' inverses, the first singular row into *bad (CsrDiagInvArgs)
template <class T>
void launch_csr_diag_inv(long rows, const int* ptr, const int* col, const T* val, T* dinv, int* bad,
                         const unsigned long long* guard, int block, cudaStream_t stream);

// out = the row sums of |D^-1 A| (CsrDinvBoundArgs)
template <class T>
void launch_csr_dinv_bound(long rows, const int* ptr, const T* val, const T* dinv, T* out, const unsigned long long* guard,
                           int block, cudaStream_t stream);

// val[k] = src[map[k]], blocks of block^2 values (CsrGatherArgs)
template <class T>
void launch_csr_gather(long nnz, const long* map, const T* src, T* val, const unsigned long long* guard, int block,
                       cudaStream_t stream);

}  // namespace poreflow::cu
