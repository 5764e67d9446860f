/* Shared by C++, CUDA and OpenCL C: the one place that knows which language it is in.
   Physics and kernel-side helpers are written once with these macros:
     PF_FN        function qualifiers (host+device on CUDA, nothing on OpenCL)
     PF_TEMPLATE  "template <typename pf_real>" in C++/CUDA; empty in OpenCL, where the program
                  builder defines pf_real as float or double
     PF_GLOBAL    the address space of arrays passed to shared functions (__global in OpenCL C 1.2,
                  which has no generic address space)
     PF_STRUCT(N) declares a struct of pf_real fields: a template in C++/CUDA, a typedef in OpenCL;
     PF_T(N)      names it inside shared functions
     pf_u64       an unsigned 64-bit word (device control blocks)
     PF_TO_WORD(x), PF_FROM_WORD(w)  a pf_real as the low bits of a word and back (a float in
                  the low 32 bits, a double in all 64): control blocks hold values this way
     PF_GROUP_BARRIER()  waits for every work-item of the group (thread of the block, OpenMP
                  thread of the team), whose global-memory writes before it are then seen by all:
                  for functions one work-group runs from start to end (core/physics/amg_tail.h)
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
#define PF_GROUP_BARRIER() barrier(CLK_GLOBAL_MEM_FENCE)
typedef ulong pf_u64;
#if PF_DOUBLE
#define PF_TO_WORD(x) as_ulong(x)
#define PF_FROM_WORD(w) as_double(w)
#else
#define PF_TO_WORD(x) ((ulong)as_uint(x))
#define PF_FROM_WORD(w) as_float((uint)(w))
#endif
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
#if defined(__CUDA_ARCH__)
#define PF_GROUP_BARRIER() __syncthreads()
#elif defined(_OPENMP)
#define PF_GROUP_BARRIER() _Pragma("omp barrier")
#else
#define PF_GROUP_BARRIER()
#endif
#include <cstring>
namespace poreflow {
namespace phys {
typedef unsigned long long pf_u64;
PF_FN pf_u64 pf_to_word(float x) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(x);
#else
  unsigned int b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}
PF_FN pf_u64 pf_to_word(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<pf_u64>(__double_as_longlong(x));
#else
  pf_u64 b;
  std::memcpy(&b, &x, sizeof b);
  return b;
#endif
}
template <typename R>
PF_FN R pf_from_word(pf_u64 w);
template <>
PF_FN float pf_from_word<float>(pf_u64 w) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(static_cast<unsigned int>(w));
#else
  const unsigned int b = static_cast<unsigned int>(w);
  float x;
  std::memcpy(&x, &b, sizeof x);
  return x;
#endif
}
template <>
PF_FN double pf_from_word<double>(pf_u64 w) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(w));
#else
  double x;
  std::memcpy(&x, &w, sizeof x);
  return x;
#endif
}
}  // namespace phys
}  // namespace poreflow
#define PF_TO_WORD(x) pf_to_word(x)
#define PF_FROM_WORD(w) pf_from_word<pf_real>(w)
#endif

#endif
