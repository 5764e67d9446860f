#pragma once
// A kernel's arguments, described once. Each argument struct of core/kernels/F.hpp has a member
// kernel_args() (or one per kernel, where a struct serves kernels of different parameter lists,
// e.g. Impes3DWellArgs::prepare_args and finish_args) that returns a std::tuple of the values
// below IN THE ORDER OF THE KERNEL'S PARAMETERS: the one description of what the kernel takes,
// values derived from the struct (a box view, an extent, n - 1 faces) included. The GPU backends
// convert it generically and never restate the fields:
//
//   CUDA (backends/cuda/device_args.hpp): cu_launch<T>(&cu::launch_F<T>, a.kernel_args(), extra...)
//     calls the launch wrapper of kernels_cu/F.cuh with each value converted for precision T
//     (Real -> T, In<Real> -> const T*, In<E> -> const E*, Out<...> -> a pointer, Opt<...> -> a
//     pointer or nullptr, the rest as it is), checked at compile time type for type against the
//     wrapper's parameters, then the launch's own extras (a launch shape, the stream).
//   OpenCL (backends/opencl/context.hpp): ctx.set_args(kernel, prec, a.kernel_args(), extra...)
//     sets them in order (Real -> cl_float or cl_double, buffers -> cl_mem or a null pointer,
//     std::size_t -> cl_ulong, long -> cl_long, int -> cl_int, pf_box3 as itself), then the
//     per-launch extras, and throws BackendError naming the kernel unless that is exactly the
//     number of parameters the built kernel has (CL_KERNEL_NUM_ARGS).
//
// Per-launch values that only the backend knows (an iteration's plan, a launch shape's layers, a
// scratch buffer, a local-memory size) follow the described ones, so kernels that take some put
// them last. Scalars are `double` in the structs and become the launch's precision here (Real);
// integers are passed as the kernel's type (int, long, std::size_t: no bool, no unsigned).
#include <cstddef>
#include <tuple>
#include <type_traits>

#include "core/base/box3.h"
#include "core/base/common.h"
#include "core/kernels/backend.hpp"

namespace poreflow::karg {

using phys::pf_u64;  // control blocks and statistics words

// A scalar in the launch's precision (float or double).
struct Real {
  double v = 0;
};

// Buffers of elements E: Real (the launch's precision) or a fixed type (pf_u64 for control
// blocks and statistics words, long, int).
template <class E>
struct In {  // read; must not be null
  const Buffer* b = nullptr;
};
template <class E>
struct Out {  // written (and maybe read); must not be null
  Buffer* b = nullptr;
};
template <class E>
struct Opt {  // read where present: may be null (the kernel tests the pointer)
  const Buffer* b = nullptr;
};
template <class E>
struct OptOut {  // written where present: may be null
  Buffer* b = nullptr;
};
// Written from element `at` on. CUDA passes the pointer there; OpenCL, which cannot offset a
// buffer object, passes the buffer and then `at` (a long): two parameters of the kernel.
template <class E>
struct OutAt {
  Buffer* b = nullptr;
  long at = 0;
};

template <class X>
struct is_buffer : std::false_type {};
template <class E>
struct is_buffer<In<E>> : std::true_type {};
template <class E>
struct is_buffer<Out<E>> : std::true_type {};
template <class E>
struct is_buffer<Opt<E>> : std::true_type {};
template <class E>
struct is_buffer<OptOut<E>> : std::true_type {};

template <class X>
struct is_optional : std::false_type {};
template <class E>
struct is_optional<Opt<E>> : std::true_type {};
template <class E>
struct is_optional<OptOut<E>> : std::true_type {};

template <class X>
struct is_out_at : std::false_type {};
template <class E>
struct is_out_at<OutAt<E>> : std::true_type {};

template <class X>
struct is_tuple : std::false_type {};
template <class... X>
struct is_tuple<std::tuple<X...>> : std::true_type {};

// The plain values a description may hold besides the kinds above.
template <class X>
constexpr bool is_plain_value = std::is_same_v<X, int> || std::is_same_v<X, long> || std::is_same_v<X, std::size_t> ||
                                std::is_same_v<X, pf_box3>;

}  // namespace poreflow::karg
