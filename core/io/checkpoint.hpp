#pragma once
// Checkpoint files: one HDF5 file holding a model's whole state (core/models/state.hpp), the
// driver's output cadence, and what the run was: the effective case text, poreflow's version, the
// model, backend and precision. docs/reliability.md ("Checkpoint and restart") describes the layout.
// Built without HDF5, writing and reading throw ConfigError saying so.
#include <filesystem>
#include <string>

#include "core/models/state.hpp"

namespace poreflow::io {

// Bumped whenever what a model or the driver saves changes: a checkpoint of another format is refused.
// 2: every record named (the models' State), the time control's records shared by every model;
// 1 held positional arrays ("counters", "dt", ...).
constexpr int kCheckpointFormat = 2;
// what changed since each older format, for the message that refuses it
const char* checkpoint_format_change(int format);

struct Checkpoint {
  int format = kCheckpointFormat;
  std::string poreflow_version = POREFLOW_VERSION;
  std::string model, backend, device, precision;
  std::string case_source;  // the case file's path, for messages
  std::string case_text;    // CaseFile::canonical_text(): the case with its --set overrides
  double time = 0;
  long steps = 0;
  // a run over several MPI processes writes one file a process (process_file), each holding its
  // box's state: restarted by as many processes (docs/mpi.md); 1 and 0 in a run of one
  int processes = 1, rank = 0;
  ModelState model_state;
  ModelState driver_state;
};

// The file of process `rank` of `processes` for a checkpoint named `base`: base itself for one
// process, else "DIR/STEM.pRANKofN.EXT" (checkpoint.h5 -> checkpoint.p1of2.h5).
std::filesystem::path process_file(const std::filesystem::path& base, int rank, int processes);
// When this run's file of checkpoint `base` is missing: what the files there say about the run that
// wrote them ("written by a run over 2 processes: restart with mpirun -n 2"), or empty.
std::string process_count_hint(const std::filesystem::path& base, int processes);

// false when poreflow was built without HDF5
bool checkpoints_supported();
// "HDF5 1.10.8", or empty without it (poreflow info)
std::string checkpoint_library();

// Writes file + ".tmp" and renames it over file, so an interrupted write leaves the last good
// checkpoint in place. Returns the bytes written. Throws Error naming the file.
std::size_t write_checkpoint(const std::filesystem::path& file, const Checkpoint& c);

// ConfigError naming the file when it is missing, not HDF5, damaged, or not a poreflow checkpoint.
Checkpoint read_checkpoint(const std::filesystem::path& file);

}  // namespace poreflow::io
