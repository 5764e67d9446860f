#pragma once
// A model: its state (named fields and scalars, State), its step or steps, and the time-step
// controller it steps with (TimeController). What a run writes (CSV series, VTK snapshots, PNG
// plots, a deck's summary files, checkpoints) is done by observers (observer.hpp) that read the
// model through this interface; the time loop (core/run/driver.hpp) drives both. Models read and
// write no files.
#include <algorithm>
#include <array>
#include <cmath>
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

// A decomposed run's piece of an image snapshot (docs/mpi.md): this process's points of the grid,
// from point `first` on, `points` along each axis (its own, and where a piece follows along an
// axis that piece's first layer, as VTK's pieces share their faces), with the fields over them;
// `extents` holds every piece's (x0 x1 y0 y1 z0 z1, inclusive). count 1: one process, nothing else.
struct ImagePiece {
  int index = 0, count = 1;
  std::array<int, 3> first{0, 0, 0}, points{1, 1, 1};
  std::vector<NamedField> fields;
  std::vector<std::array<int, 6>> extents;
};

// A conservation law a model keeps, at its present state: the change of what is in place since the
// start, the net inflow over the same time (injected - produced), and the largest term the
// imbalance is measured against. The driver checks it at every stop (core/run/driver.cpp).
struct Balance {
  std::string what;      // "water", "component 2"
  double change = 0;     // in place now - in place at the start
  double net_in = 0;     // injected - produced
  double scale = 0;      // the largest of in place (now, at the start), injected, produced
  double tolerance = 0;  // of the relative imbalance: what the precision's rounding allows
  double rel_error() const {
    const double e = std::fabs(change - net_in) / std::max(scale, 1e-300);
    return std::isnan(e) ? HUGE_VAL : e;
  }
};

// One Krylov solve of a step (core/linalg/krylov.hpp): which attempt of the step and which Newton
// iteration made it, and its relative residual after each iteration (history[k] after k). The
// output's linear_solves.csv writes them (core/io/outputs/outputs.hpp).
struct LinearSolveRecord {
  int attempt = 0;  // the step's solves of a step attempt, 0 first; the last attempt is the accepted one
  int newton = 0;   // the Newton iteration, 0 first (0 for a scheme without one)
  bool converged = false;
  std::vector<double> history;
};

// the tolerance of a balance in precision p: rounding over a run's steps, far below a lost flux
inline double balance_tolerance(Precision p) { return p == Precision::Float ? 1e-4 : 1e-9; }

class Model {
 public:
  virtual ~Model() = default;

  virtual std::string name() const = 0;
  virtual std::string summary() const = 0;  // one line: grid, main parameters
  // The numerical scheme where a model has more than one (impes3d: "IMPES" or "fully implicit"),
  // named in the run's first log line; empty otherwise.
  virtual std::string scheme_name() const { return ""; }
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
  // The Krylov solves of the last step, its cut attempts' included, for the output; nullptr where
  // the model makes none (no Krylov solver, or a scheme that solves otherwise, e.g. by SOR).
  virtual const std::vector<LinearSolveRecord>* linear_solves() const { return nullptr; }
  // The conservation laws the model keeps (mass, per phase or component); empty where it has none.
  virtual std::vector<Balance> balance() const { return {}; }

  // A run over several processes (docs/mpi.md) writes its output from process 0 alone, and its
  // snapshots one piece a process. The time loop calls this on every process before the observers
  // read the model (a CSV row; fields: a snapshot), so a model whose state is cut between
  // processes prepares there what they read: each process its piece, and on process 0 what
  // `gather` says: the planes its PNG maps draw (impes3d's map_layer_saturation, fluids3d's
  // density_plane), or the whole fields (fields(), for a caller that compares them). Nothing to do in one process.
  enum class Gather { Pieces, Maps, Whole };
  virtual void before_output(bool /*fields*/, Gather /*gather*/ = Gather::Whole) {}
  // the image piece this process writes of a snapshot, as before_output(true) left it
  virtual ImagePiece image_piece() const { return {}; }
};

}  // namespace poreflow
