// The fluids3d keys of a case file (docs/fluids3d.md lists them) into its configuration.
#include <cmath>

#include "core/base/error.hpp"
#include "core/io/cases/cases.hpp"

namespace poreflow {

namespace {

std::string idx(std::size_t i) { return "sources[" + std::to_string(i) + "]"; }

// paper 001's test program: a density source and an upward (+y) force at the centre for the first
// ten steps
std::vector<FluidsSource> default_sources(long n) {
  const long c = (n - 1) / 2;
  FluidsSource d;
  d.density = true;
  d.cell = {c, c, c};
  d.rate = 1000;  // 100 per step at dt = 0.1
  d.last_step = 10;
  FluidsSource f = d;
  f.density = false;
  f.rate = 0;
  f.force = {0, 50, 0};  // 5 per step at dt = 0.1
  return {d, f};
}

}  // namespace

Fluids3DConfig read_fluids3d_config(io::CaseFile& cf) {
  Fluids3DConfig c;
  c.n = cf.int_in_range("grid.n", c.n, 1, kFluids3dMaxN, "the (N + 2)^3 values with the ghost layers fill at most 2^48 an array");
  c.dt = cf.positive("time.dt", c.dt);
  c.steps = cf.int_at_least("time.steps", c.steps, 1);
  c.viscosity = cf.non_negative("fluid.viscosity", c.viscosity);
  c.diffusion = cf.non_negative("fluid.diffusion", c.diffusion);
  c.tolerance = cf.non_negative("solver.tolerance", c.tolerance);
  c.max_sweeps = cf.int_at_least("solver.max_sweeps", c.max_sweeps, 1);
  c.trace_layers = cf.int_in_range("solver.trace_layers", c.trace_layers, 1, kFluids3dMaxN,
                                   "a slab keeps at most as many of its neighbours' layers as the grid has");
  const auto projection = cf.get_string("solver.projection", "stam");
  if (projection == "classic") c.classic_projection = true;
  else if (projection != "stam") cf.fail("solver.projection", "= '" + projection + "' is not stam or classic");
  c.sweep_shape = cf.get_choice("solver.shape", "march:32x8", parse_box_shape);
  check_box_shape(c.sweep_shape, "solver.shape");
  if (c.sweep_shape.threads() % 32 != 0)
    cf.fail("solver.shape", "= '" + to_string(c.sweep_shape) + "' must have a multiple of 32 threads");
  c.box_shape = cf.get_choice("solver.box_shape", "march:32x8", parse_box_shape);
  check_box_shape(c.box_shape, "solver.box_shape");

  if (!cf.has("sources")) {
    c.sources = default_sources(c.n);
    return c;
  }
  const std::size_t ns = cf.count("sources");
  for (std::size_t s = 0; s < ns; ++s) {
    const std::string base = idx(s);
    FluidsSource src;
    const auto kind = cf.get_string(base + ".quantity", "density");
    if (kind == "density") src.density = true;
    else if (kind == "force") src.density = false;
    else cf.fail(base + ".quantity", "= '" + kind + "' is not density or force");
    src.radius = cf.int_at_least(base + ".radius", 0, 0);
    auto cell = cf.get_numbers(base + ".cell");
    const long mid = (c.n - 1) / 2;
    if (cell.empty()) cell = {double(mid), double(mid), double(mid)};
    if (cell.size() != 3) cf.fail(base + ".cell", "must be [i, j, k] (0-based cell indices)");
    for (int a = 0; a < 3; ++a) {
      if (cell[a] != std::floor(cell[a])) cf.fail(base + ".cell", "must hold integers");
      src.cell[a] = static_cast<long>(cell[a]);
      if (src.cell[a] - src.radius < 0 || src.cell[a] + src.radius >= c.n)
        cf.fail(base + ".cell", "with radius " + std::to_string(src.radius) + " reaches outside the grid of " +
                                    std::to_string(c.n) + " cells a side (indices 0.." + std::to_string(c.n - 1) + ")");
    }
    if (src.density) {
      src.rate = cf.get_double(base + ".rate", 1000);
      if (!std::isfinite(src.rate)) cf.fail(base + ".rate", "must be a finite number");
    } else {
      auto f = cf.get_numbers(base + ".force");
      if (f.size() != 3) cf.fail(base + ".force", "must be [fx, fy, fz] (velocity per unit time)");
      for (int a = 0; a < 3; ++a) {
        if (!std::isfinite(f[a])) cf.fail(base + ".force", "must hold finite numbers");
        src.force[a] = f[a];
      }
    }
    src.first_step = cf.int_at_least(base + ".first_step", 0, 0);
    src.last_step = cf.int_at_least(base + ".last_step", 10, 0);
    if (src.last_step < src.first_step) cf.fail(base + ".last_step", "is before first_step");
    c.sources.push_back(src);
  }
  return c;
}

}  // namespace poreflow
