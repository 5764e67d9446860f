/* Shared by C++, CUDA and OpenCL C: the one place that knows which language it is in.
   Physics and kernel-side helpers are written once with these macros:
     PF_FN        function qualifiers (host+device on CUDA, nothing on OpenCL)
     PF_TEMPLATE  "template <typename pf_real>" in C++/CUDA; empty in OpenCL, where the program
                  builder defines pf_real as float or double
     PF_GLOBAL    the address space of arrays passed to shared functions (__global in OpenCL C 1.2,
                  which has no generic address space)
     PF_STRUCT(N) declares a struct of pf_real fields: a template in C++/CUDA, a typedef in OpenCL;
     PF_T(N)      names it inside shared functions
   Keep the code in these headers to the common subset of C99 and C++. */
#ifndef PF_KERNELS_COMMON_H
#define PF_KERNELS_COMMON_H

#if defined(__OPENCL_VERSION__) || defined(__OPENCL_C_VERSION__)
#define PF_FN
#define PF_TEMPLATE
#define PF_GLOBAL __global
#define PF_STRUCT(name)          \
  typedef struct name##_s name; \
  struct name##_s
#define PF_T(name) name
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
#define PF_GLOBAL
#define PF_STRUCT(name) \
  template <typename pf_real> \
  struct name
#define PF_T(name) name<pf_real>
#define PF_NAMESPACE_BEGIN \
  namespace poreflow {     \
  namespace phys {         \
  using std::exp;          \
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
