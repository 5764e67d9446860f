#pragma once
// impes3d: paper 003's 3D two-phase (oil-water) black-oil model by IMPES. Each step assembles the
// pressure equation on the device (impes3d family), solves it by red-black SOR with the convergence
// decided on the device (sor3d), updates the masses explicitly, and reads back only a few words of
// statistics and well results. Adaptive steps (CFL, largest S_w and pressure change), retried at
// half the size on NaN, S_w out of bounds or an unconverged solve. See docs/impes3d.md.
#include <memory>
#include <string>
#include <vector>

#include "core/field.hpp"
#include "core/io/vtu.hpp"
#include "core/models/impes3d_input.hpp"
#include "core/models/impes3d_setup.hpp"
#include "core/models/memory.hpp"
#include "core/models/model.hpp"

namespace poreflow {

namespace eclipse {
class Deck;
class SummaryWriter;
}

struct Impes3DConfig {
  ImpesInput input;
  std::shared_ptr<const eclipse::Deck> deck;  // when the input came from an Eclipse deck: its summary files
  ImpesNumerics numerics;
  int map_layer = 0;  // the layer of the S_w map (0-based)
  long report_every = 1;  // a deck's summary files get a row at every N-th report time and the last
};

// Reads a TOML case (core/models/impes3d_case.cpp); validate()d. The grid's memory need in prec
// is checked against the backend before any per-cell array is built.
Impes3DConfig read_impes3d_config(io::CaseFile& cf, Backend& be, Precision prec);

// ConfigError naming the need and the device when a grid of these dimensions does not fit
void check_impes3d_memory(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec, const Backend& be);

// Device memory an impes3d run of this grid needs in precision prec (bytes), and the largest
// single buffer.
struct ImpesMemory {
  std::size_t total = 0, largest = 0;
};
ImpesMemory impes3d_memory(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec);
// the same with the host's share on serial and omp, named for messages and --dry-run
MemoryNeed impes3d_need(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec, bool host);

// The last step's and the cumulative results of one well (surface volumes; production positive).
struct ImpesWellResult {
  double oil_rate = 0, water_rate = 0, water_injection = 0, bhp = 0;
  int control = IMP_CTRL_SHUT;
  double oil_total = 0, water_total = 0, water_injected = 0;
};

template <class T>
class Impes3D final : public Model {
 public:
  Impes3D(Backend& be, const Impes3DConfig& cfg);

  std::string name() const override { return "impes3d"; }
  std::string summary() const override;
  GridInfo grid() const override;
  double time() const override { return t_; }
  double end_time() const override { return cfg_.input.report_times.back(); }
  long steps() const override { return steps_; }
  void step(double t_stop) override;
  std::string progress() const override;

  std::vector<NamedField> fields() const override;
  std::vector<std::string> series_columns() const override;
  std::vector<double> series_row() const override;
  void write_plot(const std::filesystem::path& png) const override;
  std::map<std::string, double> final_stats() const override;
  std::vector<double> report_times() const override { return cfg_.input.report_times; }
  std::string write_snapshot(const std::filesystem::path& dir, const std::string& stem) const override;
  void open_outputs(const std::filesystem::path& dir) override;
  void save_state(ModelState& s) const override;
  void load_state(const ModelState& s) override;

  // for tests and benchmarks
  double water_in_place() const;  // sm3
  double oil_in_place() const;
  double mean_pressure() const;  // FPR, pore-volume weighted (reads the pressure back)
  const std::vector<ImpesWellResult>& wells() const { return wells_; }
  long retries() const { return cuts_total_; }
  long sor_iterations() const { return sor_total_; }
  double last_dt() const { return last_dt_; }
  double omega() const { return omega_; }
  SorDesign design() const { return cfg_.numerics.design; }
  std::vector<double> pressure() const;  // per cell (nx ny nz), 0 for inactive cells
  std::vector<double> saturation() const;
  // a step fails once when it reaches this time (tests of the retry)
  void fail_once_at(double t) { fail_at_ = t; }

 private:
  struct Attempt {
    bool ok = false;
    bool redo = false;  // not ok: a well flowed the wrong way and is now stopped; solve the step again
    std::string why;  // when not ok
    long bad_cell = -1;
  };
  Attempt try_step(double dt);
  void apply_schedule();
  void upload_well(std::size_t w);  // its setting's parameters (shut while stopped_)
  double sum(const Field<T>& f) const;
  double omega_for(double dt) const;
  double injection_dt() const;  // days
  std::vector<double> cells_of(const Field<T>& f) const;
  void record_report();
  void write_summary(bool start);  // a deck's summary files: the step that just ended
  std::string cell_name(long L) const;

  Backend& be_;
  Impes3DConfig cfg_;
  ImpesGeometry geo_;
  ImpesWellArrays wa_;
  std::vector<double> prm_host_;
  std::size_t E_ = 0;
  Field<T> tx_, ty_, tz_, depth_, pv0_, prm_, p_, p_old_, dp_, dp_prev_, mw_, mo_, mw2_, mo2_, sw_, props_, coef_;
  Field<T> wp_, cwi_, cdepth_, comp_;
  std::unique_ptr<Buffer> cidx_, ccell_, words_, ctrl_;
  Impes3DGrid grid_;
  Impes3DTables tables_;
  std::vector<WellSetting> settings_;
  std::vector<char> stopped_;  // wells stopped for the step being taken (they flowed the wrong way)
  std::size_t next_event_ = 0;
  double t_ = 0, dt_next_ = 0, last_dt_ = 0, prev_dt_ = 0, dt_limit_ = 0;
  long steps_ = 0, cuts_total_ = 0, sor_total_ = 0, last_sor_ = 0;
  double last_residual_ = 0, omega_ = 1, max_cfl_ = 0;
  double seconds_pressure_ = 0, seconds_other_ = 0;
  double mw0_ = 0, mo0_ = 0;
  double fail_at_ = -1;
  double coupling_[3] = {0, 0, 0}, compress_c_ = 0;  // the design and omega = auto (omega_for)
  Field<T> scratch_;                                 // zline's factors
  std::vector<ImpesWellResult> wells_;
  // report history (plots)
  std::vector<double> h_time_, h_fopr_, h_fwpr_, h_fwir_, h_fwct_;
  std::vector<std::vector<double>> h_bhp_, h_wct_;
  std::size_t next_report_ = 0;
  mutable std::unique_ptr<io::HexGrid> hex_;
  std::shared_ptr<eclipse::SummaryWriter> summary_;
  // a checkpoint's summary totals (eclipse::SummaryTotals), for the restarted run's writer
  bool summary_resume_ = false;
  std::vector<std::string> summary_keys_;
  std::vector<double> summary_values_;
  double summary_fpr_ = 0;  // the pressure of the last report (summary ministeps between reports repeat it)
};

}  // namespace poreflow
