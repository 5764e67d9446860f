#include "core/kernels/adi2d.hpp"

#include <string>

#include "core/base/error.hpp"
#include "core/physics/adi2d.h"

namespace poreflow {

static_assert(kAdi2DProps == ADI_NPROPS, "core/kernels/adi2d.hpp and core/physics/adi2d.h disagree on the node properties");

Adi2DKernels Backend::adi2d() { return Adi2DKernels(*this, adi2d_impl()); }

namespace {

// the checks every adi2d kernel shares: the grid, the precision, node arrays of nx * ny values
struct Check {
  const Backend& be;
  const Adi2DGeom& g;
  Precision prec;
  const char* kernel;
  Check(const Backend& b, const Adi2DGeom& geom, Precision p, const char* k) : be(b), g(geom), prec(p), kernel(k) {
    check_precision(be, prec, kernel);
    if (g.nx < 2 || g.ny < 2)
      throw BackendError(std::string(kernel) + ": the grid needs at least 2 x 2 nodes (" + std::to_string(g.nx) + " x " +
                         std::to_string(g.ny) + ")");
    if (!(g.h > 0)) throw BackendError(std::string(kernel) + ": the node spacing must be positive");
  }
  void nodes(const Buffer* b, const char* what) const { check_values(b, g.nx * g.ny, prec, kernel, what); }
  void params(const Buffer* prm) const { check_values(prm, ADI_NPARAMS, prec, kernel, "prm"); }
  void props(const Buffer* b) const { check_values(b, kAdi2DProps * g.nx * g.ny, prec, kernel, "props"); }
  void state(const Adi2DPhaseState& s) const {
    nodes(s.p, "p");
    nodes(s.sw, "sw");
    nodes(s.so, "so");
    nodes(s.sg, "sg");
    nodes(s.co3, "co3");
    nodes(s.cg3, "cg3");
    props(s.props);
  }
  void wells(const Adi2DWells& w) const {
    nodes(w.inj, "inj");
    nodes(w.prod, "prod");
  }
};

}  // namespace

void Adi2DKernels::flash(const Adi2DFlashArgs& a) {
  Check c(be_, a.g, a.prec, "adi2d flash");
  c.params(a.prm);
  for (const Buffer* m : a.mass) c.nodes(m, "mass");
  c.nodes(a.p, "p");
  for (const Buffer* b : {a.sw, a.so, a.sg, a.co3, a.cg3, a.vol}) c.nodes(b, "output");
  c.props(a.props);
  impl_.flash(a);
}

void Adi2DKernels::coefficients(const Adi2DCoeffArgs& a) {
  Check c(be_, a.g, a.prec, "adi2d coefficients");
  c.params(a.prm);
  c.state(a.st);
  c.nodes(a.vol, "vol");
  for (const Buffer* m : a.mass) c.nodes(m, "mass");
  c.wells(a.wells);
  for (const Buffer* b : {a.aw, a.ae, a.as, a.an, a.d0, a.rhs}) c.nodes(b, "coefficient");
  impl_.coefficients(a);
}

void Adi2DKernels::sweep(const Adi2DSweepArgs& a) {
  Check c(be_, a.g, a.prec, "adi2d sweep");
  for (const Buffer* b : {a.aw, a.ae, a.as, a.an, a.d0, a.rhs, a.p}) c.nodes(b, "input");
  for (const Buffer* b : {a.a, a.b, a.c, a.d}) c.nodes(b, "row");
  check_control(a.ctl, "adi2d sweep");
  if (a.candidates[0] || a.candidates[1]) {
    if (!a.ctl.checks()) throw BackendError("adi2d sweep: candidate buffers without a check");
    c.nodes(a.candidates[0], "candidate");
    c.nodes(a.candidates[1], "candidate");
    if (a.candidates[0] == a.candidates[1] || a.candidates[0] == a.p || a.candidates[1] == a.p)
      throw BackendError("adi2d sweep: the candidate buffers must be two buffers other than p");
  }
  impl_.sweep(a);
}

void Adi2DKernels::total_velocity(const Adi2DVelocityArgs& a) {
  Check c(be_, a.g, a.prec, "adi2d total_velocity");
  c.params(a.prm);
  c.state(a.st);
  c.nodes(a.ux, "ux");
  c.nodes(a.uy, "uy");
  impl_.total_velocity(a);
}

void Adi2DKernels::transport(const Adi2DTransportArgs& a) {
  Check c(be_, a.g, a.prec, "adi2d transport");
  c.params(a.prm);
  c.state(a.st);
  c.nodes(a.ux, "ux");
  c.nodes(a.uy, "uy");
  c.wells(a.wells);
  for (int k = 0; k < 4; ++k) {
    c.nodes(a.mass_in[k], "mass_in");
    c.nodes(a.mass_out[k], "mass_out");
    c.nodes(a.acc[k], "acc");
    if (a.mass_in[k] == a.mass_out[k]) throw BackendError("adi2d transport: mass_out must not be mass_in");
  }
  impl_.transport(a);
}

void Adi2DKernels::rate(const Adi2DRateArgs& a) {
  Check c(be_, a.g, a.prec, "adi2d rate");
  c.params(a.prm);
  c.state(a.st);
  c.nodes(a.ux, "ux");
  c.nodes(a.uy, "uy");
  c.nodes(a.vol, "vol");
  c.wells(a.wells);
  c.nodes(a.rate, "rate");
  impl_.rate(a);
}

}  // namespace poreflow
