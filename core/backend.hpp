#pragma once
// The device-neutral interface. A Backend owns device memory (Buffers) and implements every
// kernel family; models and solvers are written once as sequences of these calls.
//
// Adding a kernel: declare its argument struct and virtual here, implement it in
// core/reference (serial), backends/omp, kernels_cu + backends/cuda, kernels_cl + backends/opencl,
// and add it to tests/test_kernels.cpp, which checks every backend against the serial double run.
//
// Scalars in argument structs are double; a backend converts them to the field precision.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/types.hpp"

namespace poreflow {

// Device memory owned by a backend. Host backends keep it in host memory.
class Buffer {
 public:
  explicit Buffer(std::size_t bytes) : bytes_(bytes) {}
  virtual ~Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  std::size_t bytes() const { return bytes_; }

 private:
  std::size_t bytes_;
};

// ---- kernel arguments -----------------------------------------------------------------------

struct ReduceArgs {
  Precision prec = Precision::Double;
  ReduceOp op = ReduceOp::Sum;
  ReduceConfig cfg;
  const Buffer* a = nullptr;
  const Buffer* b = nullptr;  // second input of MaxAbsDiff
  std::size_t n = 0;
};

// Fused Jacobi iteration of the 1D pressure equation (paper 000, eq. 9) with its convergence
// test. Points 0 and n-1 hold the Dirichlet values p_left and p_right.
// Iteration i reads p[i % 2] and writes p[(i + 1) % 2]; it is a check iteration when
// (i + 1) % check_every == 0. The control block (core/kernels/jacobi_ctrl.h) records convergence
// on the device; launches after convergence return at once.
struct Jacobi1DArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  const Buffer* mface = nullptr;  // n - 1 face mobilities M_{i+1/2}
  Buffer* p[2] = {nullptr, nullptr};
  double p_left = 0, p_right = 0;
  JacobiMetric metric = JacobiMetric::Residual;
  double threshold = 0;  // absolute threshold on max(metric)
  int check_every = 1;
  ReduceConfig reduce;
  Buffer* ctrl = nullptr;  // PF_JCTRL_WORDS 64-bit words
};

// State of a Jacobi run read back from the control block.
struct JacobiStatus {
  bool converged = false;
  long iterations = 0;       // iterations done
  double last_metric = -1;   // max(metric) of the last check, -1 before the first
};

// Buckley-Leverett point-wise kernels (bl1d). Parameters as in core/physics/bl1d.h.
struct BLParams {
  double k = 0.001, mu_w = 0.09, mu_o = 0.3;
};

struct BLFaceMobilityArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;             // points
  const Buffer* s = nullptr;     // n saturations
  Buffer* mface = nullptr;       // n - 1 faces
  BLParams phys;
};

struct BLFaceVelocityArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  const Buffer* p = nullptr;      // n pressures
  const Buffer* mface = nullptr;  // n - 1
  Buffer* u = nullptr;            // n - 1 face velocities
  double inv_h = 1;
};

// The 1D pressure equation as one tridiagonal system (for bl1d's `tridiag` pressure solver).
struct BLPressureSystemArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  const Buffer* mface = nullptr;  // n - 1
  double p_left = 0, p_right = 0;
  Buffer *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
};

// s_new[0] = s_inj; interior points by the upwind update; s_new[n-1] = s_new[n-2] (dS/dx = 0).
struct BLSaturationArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  const Buffer* s_old = nullptr;
  const Buffer* u = nullptr;  // n - 1 face velocities
  Buffer* s_new = nullptr;
  double c = 0;               // dt / (porosity h)
  double s_inj = 1;
  BLParams phys;
};

// Batched tridiagonal solve: `batch` systems a x[i-1] + b x[i] + c x[i+1] = d of n unknowns in
// the given layout; a of the first and c of the last unknown of each system are ignored.
// x must not alias the inputs; the inputs are not modified.
struct TridiagArgs {
  Precision prec = Precision::Double;
  TridiagAlgo algo = TridiagAlgo::Auto;
  TridiagLayout layout = TridiagLayout::Contiguous;
  std::size_t n = 0, batch = 0;
  const Buffer *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
  Buffer* x = nullptr;
};

// adi2d (papers 002/004): an nx x ny grid of nodes with spacing h, node (i, j) at j * nx + i; each
// node owns a control volume of area h^2 (halved on an edge, quartered in a corner). `prm` holds
// the ADI_NPARAMS physical parameters of core/physics/adi2d.h. Component masses are per node
// (mass in its control volume), so their plain sums are the masses in place.
struct Adi2DGeom {
  std::size_t nx = 0, ny = 0;
  double h = 1;
};
constexpr int kAdi2DProps = 7;  // ADI_NPROPS of core/physics/adi2d.h (checked there by the host backend)

// phase equilibrium and saturations of every node from its masses and pressure
struct Adi2DFlashArgs {
  Precision prec = Precision::Double;
  Adi2DGeom g;
  const Buffer* prm = nullptr;
  const Buffer* mass[4] = {};
  const Buffer* p = nullptr;
  Buffer *sw = nullptr, *so = nullptr, *sg = nullptr, *co3 = nullptr, *cg3 = nullptr, *vol = nullptr;
  Buffer* props = nullptr;  // kAdi2DProps * nx * ny: each node's mobilities and capillary terms
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
};

// The pressure equation of one time step for the increment dp = p^{n+1} - p^n: a 5-point operator
// per node, d0 dp_i + sum_f a_f (dp_i - dp_f) = rhs (volume balance linearised in p; rhs is the
// residual of the current pressure, see docs/adi2d.md).
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
};

// The tridiagonal systems of one Peaceman-Rachford half step with parameter r in correction form:
// the x sweep (rows, contiguous) solves (H + r) e = rhs - A p, the y sweep (columns, interleaved)
// (V + r) e = rhs - A p, and p' = p + e; H, V are the x and y parts of A, d0 split evenly.
struct Adi2DSweepArgs {
  Precision prec = Precision::Double;
  Adi2DGeom g;
  bool x_sweep = true;
  double r = 0;
  const Buffer *aw = nullptr, *ae = nullptr, *as = nullptr, *an = nullptr, *d0 = nullptr, *rhs = nullptr;
  const Buffer* p = nullptr;
  Buffer *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;
};

// The total volumetric flux through the east face (ux) and the north face (uy) of every node, by
// the phase potentials of the current pressure (0 on the last column's and row's outer faces).
struct Adi2DVelocityArgs {
  Precision prec = Precision::Double;
  Adi2DGeom g;
  const Buffer* prm = nullptr;
  Adi2DPhaseState st;
  Buffer *ux = nullptr, *uy = nullptr;
};

// One explicit upwind step of every component mass (and the optional diffusion) at the fixed
// total face fluxes ux, uy, shared among the phases by the current state (fractional flow plus
// capillary counter-flow); `acc` accumulates each node's well masses.
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
};

// Per node, the largest fraction of a phase's volume that leaves per unit time (outflow,
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
};

// ---- argument checks every backend makes ------------------------------------------------------

// Throws BackendError naming `what` unless [offset, offset + bytes) lies inside b.
void check_range(const Buffer& b, std::size_t bytes, std::size_t offset, const char* what);
// Throws BackendError naming `what` for a missing buffer, an n * batch that overflows, a buffer
// smaller than n * batch values, or an x that is one of the inputs.
void check_tridiag_args(const TridiagArgs& args, const char* what);

// ---- the backend ----------------------------------------------------------------------------

class Backend {
 public:
  virtual ~Backend() = default;

  virtual std::string name() const = 0;          // "serial", "omp", "cuda", "opencl"
  virtual std::string device_name() const = 0;   // the device it runs on, for logs and tables
  virtual bool supports(Precision p) const { return true; }
  // Reduction variants this backend implements, best first.
  virtual std::vector<ReduceVariant> reduce_variants() const = 0;
  ReduceVariant default_reduce_variant() const { return reduce_variants().front(); }
  // Throws ConfigError naming the supported variants when `cfg` cannot run here.
  void check_reduce_config(const ReduceConfig& cfg) const;

  // memory
  virtual std::unique_ptr<Buffer> alloc(std::size_t bytes) = 0;
  virtual void upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset = 0) = 0;
  virtual void download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset = 0) = 0;
  virtual void copy(const Buffer& src, Buffer& dst, std::size_t bytes) = 0;
  virtual void fill(Buffer& dst, Precision prec, double value, std::size_t n) = 0;
  // y[i] += alpha x[i] for i < n (adi2d adds its pressure increment; the Krylov solvers of the
  // roadmap need it too)
  virtual void axpy(Precision prec, std::size_t n, double alpha, const Buffer& x, Buffer& y) = 0;
  virtual void sync() = 0;  // waits for all enqueued work

  // reduce: enqueue keeps the result on the device; fetch waits and returns the last one.
  virtual void reduce_enqueue(const ReduceArgs& args) = 0;
  virtual double reduce_fetch() = 0;
  double reduce(const ReduceArgs& args) {
    reduce_enqueue(args);
    return reduce_fetch();
  }
  // A vendor library's reduction on the same data (CUB on cuda), for benchmarks and tests;
  // empty name when the backend has none. The result is read with reduce_fetch().
  virtual std::string vendor_reduce_name() const { return ""; }
  virtual void vendor_reduce_enqueue(const ReduceArgs& args);

  // jacobi1d: iterations [first, first + count), stopping on the device once converged.
  virtual void jacobi1d_iterate(const Jacobi1DArgs& args, long first, long count) = 0;
  // clears the control block before a solve
  void jacobi1d_reset(const Jacobi1DArgs& args);
  // waits and reads the control block; `next` is the first iteration not yet enqueued
  JacobiStatus jacobi1d_status(const Jacobi1DArgs& args, long next);

  // tridiag: algorithm Auto resolves by resolve_tridiag_algo()
  virtual void tridiag_solve(const TridiagArgs& args);
  virtual TridiagAlgo resolve_tridiag_algo(const TridiagArgs& args) const { return TridiagAlgo::Thomas; }
  // A vendor library's batched solver on the same data (cuSPARSE on cuda); empty when none.
  virtual std::string vendor_tridiag_name(TridiagLayout layout) const { return ""; }
  virtual void vendor_tridiag_solve(const TridiagArgs& args);

  // adi2d kernels
  virtual void adi2d_flash(const Adi2DFlashArgs& args);
  virtual void adi2d_coefficients(const Adi2DCoeffArgs& args);
  virtual void adi2d_sweep(const Adi2DSweepArgs& args);
  virtual void adi2d_total_velocity(const Adi2DVelocityArgs& args);
  virtual void adi2d_transport(const Adi2DTransportArgs& args);
  virtual void adi2d_rate(const Adi2DRateArgs& args);

  // bl1d point-wise kernels
  virtual void bl1d_face_mobility(const BLFaceMobilityArgs& args) = 0;
  virtual void bl1d_face_velocity(const BLFaceVelocityArgs& args) = 0;
  virtual void bl1d_saturation(const BLSaturationArgs& args) = 0;
  virtual void bl1d_pressure_system(const BLPressureSystemArgs& args);
};

}  // namespace poreflow
