#pragma once
// poreflow bench linalg's parts: bench_linalg.cpp times the sparse products and the dot products,
// bench_linalg_systems.cpp solves whole systems (docs/linalg.md, "poreflow bench linalg").
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "apps/bench_common.hpp"
#include "apps/bench_kinds.hpp"
#include "core/kernels/box3.hpp"

namespace poreflow::app {

// The relative residual every solve of the linear-algebra benches reaches; the host's residual of
// the solution may be kLinalgVerifyFactor times above it.
inline constexpr double kLinalgTol = 1e-8;
inline constexpr double kLinalgVerifyFactor = 10;

// A system of the bench, from a --sizes item: poissonN (the 7-point Laplacian on N^3 cells,
// Dirichlet), spe10[:NXxNYxNZ] (the pressure system of a slightly compressible step on the
// SPE10-like field with a five-spot of wells), spe10-2p[:NXxNYxNZ] (a two-phase Jacobian of 2 x 2
// blocks on the same field, for CPR).
struct LinalgSystem {
  enum class Kind { Poisson, Spe10, TwoPhase, ImpesCase2 };
  Kind kind = Kind::Poisson;
  long nx = 0, ny = 0, nz = 0;
  double day = 0;  // ImpesCase2: the pressure system of the step after this day
  std::string label() const;
};

// A system on the host, in double: the 7-point planes on a box with halo 1, a right-hand side, and
// the same numbers in sor3d's colour-packed arrays (scalar systems)
struct HostSystem {
  std::string label, what;
  Box3 box;
  int block = 1;
  std::vector<double> coef;  // the stencil's planes (core/linalg/stencil7.hpp), the matrix's own signs
  std::vector<int> active;
  std::vector<double> rhs;   // block x extent
  std::vector<double> sor;   // block 1: sor3d's colour-packed W E S N B T D R (D p - sum T p_n = R)
  bool poisson = false;
  std::size_t extent() const { return box.extent(); }
  std::size_t vector_size() const { return extent() * static_cast<std::size_t>(block); }
  std::size_t unknowns() const { return static_cast<std::size_t>(box.cells()) * static_cast<std::size_t>(block); }
};
HostSystem linalg_host_system(const LinalgSystem& spec);

// false when the item names no system; ConfigError for a system item that is wrong
bool parse_linalg_system(const std::string& item, LinalgSystem& out);

using NamedBackends = std::vector<std::pair<std::string, std::unique_ptr<Backend>>>;

// Every system with every solver on the backends: the systems run on the backends given with
// --backends (serial only where it is listed, or where --backends is not given).
void bench_linalg_systems(const BenchOptions& o, const std::vector<LinalgSystem>& systems, NamedBackends& backends,
                          std::vector<BenchRow>& rows);

// the products and dots as print_rows does, then the systems' table
void print_linalg_tables(const std::vector<BenchRow>& rows);

}  // namespace poreflow::app
