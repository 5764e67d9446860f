// The adi2d keys of a case file (docs/adi2d.md lists them) into its configuration.
#include <cmath>

#include "core/base/error.hpp"
#include "core/base/format.hpp"
#include "core/io/cases/cases.hpp"

namespace poreflow {

Adi2DConfig read_adi2d_config(io::CaseFile& cf, Backend& be) {
  Adi2DConfig c;
  c.points = cf.int_in_range("grid.points", c.points, 3, kAdi2dMaxPoints, "2^24: the N x N nodes fill at most 2^48 values an array");
  c.length = cf.positive("grid.length", c.length);
  auto& p = c.prm;
  p[ADI_PERM] = cf.positive("rock.permeability", 1.0);
  p[ADI_PORO] = cf.in_range("rock.porosity", 0.2, 0, 1, true, false);
  p[ADI_MU_W] = cf.positive("fluid.mu_water", 1.0);
  p[ADI_MU_O] = cf.positive("fluid.mu_oil", 3.0);
  p[ADI_MU_G] = cf.positive("fluid.mu_gas", 0.05);
  p[ADI_RHO_W] = cf.positive("fluid.rho_water", 1.0);
  p[ADI_RHO_O] = cf.positive("fluid.rho_oil", 0.8);
  p[ADI_RHO_G] = cf.positive("fluid.rho_gas", 0.2);
  p[ADI_C_W] = cf.non_negative("fluid.c_water", 0.001);
  p[ADI_C_O] = cf.non_negative("fluid.c_oil", 0.01);
  p[ADI_C_G] = cf.non_negative("fluid.c_gas", 0.1);
  p[ADI_P_REF] = cf.get_double("fluid.p_ref", 1.0);
  p[ADI_K3] = cf.positive("fluid.k3", 0.5);
  p[ADI_K3_BETA] = cf.get_double("fluid.k3_beta", 0.0);
  p[ADI_DIFF] = cf.non_negative("fluid.diffusion", 0.0);
  p[ADI_SWR] = cf.in_range("relperm.swr", 0.1, 0, 1, false, true);
  p[ADI_SOR] = cf.in_range("relperm.sor", 0.1, 0, 1, false, true);
  p[ADI_SGR] = cf.in_range("relperm.sgr", 0.0, 0, 1, false, true);
  if (p[ADI_SWR] + p[ADI_SOR] + p[ADI_SGR] >= 1) cf.fail("relperm.swr", "+ relperm.sor + relperm.sgr must be < 1");
  p[ADI_NEXP] = cf.in_range("relperm.n", 3.25, 1, 1e3, true, false);
  double zeta = cf.non_negative("capillary.zeta", 100.0);
  p[ADI_INV_ZETA] = zeta > 0 ? 1.0 / zeta : 0.0;
  p[ADI_PC_SMIN] = cf.in_range("capillary.s_min", 0.01, 0, 1, true, true);

  c.p_init = cf.positive("initial.pressure", c.p_init);
  c.sw0 = cf.in_range("initial.sw", c.sw0, 0, 1, false, false);
  c.so0 = cf.in_range("initial.so", c.so0, 0, 1, false, false);
  c.sg0 = cf.in_range("initial.sg", c.sg0, 0, 1, false, false);
  double sum = c.sw0 + c.so0 + c.sg0;
  if (std::fabs(sum - 1) > 1e-9)
    cf.fail("initial.sw", "+ initial.so + initial.sg = " + num_text(sum) + ": the saturations must sum to 1");
  c.co3_0 = cf.in_range("initial.c_o3", c.co3_0, 0, 1, false, false);
  double k3 = p[ADI_K3] * std::exp(-p[ADI_K3_BETA] * (c.p_init - p[ADI_P_REF]));
  if (k3 * c.co3_0 > 1)
    cf.fail("initial.c_o3", "times K3 at the initial pressure (" + num_text(k3) +
                                ") exceeds 1: the gas cannot hold that much component 3");
  for (int a : {ADI_RHO_W, ADI_RHO_O, ADI_RHO_G}) {
    int cidx = a == ADI_RHO_W ? ADI_C_W : a == ADI_RHO_O ? ADI_C_O : ADI_C_G;
    if (1 + p[cidx] * (c.p_init - p[ADI_P_REF]) <= 0) cf.fail("initial.pressure", "gives a negative density");
  }

  c.dt = cf.positive("time.dt", c.dt);
  c.end_time = cf.positive("time.end", c.end_time);
  c.cfl = cf.in_range("time.cfl", c.cfl, 0, 1, true, false);
  c.max_substeps = cf.int_at_least("time.max_substeps", c.max_substeps, 1);
  c.max_steps = cf.int_at_least("time.max_steps", c.max_steps, 1);
  if (const double steps = std::ceil(c.end_time / c.dt * (1 - 1e-12)); steps > double(c.max_steps))
    cf.fail("time.max_steps", "= " + std::to_string(c.max_steps) + " is fewer than the " + count_text(steps) +
                                  " steps of time.dt = " + num_text(c.dt) + " to time.end = " + num_text(c.end_time));

  auto solver = cf.get_string("pressure.solver", "adi");
  if (solver != "adi") cf.fail("pressure.solver", "= '" + solver + "' is not available (expected: adi)");
  c.adi.algo = cf.get_choice("pressure.algorithm", "auto", parse_tridiag_algo);
  // the residual of the pressure equation is each node's volume imbalance as a fraction of its
  // pore volume: the tolerance is absolute, in those units
  c.adi.abs_tolerance = cf.non_negative("pressure.tolerance", 1e-5);
  c.adi.tolerance = 0;
  c.adi.max_iterations = static_cast<int>(cf.int_at_least("pressure.max_iterations", 200, 1));
  c.adi.check_every = static_cast<int>(cf.int_at_least("pressure.check_every", 1, 1));
  c.pressure_passes = static_cast<int>(cf.int_at_least("pressure.passes", c.pressure_passes, 1));
  c.adi.cycle = static_cast<int>(cf.int_at_least("pressure.parameters", 8, 1));
  bool is_auto = false;
  c.adi.reduce.variant = cf.get_choice("pressure.reduction", "auto", [&](const std::string& v) { return parse_reduce_variant(v, &is_auto); });
  if (is_auto) c.adi.reduce.variant = be.reduce().default_variant();
  c.adi.reduce.combine = cf.get_choice("pressure.combine", "atomic", parse_combine);
  c.adi.reduce.block = static_cast<int>(cf.get_int("pressure.block", 512));
  be.reduce().check_config(c.adi.reduce);

  c.pattern = cf.get_string("wells.pattern", c.pattern);
  c.radius = cf.positive("wells.radius", c.radius);
  c.injection_rate = cf.non_negative("wells.injection_rate", c.injection_rate);
  c.producer_index = cf.non_negative("wells.producer_index", c.producer_index);
  c.producer_bhp = cf.get_double("wells.producer_bhp", c.producer_bhp);
  const double L = c.length;
  if (c.pattern == "corners") {
    c.wells = {{0, 0, true}, {L, L, false}};
  } else if (c.pattern == "five_spot") {
    c.wells = {{L / 2, L / 2, true}, {0, 0, false}, {L, 0, false}, {0, L, false}, {L, L, false}};
  } else {
    cf.fail("wells.pattern", "= '" + c.pattern + "' is not a known pattern (expected: corners, five_spot)");
  }
  return c;
}

}  // namespace poreflow
