#pragma once
// The time loop shared by every model: where it stops (report times or the end; never for output), when its
// observers write (CSV rows, snapshots), checkpoints and the stop on a signal, the progress line,
// and the wall-clock measurement.
#include <array>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/comm/communicator.hpp"
#include "core/io/checkpoint.hpp"
#include "core/models/model.hpp"
#include "core/models/observer.hpp"

namespace poreflow {

namespace io {
class CaseFile;
}

struct OutputOptions {
  bool enabled = true;
  std::filesystem::path dir = "out";
  int snapshots = 10;     // VTK snapshots (and PNG plots) after the first step past each of N equal intervals, plus t = 0
  long series_every = 1;  // a CSV row every N steps (and at every snapshot); by report times: every N-th and the last
  bool vtk = true, csv = true, png = true;
  // this process writes the files: process 0 of a run over several processes (docs/mpi.md); the
  // others keep the same cadence, so the model can gather what process 0 writes
  bool writer = true;
  // output.range.<map> = [low, high]: that map's colour range (else the range of the whole run)
  std::map<std::string, std::array<double, 2>> ranges;
};

// Reads the [output] table of a case.
OutputOptions read_output_options(io::CaseFile& cf);

// Checkpoints (core/io/checkpoint.hpp) and the stop on SIGINT and SIGTERM.
struct CheckpointOptions {
  std::filesystem::path file;  // where checkpoints go; empty: none (a signal then stops without one)
  double every = 0;            // > 0: one each time the simulated time passes a multiple, and one at the end
  bool handle_signals = false;  // SIGINT, SIGTERM: finish the step, write a checkpoint, flush, return
  const io::Checkpoint* restart = nullptr;  // continue from it (checked by check_restart first)
  // what the run is: case text and source, backend, device, precision; each checkpoint adds the
  // model, its state and the driver's cadence
  io::Checkpoint identity;
  // a run over several processes (docs/mpi.md): a signal is combined over them before each step
  const Communicator* comm = nullptr;
};

struct RunReport {
  double wall_seconds = 0;  // the steps, without building device code (OpenCL's programs, build_seconds)
  double build_seconds = 0;  // building device code during the run (program_builds.hpp)
  long steps = 0;
  double sim_time = 0;
  std::vector<NamedField> final_fields;
  std::map<std::string, double> stats;
  int interrupted = 0;                // the signal that stopped the run before its end, 0 when none
  std::filesystem::path checkpoint;   // the last checkpoint written, empty when none
  std::size_t checkpoint_bytes = 0;   // its size, and the time its state took to copy and write
  double checkpoint_seconds = 0;
};

// Refuses (ConfigError naming the file and what differs) a checkpoint that this run cannot
// continue: another case (the effective case text), another precision. Another backend is allowed,
// with a warning: the continuation is then not bit-identical to a run on one backend.
void check_restart(const io::Checkpoint& ck, const io::Checkpoint& identity, const std::filesystem::path& file);

using Observers = std::vector<std::unique_ptr<Observer>>;

// Runs the model to its end with these observers (none: nothing is written). out gives the
// folder, the cadence (snapshots, series_every) and whether output is enabled at all.
// progress: print a status line about once a second.
RunReport run_model(Model& m, Observers& observers, const OutputOptions& out, bool progress, const CheckpointOptions& ck = {});
// the same without observers: out.enabled must be false (a run with output is run_simulation's,
// core/run/registry.hpp, which makes the case's observers)
RunReport run_model(Model& m, const OutputOptions& out, bool progress, const CheckpointOptions& ck = {});

}  // namespace poreflow
