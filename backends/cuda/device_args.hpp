#pragma once
// The CUDA side of core/kernels/kernel_args.hpp: a kernel's described arguments as the values its
// launch wrapper (kernels_cu/F.cuh) takes in precision T, and the call of that wrapper.
//
//   with_type(a.prec, [&](auto t) {
//     using T = decltype(t);
//     cu_launch<T>(&cu::launch_axpy<T>, a.kernel_args(), ctx_.stream());
//   });
//
// cu_launch checks at compile time that the converted values are, type for type, the wrapper's
// leading parameters (the rest are the extras given after the description: a launch shape, a
// launch struct, the stream), so a description that disagrees with the device code's signature
// in count or in kind does not compile.
#include <cstddef>
#include <tuple>
#include <type_traits>
#include <utility>

#include "backends/cuda/memory.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow::cuda_detail {

namespace device_args_detail {

// the element type of a buffer of E in precision T
template <class T, class E>
using elem_t = std::conditional_t<std::is_same_v<E, karg::Real>, T, E>;

// In<E> -> const E*, Out<E> -> E*, Opt<E> -> const E* or nullptr, OptOut<E> -> E* or nullptr
// (E = Real: T); OutAt<E> -> E* + at.
template <class T, class E>
const elem_t<T, E>* convert(const karg::In<E>& x) {
  return dptr<elem_t<T, E>>(x.b);
}
template <class T, class E>
const elem_t<T, E>* convert(const karg::Opt<E>& x) {
  return dptr<elem_t<T, E>>(x.b);
}
template <class T, class E>
elem_t<T, E>* convert(const karg::Out<E>& x) {
  return dptr<elem_t<T, E>>(x.b);
}
template <class T, class E>
elem_t<T, E>* convert(const karg::OptOut<E>& x) {
  return dptr<elem_t<T, E>>(x.b);
}
template <class T, class E>
elem_t<T, E>* convert(const karg::OutAt<E>& x) {
  return dptr<elem_t<T, E>>(x.b) + x.at;
}
// Real -> T
template <class T>
T convert(const karg::Real& x) {
  return static_cast<T>(x.v);
}
// int, long, std::size_t, pf_box3: as they are
template <class T, class X>
X convert(const X& x) {
  static_assert(karg::is_plain_value<X>, "a kernel argument of a kind core/kernels/kernel_args.hpp does not describe");
  return x;
}

template <class Dev, class Params, std::size_t... I>
constexpr bool leading_match(std::index_sequence<I...>) {
  return (std::is_same_v<std::tuple_element_t<I, Dev>, std::decay_t<std::tuple_element_t<I, Params>>> && ...);
}

}  // namespace device_args_detail

// The described arguments as precision T's device values, in order.
template <class T, class... X>
auto device_args(const std::tuple<X...>& desc) {
  return std::apply([](const auto&... x) { return std::make_tuple(device_args_detail::convert<T>(x)...); }, desc);
}

// fn(the described arguments for T..., extra...): the launch of a kernel of precision T.
template <class T, class... P, class... X, class... Extra>
void cu_launch(void (*fn)(P...), const std::tuple<X...>& desc, Extra&&... extra) {
  static_assert(sizeof...(X) + sizeof...(Extra) == sizeof...(P),
                "the description and the extras are not as many as the launch wrapper's parameters");
  using Dev = decltype(device_args<T>(desc));
  static_assert(device_args_detail::leading_match<Dev, std::tuple<P...>>(std::index_sequence_for<X...>{}),
                "the description's arguments are not the launch wrapper's leading parameters, type for type");
  std::apply([&](const auto&... x) { fn(x..., std::forward<Extra>(extra)...); }, device_args<T>(desc));
}

}  // namespace poreflow::cuda_detail
