#pragma once
// What an impes3d run is made of, in the shape an Eclipse deck has it (issue: decks fill the same
// structures): per-cell grid and rock arrays, PVT and saturation tables, wells with their
// completions and a schedule of control changes, report times. METRIC units throughout: bar, m,
// day, mD, cP, sm3, kg/m3. Cells are numbered i + nx (j + ny k), 0-based, k = 0 the top layer.
#include <cstddef>
#include <limits>
#include <string>
#include <vector>

#include "core/kernels/box3.hpp"
#include "core/kernels/impes3d.hpp"
#include "core/kernels/sor3d.hpp"
#include "core/linalg/amg_across.hpp"
#include "core/linalg/amg_setup.hpp"
#include "core/linalg/chebyshev.hpp"

namespace poreflow {

struct ImpesGrid {
  int nx = 0, ny = 0, nz = 0;
  // per cell (nx ny nz values): sizes, depth of the top face, rock
  std::vector<double> dx, dy, dz, tops, permx, permy, permz, poro, ntg;
  std::vector<int> actnum;               // 0: inactive (empty: all active)
  std::vector<double> multx, multy, multz;  // transmissibility multipliers of the +i, +j, +k faces (empty: 1)
  std::size_t cells() const { return static_cast<std::size_t>(nx) * ny * nz; }  // within kMaxArrayValues once read
  std::size_t index(long i, long j, long k) const { return static_cast<std::size_t>(i + nx * (j + static_cast<long>(ny) * k)); }
};

struct SwofTable {
  std::vector<double> sw, krw, krow, pcow;
};
struct PvdoTable {
  std::vector<double> p, bo, muo;
};
struct PvtwData {
  double pref = 1.01325, bw = 1.0, cw = 4e-5, muw = 0.5, cvw = 0;
};
struct RockData {
  double pref = 1.01325, cr = 0;
};

struct ImpesFluid {
  double rho_w = 1000, rho_o = 850;  // surface densities, kg/m3
  bool gravity = true;
  PvtwData pvtw;
  PvdoTable pvdo;
  SwofTable swof;
  RockData rock;
};

// A completion in cell (i, j, k): its well index, or 0 to compute it (Peaceman, vertical well).
struct ImpesCompletion {
  long i = 0, j = 0, k = 0;
  double wi = 0;
  double diameter = 0.2, skin = 0;
};

enum class WellKind { Producer, Injector };
// The control: a producer's oil, water or liquid rate, an injector's water rate, or the BHP.
enum class WellControl { Orat, Wrat, Lrat, Rate, Bhp };
const char* to_string(WellControl c);
WellControl parse_well_control(std::string_view s);

struct WellSetting {
  bool open = true;
  WellControl control = WellControl::Bhp;
  double rate = 0;  // target (rate control) or limit (BHP control; 0: none), sm3/day
  double bhp = 0;   // target (BHP control) or limit (rate control), bar
};

struct ImpesWell {
  std::string name;
  WellKind kind = WellKind::Producer;
  double ref_depth = std::numeric_limits<double>::quiet_NaN();  // of the BHP; NaN: the top completion's centre
  std::vector<ImpesCompletion> completions;
  WellSetting initial;
};

// From `time` on (days), well `well` runs with `setting`.
struct ScheduleEvent {
  double time = 0;
  std::string well;
  WellSetting setting;
};

struct ImpesInitial {
  // explicit per-cell values, or equilibrium: pressure at a datum depth, hydrostatic phases and
  // S_w from the capillary pressure above an oil-water contact (Eclipse EQUIL)
  std::vector<double> pressure, sw;
  double datum_depth = 0, datum_pressure = 100;
  double owc_depth = std::numeric_limits<double>::quiet_NaN();  // NaN: no water zone (S_w = S_wc)
  double pc_owc = 0;
  double sw_uniform = std::numeric_limits<double>::quiet_NaN();  // equilibrium pressures with this S_w everywhere
  bool hydrostatic = true;  // false: the datum pressure in every cell (no contact), out of equilibrium
  // with a contact: S_w of a cell as the mean over 2 sublevels equal slices of its thickness (EQUIL
  // item 9 = -sublevels, OPM Flow's default 5); 0: the value at the cell's centre
  int sublevels = 0;
};

struct ImpesInput {
  ImpesGrid grid;
  ImpesFluid fluid;
  std::vector<ImpesWell> wells;
  std::vector<ScheduleEvent> schedule;  // sorted by time
  std::vector<double> report_times;     // increasing, > 0; the last is the end of the run
  ImpesInitial initial;
  std::string source;                   // for messages
};

// How the run is computed (case keys [time], [pressure], [kernels]).
// pressure.solver: paper 003's red-black SOR, or a preconditioned Krylov solver of the same system
// (core/models/impes3d_krylov.hpp)
enum class PressureSolver { Sor, Cg, Bicgstab };
enum class PressurePreconditioner { Amg, Ilu0, Jacobi };
const char* to_string(PressureSolver s);
const char* to_string(PressurePreconditioner p);

// The reservoir model's scheme (case key `scheme`): paper 003's IMPES, or fully implicit
// (core/models/fim_step.hpp; docs/fim.md).
enum class ReservoirSchemeKind { Impes, Fim };
// time.control: the next step sized from the last one's largest S_w and pressure changes (and
// IMPES's CFL limit); from its Newton iterations (OPM Flow's newtoniterationcount); or from those
// and its relative change (OPM Flow's default, pid+newtoniteration). The last two: fim only.
enum class StepControl { Changes, Newton, PidNewton };
inline bool newton_rule(StepControl c) { return c != StepControl::Changes; }
const char* to_string(ReservoirSchemeKind s);

// The fully implicit scheme's Newton iteration and linear solve (case keys [newton], [linear]).
struct FimNumerics {
  int max_iterations = 20;   // Newton iterations of a step before it is cut (OPM Flow 2022.10's --newton-max-iterations)
  // OPM Flow's update stabilization (core/models/newton_relaxation.hpp): the updates of a step
  // whose CNV oscillates scaled down by a tenth each time, to at least min_relaxation
  bool stabilize = true;
  double min_relaxation = 0.5;
  double cnv = 1e-2;         // converged: every cell's B_a |R_a| / V_p0 at most this ...
  // ... or, as OPM Flow: at most cnv_relaxed in every cell where the cells above cnv hold at most
  // relaxed_pv_fraction of the pore volume (OPM Flow 2022.10's --tolerance-cnv-relaxed = 1,
  // --relaxed-max-pv-fraction = 0.03); relaxed_pv_fraction 0: strict everywhere
  double cnv_relaxed = 1.0;
  double relaxed_pv_fraction = 0.03;
  double mb = 1e-7;          // ... and each phase's |sum B_a R_a| / sum V_p0 at most this ...
  double wells = 1e-5;       // ... and each rate well's |R_w| at most this x max(target, 1 sm3/day)
  double dp_max = 100;       // the largest change of a cell's pressure in one Newton iteration, bar
  double ds_max = 0.2;       // ... and of its S_w
  double dbhp_max = 100;     // ... and of a rate-controlled well's BHP, bar
  int max_switches = 4;      // control switches of a well in one step before it stays at its BHP limit
  bool fgmres = false;       // linear.solver: bicgstab (default) or fgmres
  double linear_tolerance = 1e-2;  // relative residual of each linear solve
  long linear_max_iterations = 200;
  long coarse_size = 150;    // rows of the pressure AMG's coarsest level (inverted on the host at each refresh)
  // Newton iterations between refreshes of the pressure AMG at most (1: every one); it is refreshed
  // sooner when a solve takes more than twice the iterations of the first after the last refresh
  int amg_reuse = 1000;
  int amg_degree = 1;        // Chebyshev steps of the pressure AMG's smoother before and after the coarse correction
  bool amg_float = false;    // linear.amg_float: the pressure AMG in float under the double solve (CprOptions::float_pressure)
  bool amg_w_cycle = false;  // linear.amg_cycle: v, or w (two coarse corrections below the finest level)
  // linear.amg_strength, linear.amg_fallback: the pressure AMG's strength threshold, and a single
  // level smoothed alone where it cannot coarsen (else the run stops naming both; AmgOptions)
  double amg_strength = linalg::AmgOptions{}.strength;
  bool amg_fallback = false;
  long amg_tail_rows = 0;    // linear.amg_tail_rows: the pressure AMG's levels of at most so many rows in one launch (AmgConfig::tail_rows)
  // linear.amg_across: the pressure AMG's coarse level across processes, and linear.across_rows,
  // its rows over all processes (core/linalg/amg_global.hpp)
  linalg::AmgAcross amg_across = linalg::AmgAcross::After;
  long across_rows = 256;
  // linear.batch: the BiCGSTAB iterations enqueued between two reads of a solve's convergence after
  // its first batch (the smaller of the last two converged solves' counts plus one), doubling at
  // each read up to 1024. Small: an iteration past the stop still runs its launches, empty
  // (roughly 40 us replayed on an H200). 0: the backend's choice (KrylovOptions::adapt_batches):
  // 2 where iterations are replayed as CUDA graphs and on the CPU; on a device without a recording
  // (OpenCL) a read after every iteration once 3/4 of the guess has run.
  long linear_batch = 0;
  bool cuda_graphs = true;    // linear.cuda_graphs: BiCGSTAB's iterations replayed as CUDA graphs (KrylovOptions::record)
  int target_iterations = 8;  // a step that needed more Newton iterations makes the next no larger
};

struct ImpesNumerics {
  ReservoirSchemeKind scheme = ReservoirSchemeKind::Impes;
  FimNumerics fim;
  double dt_init = 0.1, dt_min = 1e-6, dt_max = 30;  // days
  long max_steps = 10'000'000;  // steps before the run's end at most
  double cfl = 0.9;       // of the saturation update's CFL limit (Coats)
  double ds_max = 0.1;    // largest S_w change per step ...
  double dp_max = 50;     // ... and pressure change (bar); the next step is sized from the last one's
  double growth = 2;      // largest growth of dt from one step to the next
  double growth_after_cut = 0;  // > 0: the largest growth of the step after one that had to be cut
  StepControl control = StepControl::Changes;  // time.control
  double pid_tolerance = 0.1;  // time.pid_tolerance: PidNewton's tolerance of the relative change (OPM Flow's time-step-control-tolerance)
  int max_cuts = 8;       // cuts of a step before the run stops
  double cut = 0.5;       // a failed step is retried at cut x its size
  double sw_tolerance = 1e-6;  // S_w outside [-tol, 1 + tol] makes a step retry
  PressureSolver solver = PressureSolver::Sor;
  PressurePreconditioner preconditioner = PressurePreconditioner::Amg;  // cg and bicgstab only
  // pressure.amg_across: AMG's coarse level across processes (none: per process; docs/mpi.md)
  linalg::AmgAcross amg_across = linalg::AmgAcross::None;
  bool cuda_graphs = true;  // pressure.cuda_graphs: the Krylov iterations replayed as CUDA graphs
  bool amg_float = false;   // pressure.amg_float: AMG in float under a double solve (linalg::FloatPreconditioner)
  double amg_strength = linalg::AmgOptions{}.strength;  // pressure.amg_strength (AmgOptions::strength)
  bool amg_fallback = false;  // pressure.amg_fallback: one level smoothed alone where AMG cannot coarsen
  long amg_tail_rows = 0;   // pressure.amg_tail_rows: AMG's levels of at most so many rows in one launch (AmgConfig::tail_rows)
  // pressure.amg_reuse: AMG's coarse levels refreshed every so many pressure solves, or sooner when
  // a solve slows down; the finest level follows every solve (ImpesKrylovPressure)
  long amg_reuse = 1000;
  linalg::Chebyshev amg_chebyshev = linalg::Chebyshev::First;  // pressure.amg_chebyshev: the AMG smoother's polynomial
  // pressure: red-black SOR
  double omega = 0;       // 0: chosen from the grid (docs/impes3d.md)
  // max volume error of a cell as a fraction of its pore volume; 0: 1e-7 in double, 1e-5 in float
  // (float's rounding leaves residuals of about 1e-6: the rows' terms are ~10 times the increment)
  double tolerance = 0;
  double tolerance_for(Precision p) const { return tolerance > 0 ? tolerance : (p == Precision::Float ? 1e-5 : 1e-7); }
  long max_iterations = 5000;
  int check_every = 2;
  bool extrapolate = true;  // start from the last increment scaled by dt (else from 0)
  bool design_auto = true;  // zline where the vertical coupling dominates, else simple
  SorDesign design = SorDesign::Simple;
  BoxShape sor_shape = BoxShape{BoxLaunch::Blocks3D, 32, 4, 2};
  bool sor_shape_given = false;  // else the design's default (simple march:32x8, tiled march:32x8, zline march:32x4)
  int zline_lanes = 0;    // zline on cuda/opencl: 1 a thread per column, 32 a warp, 0 automatic
  BoxShape cell_shape = BoxShape{BoxLaunch::Blocks3D, 32, 4, 2};
  TableSpace tables = TableSpace::Auto;
};

// Throws ConfigError naming the first thing that is wrong (array sizes, negative permeability, a
// table that is not monotonic or does not span [S_wc, 1 - S_or], a well outside the grid or
// completed in an inactive cell, two wells in one cell, a schedule event in the past or for an
// unknown well, ...).
void validate(const ImpesInput& in);

// "2000000000 x 10 x 3 grid (60000000000 cells)", the count exact in 64 bits or rounded past them
std::string impes_grid_text(const ImpesGrid& g);

}  // namespace poreflow
