#pragma once
// impes3d: the 3D two-phase (oil-water) dead-oil reservoir model. The model composes its parts:
// the device arrays of the reservoir (ReservoirArrays: grid, tables, wells, the state), the scheme
// that steps them (case key `scheme`: ImpesStep, paper 003's IMPES, the pressure equation solved
// by red-black SOR or a Krylov solver on the device, then the explicit mass update; or FimStep,
// fully implicit with implicit wells, a Newton iteration with CPR-preconditioned linear solves),
// the time-step controller (adaptive steps from the CFL limit, the largest S_w and pressure change
// and the Newton iterations, retried at half the size on NaN, S_w out of bounds or an unconverged
// solve) and the wells' schedule. Its outputs are observers (core/io/outputs:
// CSV, VTU snapshots, plots, a deck's summary files). See docs/impes3d.md.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/kernels/field.hpp"
#include "core/models/impes3d_input.hpp"
#include "core/models/impes3d_part.hpp"
#include "core/models/impes3d_setup.hpp"
#include "core/models/impes3d_step.hpp"
#include "core/models/reservoir_scheme.hpp"
#include "core/models/memory.hpp"
#include "core/models/model.hpp"

namespace poreflow {

struct Impes3DConfig {
  ImpesInput input;
  ImpesNumerics numerics;
  int map_layer = 0;  // the layer of the S_w map (0-based)
};

// ConfigError naming the need and the device when a grid of these dimensions does not fit
// processes: a run cut between them (docs/mpi.md) needs a share on each device
void check_impes3d_memory(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec, const Backend& be,
                          ReservoirSchemeKind scheme = ReservoirSchemeKind::Impes, int processes = 1,
                          PressureSolver solver = PressureSolver::Sor, PressurePreconditioner pc = PressurePreconditioner::Jacobi);

// Device memory an impes3d run of this grid needs in precision prec (bytes), and the largest
// single buffer.
struct ImpesMemory {
  std::size_t total = 0, largest = 0;
};
// solver, pc: IMPES's pressure solver (a Krylov solver adds its operator, vectors and preconditioner)
ImpesMemory impes3d_memory(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec,
                           ReservoirSchemeKind scheme = ReservoirSchemeKind::Impes, PressureSolver solver = PressureSolver::Sor,
                           PressurePreconditioner pc = PressurePreconditioner::Jacobi);
// the same with the host's share on serial and omp, named for messages and --dry-run; over
// `processes` processes one process's share: the whole over the processes plus 10 % (the cuts'
// imbalance and the halo), without the whole grid's host arrays every process also keeps
MemoryNeed impes3d_need(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec, bool host,
                        ReservoirSchemeKind scheme = ReservoirSchemeKind::Impes, int processes = 1,
                        PressureSolver solver = PressureSolver::Sor, PressurePreconditioner pc = PressurePreconditioner::Jacobi);

// The last step's and the cumulative results of one well (surface volumes; production positive).
struct ImpesWellResult {
  double oil_rate = 0, water_rate = 0, water_injection = 0, bhp = 0;
  int control = IMP_CTRL_SHUT;
  double oil_total = 0, water_total = 0, water_injected = 0;
};

// What the reservoir model's observers read (summary files, plots, snapshots), whatever its
// precision.
class Reservoir : public Model {
 public:
  virtual const Impes3DConfig& config() const = 0;
  virtual const ImpesGeometry& geometry() const = 0;
  virtual const std::vector<ImpesWellResult>& wells() const = 0;
  // the wells' settings during the last step (the schedule may have changed them since)
  virtual const std::vector<WellSetting>& step_settings() const = 0;
  virtual double water_in_place() const = 0;  // sm3
  virtual double oil_in_place() const = 0;
  virtual double water_in_place_initial() const = 0;  // at time 0 (also in a restarted run)
  virtual double oil_in_place_initial() const = 0;
  virtual double mean_pressure() const = 0;   // FPR, pore-volume weighted (one value read back)
  virtual std::vector<double> pressure() const = 0;    // per cell (nx ny nz), 0 for inactive cells
  virtual std::vector<double> saturation() const = 0;
  // S_w of layer config().map_layer (nx ny, i fastest), which the PNG map draws; decomposed: on
  // process 0 as before_output(true, Gather::Maps) gathered it (that layer only), empty elsewhere
  virtual std::vector<double> map_layer_saturation() const = 0;
  // A decomposed run's piece of a snapshot (docs/mpi.md): this process's number of `count`, its
  // cells (the grid's indices, in its box's order) with their pressure and S_w, read from its own
  // device (nothing gathered). One process: count 1 and nothing else.
  struct Piece {
    int index = 0, count = 1;
    std::vector<std::size_t> cells;
    std::vector<double> pressure, saturation;
  };
  virtual Piece piece() const = 0;
};

template <class T>
class Impes3D final : public Reservoir {
 public:
  Impes3D(Backend& be, const Impes3DConfig& cfg, const Communicator& comm = self_communicator());

  std::string name() const override { return "impes3d"; }
  std::string summary() const override;
  const TimeController& clock() const override { return clock_; }
  double end_time() const override { return cfg_.input.report_times.back(); }
  std::vector<double> report_times() const override { return cfg_.input.report_times; }
  void step(double t_stop) override;
  std::string progress() const override;
  const State& state() const override { return state_; }

  GridInfo grid() const override;
  std::vector<NamedField> fields() const override;
  std::vector<std::string> series_columns() const override;
  std::vector<double> series_row() const override;
  const std::vector<LinearSolveRecord>* linear_solves() const override { return scheme_->solves(); }
  std::map<std::string, double> final_stats() const override;
  void before_output(bool fields, Gather gather = Gather::Whole) override;

  const Impes3DConfig& config() const override { return cfg_; }
  const ImpesGeometry& geometry() const override { return geo_; }
  const std::vector<ImpesWellResult>& wells() const override { return wells_; }
  const std::vector<WellSetting>& step_settings() const override { return step_settings_; }
  std::vector<Balance> balance() const override;
  double water_in_place() const override;
  double oil_in_place() const override;
  double water_in_place_initial() const override { return mw0_; }
  double oil_in_place_initial() const override { return mo0_; }
  double mean_pressure() const override;
  std::vector<double> pressure() const override;
  std::vector<double> saturation() const override;
  std::vector<double> map_layer_saturation() const override;
  Piece piece() const override;

  long retries() const { return clock_.cuts(); }
  // the pressure solver's iterations (IMPES), or the linear solver's (fully implicit)
  long sor_iterations() const { return scheme_->linear_total(); }
  double last_dt() const { return clock_.last_dt(); }
  double omega() const;  // SOR's last omega (0 for another solver or scheme)
  ReservoirSchemeKind scheme() const { return cfg_.numerics.scheme; }
  std::string scheme_name() const override { return scheme() == ReservoirSchemeKind::Fim ? "fully implicit" : "IMPES"; }
  const ReservoirScheme<T>& scheme_part() const { return *scheme_; }  // for tests and benches
  ReservoirScheme<T>& scheme_part() { return *scheme_; }
  SorDesign design() const { return cfg_.numerics.design; }

  // A check of every attempted step after the scheme's own (S_w in [0, 1], no negative mass):
  // given the time at the start of the step and dt, it returns why the attempt fails (it is then
  // retried at half the size), or an empty string.
  using StepCheck = std::function<std::string(double t, double dt)>;
  void add_step_check(StepCheck c) { checks_.push_back(std::move(c)); }

 private:
  TimeController::Outcome attempt(double dt);
  void accept_wells(double dt);
  bool stop_wrong_way_wells();
  void apply_schedule();
  void upload_well(std::size_t w);  // its setting's parameters (shut while stopped)
  double sum(const Field<T>& f) const;
  double injection_dt() const;  // days
  double first_dt() const;
  std::vector<double> cells_of(const Field<T>& f) const;
  std::vector<double> box_values(const Field<T>& f) const;  // decomposed: this box's cells, in its order
  std::string worst_cell() const;
  void bind_state();
  // this process's grid and completions: its part's in a decomposed run, else the whole's
  const ImpesGeometry& local_geo() const { return part_ ? part_->geo : geo_; }
  const ImpesWellArrays& local_wa() const { return part_ ? part_->wa : wa_; }
  // decomposed: the sums over every process that the outputs read (collective; after each step)
  void refresh_totals(bool pressure);
  double local_pv_pressure() const;

  Backend& be_;
  const Communicator& comm_;
  Impes3DConfig cfg_;
  ImpesGeometry geo_;
  ImpesWellArrays wa_;
  std::vector<double> prm_host_;
  std::unique_ptr<ImpesPart> part_;        // this process's part of a decomposed run (null: one process)
  std::unique_ptr<HaloExchange> halo_;
  std::unique_ptr<ImpesState> initial_;  // this process's initial state on the host, until the device has it
  // the wells: their settings as the schedule left them and during the last step, their results
  std::vector<WellSetting> settings_, step_settings_;
  std::vector<char> stopped_;  // wells stopped for the step being taken (they flowed the wrong way)
  std::size_t next_event_ = 0;
  std::vector<ImpesWellResult> wells_;
  TimeController clock_;
  ReservoirArrays<T> arrays_;
  std::unique_ptr<ReservoirScheme<T>> scheme_;
  std::vector<StepCheck> checks_;
  double max_cfl_ = 0;
  PidStepControl pid_;  // time.control = "pid+newton": the last steps' relative changes
  // decomposed: the totals and the gathered fields process 0's outputs read (the slot in every run)
  struct Totals {
    double mw = 0, mo = 0, fpr = 0;
    std::vector<double> p, sw;
    std::vector<double> sw_layer;  // the map's layer
    mutable Field<T> slot;  // the device's sum of pv0 p (mean_pressure's too)
  } totals_;
  double mw0_ = 0, mo0_ = 0;
  State state_;
};

}  // namespace poreflow
