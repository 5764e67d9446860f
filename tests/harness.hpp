#pragma once
// Test harness: every backend test is written once and run on the backends under test
// (--pf-backend=NAME[,NAME...], default: every available one) against the serial double reference.
#include <doctest/doctest.h>

#include <cstdint>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "core/kernels/backend.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/reduce.hpp"

namespace poreflow::test {

// What outputs are poisoned with before a run, and the NaN of the bad-input cases.
inline constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

struct Env {
  std::vector<std::string> backends;
  BackendOptions opts;
  std::uint64_t seed = 0;
};
Env& env();
// Takes poreflow's own options out of argv (--pf-backend=a,b into `backends`; --pf-cl-platform,
// --pf-cl-device, --pf-device into env().opts) and returns the rest, for doctest.
std::vector<char*> take_options(int argc, char** argv, std::string& backends);

// Backends are created once per process (OpenCL program builds are slow on PoCL).
Backend& backend(const std::string& name);
Backend& reference();  // serial
// Destroys the cached backends (before main returns: their device and pinned memory is released
// while the drivers are still there, so leak checkers see a clean exit).
void release_backends();

template <class F>
void for_each_backend(F&& f) {
  for (const auto& name : env().backends) {
    Backend& be = backend(name);
    INFO("backend: ", name, " (", be.device_name(), ")");
    f(be);
  }
}

std::mt19937_64& rng();  // seeded from env().seed, printed at start

template <class T>
std::vector<T> random_vector(std::size_t n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng()));
  return v;
}

// Copies host values into a field of backend `be`.
template <class T>
Field<T> make_field(Backend& be, const std::vector<T>& host) {
  Field<T> f(be, host.size());
  if (!host.empty()) f.upload(host);
  return f;
}

template <class To, class From>
std::vector<To> convert(const std::vector<From>& v) {
  return std::vector<To>(v.begin(), v.end());
}

// Relative tolerance of a computation in T compared with the double reference.
template <class T>
constexpr double tol() {
  return sizeof(T) == 4 ? 2e-5 : 1e-12;
}

// Sizes of 1D kernels' tests: not powers of two, larger than a block, past the omp threshold.
inline const std::vector<std::size_t> kSizes = {1, 2, 31, 32, 33, 1000, 4097, 65536 + 17, (1u << 20) + 3};

// Every reduction configuration a backend offers: each variant, both combines for the paper
// variants, and a few block sizes.
std::vector<ReduceConfig> reduce_configs(Backend& be);

// max_i |a_i - b_i| / max(scale, max|b_i|); NaN anywhere makes it infinite
double max_rel_diff(const std::vector<double>& a, const std::vector<double>& b, double scale = 0);

}  // namespace poreflow::test
