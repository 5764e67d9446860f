#pragma once
// Limits on the sizes a run takes from its input, so that every count of values and bytes made
// from them stays exact in 64 bits (a grid's cells, an array's bytes, a model's memory need). A
// size past them is refused where it is read, naming the key or option and the limit.
#include <cstdint>
#include <initializer_list>

namespace poreflow {

// The most values one array may hold: 2^48 (2.8e14 values, 2.3 PB in double). A model keeps at
// most a few hundred arrays of its grid's size, so the bytes of all of them stay below 2^60.
constexpr std::uint64_t kMaxArrayValues = std::uint64_t(1) << 48;

// The product of `factors` when it is at most `limit`, else 0: no intermediate product overflows,
// whatever the factors (a factor of 0 gives 0).
constexpr std::uint64_t product_within(std::initializer_list<std::uint64_t> factors, std::uint64_t limit = kMaxArrayValues) {
  std::uint64_t p = 1;
  for (std::uint64_t f : factors) {
    if (f == 0) return 0;
    if (p > limit / f) return 0;
    p *= f;
  }
  return p;
}

}  // namespace poreflow
