// The bl1d keys of a case file (docs/bl1d.md lists them) into its configuration.
#include <cmath>

#include "core/base/error.hpp"
#include "core/io/cases/cases.hpp"

namespace poreflow {

BL1DConfig read_bl1d_config(io::CaseFile& cf, Backend& be) {
  BL1DConfig c;
  c.points = cf.int_in_range("grid.points", c.points, 3, kBl1dMaxPoints, "2^48: the most values of one array");
  c.length = cf.positive("grid.length", c.length);
  auto& p = c.phys;
  p.length = c.length;
  p.k = cf.positive("rock.permeability", p.k);
  p.porosity = cf.in_range("rock.porosity", p.porosity, 0, 1, true, false);
  p.mu_w = cf.positive("fluid.mu_water", p.mu_w);
  p.mu_o = cf.positive("fluid.mu_oil", p.mu_o);
  c.p_init = cf.get_double("initial.pressure", c.p_init);
  p.s_init = cf.in_range("initial.saturation", p.s_init, 0, 1, false, false);
  p.p_inj = cf.get_double("boundary.p_inj", p.p_inj);
  p.p_prod = cf.get_double("boundary.p_prod", p.p_prod);
  p.s_inj = cf.in_range("boundary.s_inj", p.s_inj, 0, 1, false, false);
  for (double v : {c.p_init, p.p_inj, p.p_prod})
    if (!std::isfinite(v)) cf.fail("initial.pressure/boundary.p_inj/boundary.p_prod", "must be finite");
  if (!(p.s_inj > p.s_init)) cf.fail("boundary.s_inj", "must exceed initial.saturation (water displaces oil)");
  if (!(p.p_inj > p.p_prod)) cf.fail("boundary.p_inj", "must exceed boundary.p_prod (flow from injector to producer)");
  c.end_time = cf.positive("time.end", c.end_time);
  c.cfl = cf.in_range("time.cfl", c.cfl, 0, 1, true, false);
  c.max_steps = cf.int_at_least("time.max_steps", c.max_steps, 1);
  c.dt_min = cf.has("time.dt_min") ? cf.positive("time.dt_min", 0) : 0;

  auto solver = cf.get_string("pressure.solver", "jacobi");
  if (solver != "jacobi" && solver != "tridiag")
    cf.fail("pressure.solver", "= '" + solver + "' is not available (expected: jacobi, tridiag)");
  c.tridiag = solver == "tridiag";
  c.algo = cf.get_choice("pressure.algorithm", "auto", parse_tridiag_algo);
  auto& j = c.jacobi;
  j.metric = cf.get_choice("pressure.convergence", "residual", parse_jacobi_metric);
  j.tolerance = cf.positive("pressure.tolerance", j.metric == JacobiMetric::Dp ? 1e-9 : 1e-6);
  j.check_every = static_cast<int>(cf.int_at_least("pressure.check_every", 1, 1));
  j.max_iterations = cf.int_at_least("pressure.max_iterations", j.max_iterations, 1);
  bool is_auto = false;
  j.reduce.variant = cf.get_choice("pressure.reduction", "auto", [&](const std::string& v) { return parse_reduce_variant(v, &is_auto); });
  if (is_auto) j.reduce.variant = be.reduce().default_variant();
  j.reduce.combine = cf.get_choice("pressure.combine", "atomic", parse_combine);
  j.reduce.block = static_cast<int>(cf.get_int("pressure.block", 512));
  be.reduce().check_config(j.reduce);
  return c;
}

}  // namespace poreflow
