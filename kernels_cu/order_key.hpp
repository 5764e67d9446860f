#pragma once
// Reduction values as unsigned keys, shared by the reduce and jacobi1d kernels and the host side
// that decodes them. Sum accumulates in T. Every max/min accumulates order-preserving unsigned
// keys of the IEEE bits, so that the device can combine them with integer atomicMax/atomicMin and
// a block-level max is an integer max: key = sign ? ~bits : bits | signbit orders keys like the
// values (-NaN < -inf < ... < -0 < +0 < ... < +inf < +NaN). A max therefore propagates +NaN.
// Non-negative values need no key: their bits already order like them (the metrics of the
// convergence checks).
#include <type_traits>

#include "core/base/common.h"

namespace poreflow::cu {

// the unsigned type of a T's size (the types CUDA's atomics take)
template <class T>
using bits_t = std::conditional_t<sizeof(T) == 4, unsigned int, unsigned long long>;

PF_FN unsigned int order_key(unsigned int bits) { return (bits & 0x80000000u) ? ~bits : (bits | 0x80000000u); }
PF_FN unsigned long long order_key(unsigned long long bits) {
  return (bits & 0x8000000000000000ull) ? ~bits : (bits | 0x8000000000000000ull);
}
PF_FN unsigned int key_bits(unsigned int key) { return (key & 0x80000000u) ? (key & 0x7fffffffu) : ~key; }
PF_FN unsigned long long key_bits(unsigned long long key) {
  return (key & 0x8000000000000000ull) ? (key & 0x7fffffffffffffffull) : ~key;
}

}  // namespace poreflow::cu
