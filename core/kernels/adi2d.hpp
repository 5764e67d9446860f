#pragma once
// The adi2d family (papers 002/004): the per-node stencils of core/physics/adi2d.h on an nx x ny
// grid of nodes with spacing h, node (i, j) at j * nx + i. Each node owns a control volume of area
// h^2 (halved on an edge, quartered in a corner); `prm` holds the ADI_NPARAMS physical parameters.
// Component masses are per node (the mass in its control volume), so their plain sums are the
// masses in place. Every node array holds nx * ny values; props holds kAdi2DProps per node.
#include <cstddef>

#include "core/kernels/backend.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

struct Adi2DGeom {
  std::size_t nx = 0, ny = 0;  // >= 2 each
  double h = 1;

  // every kernel's leading parameters: nx, ny (core/kernels/kernel_args.hpp)
  auto kernel_args() const { return std::tuple(static_cast<long>(nx), static_cast<long>(ny)); }
};
constexpr int kAdi2DProps = 7;  // ADI_NPROPS of core/physics/adi2d.h (checked where both are seen)

// flash: phase equilibrium and saturations of every node from its masses and pressure; props
// receives each node's mobilities and capillary terms for the face kernels.
struct Adi2DFlashArgs {
  Precision prec = Precision::Double;
  Adi2DGeom g;
  const Buffer* prm = nullptr;
  const Buffer* mass[4] = {};
  const Buffer* p = nullptr;
  Buffer *sw = nullptr, *so = nullptr, *sg = nullptr, *co3 = nullptr, *cg3 = nullptr, *vol = nullptr;
  Buffer* props = nullptr;

  // adi2d_flash(nx, ny, h, prm, m1, m2, m3, m4, p, sw, so, sg, co3, cg3, vol, props)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple_cat(g.kernel_args(), std::tuple(Real{g.h}, In<Real>{prm}, In<Real>{mass[0]}, In<Real>{mass[1]},
                                                      In<Real>{mass[2]}, In<Real>{mass[3]}, In<Real>{p}, Out<Real>{sw},
                                                      Out<Real>{so}, Out<Real>{sg}, Out<Real>{co3}, Out<Real>{cg3},
                                                      Out<Real>{vol}, Out<Real>{props}));
  }
};

// Wells: per node, `inj` is the water mass rate injected, `prod` the productivity J of a producer
// whose phase mass rates are J lambda rho (p_bh - p) when p > p_bh.
struct Adi2DWells {
  const Buffer *inj = nullptr, *prod = nullptr;
  double p_bh = 0;
};

// The state read by the coefficient, transport and rate kernels; props as the flash wrote them.
struct Adi2DPhaseState {
  const Buffer *p = nullptr, *sw = nullptr, *so = nullptr, *sg = nullptr, *co3 = nullptr, *cg3 = nullptr;
  const Buffer* props = nullptr;

  // p, sw, so, sg, co3, cg3, props
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{p}, In<Real>{sw}, In<Real>{so}, In<Real>{sg}, In<Real>{co3}, In<Real>{cg3}, In<Real>{props});
  }
};

// coefficients: the pressure equation of one time step for the increment dp = p^{n+1} - p^n, a
// 5-point operator per node, d0 dp_i + sum_f a_f (dp_i - dp_f) = rhs (the volume balance
// linearised in p; rhs is the residual of the current pressure, see docs/adi2d.md).
struct Adi2DCoeffArgs {
  Precision prec = Precision::Double;
  Adi2DGeom g;
  const Buffer* prm = nullptr;
  double dt = 0;
  Adi2DPhaseState st;
  const Buffer* vol = nullptr;
  const Buffer* mass[4] = {};
  Adi2DWells wells;
  Buffer *aw = nullptr, *ae = nullptr, *as = nullptr, *an = nullptr, *d0 = nullptr, *rhs = nullptr;

  // adi2d_coefficients(nx, ny, h, dt, prm, state..., vol, inj, prod, p_bh, aw, ae, as, an, d0, rhs)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple_cat(g.kernel_args(), std::tuple(Real{g.h}, Real{dt}, In<Real>{prm}), st.kernel_args(),
                          std::tuple(In<Real>{vol}, In<Real>{wells.inj}, In<Real>{wells.prod}, Real{wells.p_bh}, Out<Real>{aw},
                                     Out<Real>{ae}, Out<Real>{as}, Out<Real>{an}, Out<Real>{d0}, Out<Real>{rhs}));
  }
};

// sweep: the tridiagonal rows of one Peaceman-Rachford half step with parameter r in correction
// form: the x sweep (rows, contiguous) solves (H + r) e = rhs - A p, the y sweep (columns,
// interleaved) (V + r) e = rhs - A p, and p' = p + e; H, V are the x and y parts of A, d0 split
// evenly. d receives the residual rhs - A p. Under an iteration control the kernel does nothing
// once the control says stop, and a check folds max|rhs - A p| (ADI's residual) into its slot and,
// given two candidate buffers, copies p into the one pf_cv_candidate names (the best iterate,
// core/base/converge.h).
struct Adi2DSweepArgs {
  Precision prec = Precision::Double;
  Adi2DGeom g;
  bool x_sweep = true;
  double r = 0;
  const Buffer *aw = nullptr, *ae = nullptr, *as = nullptr, *an = nullptr, *d0 = nullptr, *rhs = nullptr;
  const Buffer* p = nullptr;
  Buffer *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
  IterationControl ctl;
  Buffer* candidates[2] = {nullptr, nullptr};

  // adi2d_sweep(nx, ny, x_sweep, r, aw, ae, as, an, d0, rhs, q, a, b, c, d, ctrl, check_slot,
  // clear_slot); ctrl may be null
  auto kernel_args() const {
    using namespace karg;
    return std::tuple_cat(g.kernel_args(),
                          std::tuple(x_sweep ? 1 : 0, Real{r}, In<Real>{aw}, In<Real>{ae}, In<Real>{as}, In<Real>{an},
                                     In<Real>{d0}, In<Real>{rhs}, In<Real>{p}, Out<Real>{a}, Out<Real>{b}, Out<Real>{c},
                                     Out<Real>{d}, OptOut<pf_u64>{ctl.ctrl}, ctl.check_slot, ctl.clear_slot));
  }
  // adi2d_sweep_check(the same..., cand0, cand1); the candidates may be null
  auto check_args() const {
    using namespace karg;
    return std::tuple_cat(kernel_args(), std::tuple(OptOut<Real>{candidates[0]}, OptOut<Real>{candidates[1]}));
  }
};

// total_velocity: the total volumetric flux through the east face (ux) and the north face (uy)
// of every node, by the phase potentials of the current pressure (0 on the last column's and
// row's outer faces).
struct Adi2DVelocityArgs {
  Precision prec = Precision::Double;
  Adi2DGeom g;
  const Buffer* prm = nullptr;
  Adi2DPhaseState st;
  Buffer *ux = nullptr, *uy = nullptr;

  // adi2d_total_velocity(nx, ny, prm, state..., ux, uy)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple_cat(g.kernel_args(), std::tuple(In<Real>{prm}), st.kernel_args(), std::tuple(Out<Real>{ux}, Out<Real>{uy}));
  }
};

// transport: one explicit upwind step of every component mass (and the optional diffusion) at
// the fixed total face fluxes ux, uy, shared among the phases by the current state (fractional
// flow plus capillary counter-flow); `acc` accumulates each node's well masses. mass_out must not
// be mass_in.
struct Adi2DTransportArgs {
  Precision prec = Precision::Double;
  Adi2DGeom g;
  const Buffer* prm = nullptr;
  double dt = 0;
  Adi2DPhaseState st;
  const Buffer *ux = nullptr, *uy = nullptr;
  Adi2DWells wells;
  const Buffer* mass_in[4] = {};
  Buffer* mass_out[4] = {};
  Buffer* acc[4] = {};

  // adi2d_transport(nx, ny, dt, prm, state..., ux, uy, inj, prod, p_bh, m1..m4, o1..o4, a1..a4)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple_cat(g.kernel_args(), std::tuple(Real{dt}, In<Real>{prm}), st.kernel_args(),
                          std::tuple(In<Real>{ux}, In<Real>{uy}, In<Real>{wells.inj}, In<Real>{wells.prod}, Real{wells.p_bh}),
                          std::tuple(In<Real>{mass_in[0]}, In<Real>{mass_in[1]}, In<Real>{mass_in[2]}, In<Real>{mass_in[3]}),
                          std::tuple(Out<Real>{mass_out[0]}, Out<Real>{mass_out[1]}, Out<Real>{mass_out[2]}, Out<Real>{mass_out[3]}),
                          std::tuple(Out<Real>{acc[0]}, Out<Real>{acc[1]}, Out<Real>{acc[2]}, Out<Real>{acc[3]}));
  }
};

// rate: per node, the largest fraction of a phase's volume that leaves per unit time (outflow,
// production, diffusion): the explicit step keeps every mass positive for dt <= cfl / max(rate).
struct Adi2DRateArgs {
  Precision prec = Precision::Double;
  Adi2DGeom g;
  const Buffer* prm = nullptr;
  Adi2DPhaseState st;
  const Buffer *ux = nullptr, *uy = nullptr;
  const Buffer* vol = nullptr;
  Adi2DWells wells;
  Buffer* rate = nullptr;

  // adi2d_rate(nx, ny, h, prm, state..., ux, uy, vol, prod, p_bh, rate)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple_cat(g.kernel_args(), std::tuple(Real{g.h}, In<Real>{prm}), st.kernel_args(),
                          std::tuple(In<Real>{ux}, In<Real>{uy}, In<Real>{vol}, In<Real>{wells.prod}, Real{wells.p_bh},
                                     Out<Real>{rate}));
  }
};

class Adi2DImpl {
 public:
  virtual ~Adi2DImpl() = default;
  virtual void flash(const Adi2DFlashArgs& a) = 0;
  virtual void coefficients(const Adi2DCoeffArgs& a) = 0;
  virtual void sweep(const Adi2DSweepArgs& a) = 0;
  virtual void total_velocity(const Adi2DVelocityArgs& a) = 0;
  virtual void transport(const Adi2DTransportArgs& a) = 0;
  virtual void rate(const Adi2DRateArgs& a) = 0;
};

class Adi2DKernels {
 public:
  Adi2DKernels(Backend& be, Adi2DImpl& impl) : be_(be), impl_(impl) {}
  void flash(const Adi2DFlashArgs& a);
  void coefficients(const Adi2DCoeffArgs& a);
  void sweep(const Adi2DSweepArgs& a);
  void total_velocity(const Adi2DVelocityArgs& a);
  void transport(const Adi2DTransportArgs& a);
  void rate(const Adi2DRateArgs& a);

 private:
  Backend& be_;
  Adi2DImpl& impl_;
};

}  // namespace poreflow
