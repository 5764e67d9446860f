#pragma once
// A model: its state (named fields and scalars, State), its step or steps, and the time-step
// controller it steps with (TimeController). What a run writes (CSV series, VTK snapshots, PNG
// plots, a deck's summary files, checkpoints) is done by observers (observer.hpp) that read the
// model through this interface; the time loop (core/run/driver.hpp) drives both. Models read and
// write no files.
#include <array>
#include <map>
#include <string>
#include <vector>

#include "core/kernels/backend.hpp"
#include "core/models/state.hpp"
#include "core/models/time_control.hpp"

namespace poreflow {

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
  // A hint when this case is too small for its backend to pay off, naming what is faster; empty
  // when none applies. `run` logs it.
  virtual std::string backend_hint() const { return ""; }

  // time
  virtual const TimeController& clock() const = 0;
  double time() const { return clock().time(); }
  long steps() const { return clock().steps(); }
  virtual double end_time() const = 0;
  // Times the run must stop at and report (CSV rows, snapshots); empty: snapshots at equal
  // intervals and a CSV row every series_every steps.
  virtual std::vector<double> report_times() const { return {}; }
  // One time step that ends no later than t_stop. Throws NumericalError on NaN or divergence.
  virtual void step(double t_stop) = 0;
  virtual std::string progress() const = 0;  // short status for the progress line

  // Everything the next steps depend on, by name: a checkpoint saves it, a restart loads it into a
  // model built from the same case, backend and precision, which then continues bit-identical.
  virtual const State& state() const = 0;

  // Output. fields() are host copies of the state in double, in a fixed order, on grid()'s points;
  // the same list is what `compare` checks between backends.
  virtual GridInfo grid() const = 0;
  virtual std::vector<NamedField> fields() const = 0;
  virtual std::vector<std::string> series_columns() const = 0;
  virtual std::vector<double> series_row() const = 0;
  // Scalars for the end-of-run summary (e.g. the error against an analytic solution).
  virtual std::map<std::string, double> final_stats() const = 0;
};

}  // namespace poreflow
