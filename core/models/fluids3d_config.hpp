#pragma once
// What a fluids3d run is (case keys: docs/fluids3d.md).
#include <array>
#include <vector>

#include "core/base/limits.hpp"
#include "core/kernels/box3.hpp"

namespace poreflow {

// A source: over the cells within `radius` of `cell` (a cube of 2 radius + 1 cells a side), in
// the steps [first_step, last_step), adds dt * rate to the density, or dt * force to the velocity.
struct FluidsSource {
  bool density = true;  // else a force
  std::array<long, 3> cell{0, 0, 0};  // 0-based interior indices
  long radius = 0;
  double rate = 0;                    // density per unit time
  std::array<double, 3> force{0, 0, 0};  // velocity per unit time
  long first_step = 0, last_step = 0;
};

// grid.n: the (N + 2)^3 values of a field with its ghost layers are at most kMaxArrayValues
// (core/base/limits.hpp): 65536^3 = 2^48
constexpr long kFluids3dMaxN = 65534;
static_assert(product_within({kFluids3dMaxN + 2, kFluids3dMaxN + 2, kFluids3dMaxN + 2}) != 0);

struct Fluids3DConfig {
  long n = 84;
  double dt = 0.1;
  long steps = 100;
  double viscosity = 1e-4, diffusion = 1e-4;
  double tolerance = 1e-7;
  long max_sweeps = 20;
  // over several processes (docs/mpi.md): the layers of its neighbours a slab keeps below and
  // above for advect's trace (the trace in z, dt N |w| cells, must stay within them less one)
  long trace_layers = 24;
  bool classic_projection = false;  // the classic program's gradient scale 0.5 instead of 0.5 N
  BoxShape sweep_shape;             // lin_solve's colour sweeps
  BoxShape box_shape;               // advect, divergence, gradient, sources
  std::vector<FluidsSource> sources;
};

}  // namespace poreflow
