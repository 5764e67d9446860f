/* Shared by C++, CUDA and OpenCL C: the one place that knows which language it is in.
   Physics and kernel-side helpers are written once with these macros:
     PF_FN        function qualifiers (host+device on CUDA, nothing on OpenCL)
     PF_TEMPLATE  "template <typename pf_real>" in C++/CUDA; empty in OpenCL, where the program
                  builder defines pf_real as float or double
   Keep the code in these headers to the common subset of C99 and C++. */
#ifndef PF_KERNELS_COMMON_H
#define PF_KERNELS_COMMON_H

#if defined(__OPENCL_VERSION__)
#define PF_FN
#define PF_TEMPLATE
#define PF_NAMESPACE_BEGIN
#define PF_NAMESPACE_END
#else
#include <cmath>
#if defined(__CUDACC__)
#define PF_FN __host__ __device__ inline
#else
#define PF_FN inline
#endif
#define PF_TEMPLATE template <typename pf_real>
#define PF_NAMESPACE_BEGIN \
  namespace poreflow {     \
  namespace phys {         \
  using std::fabs;         \
  using std::fmax;         \
  using std::fmin;         \
  using std::pow;          \
  using std::sqrt;
#define PF_NAMESPACE_END \
  }                      \
  }
#endif

#endif
