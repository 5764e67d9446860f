#pragma once
// A model is a small, named state on a backend plus a time step. The driver (driver.hpp) owns
// the time loop, output cadence and the progress line, so models only know their physics.
#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/kernels/backend.hpp"

namespace poreflow {

namespace io {
class CaseFile;
}
class ModelState;

struct NamedField {
  std::string name;
  std::vector<double> values;
};

// Structured grid of points for output (VTK ImageData).
struct GridInfo {
  std::array<int, 3> points{1, 1, 1};
  std::array<double, 3> origin{0, 0, 0};
  std::array<double, 3> spacing{1, 1, 1};
};

class Model {
 public:
  virtual ~Model() = default;

  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // one line: grid, main parameters
  virtual GridInfo grid() const = 0;

  virtual double time() const = 0;
  virtual double end_time() const = 0;
  virtual long steps() const = 0;
  // One time step that ends no later than t_stop. Throws NumericalError on NaN or divergence.
  virtual void step(double t_stop) = 0;
  virtual std::string progress() const = 0;  // short status for the progress line

  // Output. fields() are host copies of the state in double, in a fixed order; the same
  // list is what `compare` checks between backends.
  virtual std::vector<NamedField> fields() const = 0;
  virtual std::vector<std::string> series_columns() const = 0;
  virtual std::vector<double> series_row() const = 0;
  virtual void write_plot(const std::filesystem::path& png) const = 0;
  // Scalars for the end-of-run summary (e.g. the error against an analytic solution).
  virtual std::map<std::string, double> final_stats() const = 0;
  // Times the run must stop at and report (CSV rows, snapshots); empty: snapshots at equal
  // intervals (OutputOptions::snapshots) and a CSV row every series_every steps.
  virtual std::vector<double> report_times() const { return {}; }
  // Writes a VTK snapshot of the state as dir / (stem + extension) and returns the file's name;
  // the default is ImageData (.vti) of grid() with fields() as point data.
  virtual std::string write_snapshot(const std::filesystem::path& dir, const std::string& stem) const;
  // Called once before the run's first output, with the output folder: a model with outputs of
  // its own (impes3d's Eclipse summary files) opens them here.
  virtual void open_outputs(const std::filesystem::path& dir) { (void)dir; }
  // A hint when this case is too small for its backend to pay off, naming what is faster; empty
  // when none applies. `run` logs it.
  virtual std::string backend_hint() const { return ""; }

  // Checkpoints (core/models/state.hpp): save_state puts everything the next steps depend on,
  // load_state restores it into a model built from the same case, backend and precision, which
  // then continues bit-identical to a run that never stopped. Throws ConfigError on a state that
  // does not fit (another grid, a missing entry).
  virtual void save_state(ModelState& s) const = 0;
  virtual void load_state(const ModelState& s) = 0;
};

// Reads `model = "..."` and builds it; every case key is validated by the model.
// need_only: fill it with the run's memory need and return nullptr (--dry-run)
struct MemoryNeed;
std::unique_ptr<Model> make_model(io::CaseFile& cf, Backend& be, Precision prec, MemoryNeed* need_only = nullptr);

}  // namespace poreflow
