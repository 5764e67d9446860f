#pragma once
// The time loop shared by every model: output cadence (VTK snapshots, CSV series, PNG plots),
// the progress line, and the wall-clock measurement.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "core/models/model.hpp"

namespace poreflow {

namespace io {
class CaseFile;
}

struct OutputOptions {
  bool enabled = true;
  std::filesystem::path dir = "out";
  int snapshots = 10;     // VTK snapshots (and PNG plots) at equal time intervals, plus t = 0
  long series_every = 1;  // a CSV row every N steps (and at every snapshot)
  bool vtk = true, csv = true, png = true;
};

// Reads the [output] table of a case.
OutputOptions read_output_options(io::CaseFile& cf);

struct RunReport {
  double wall_seconds = 0;
  long steps = 0;
  double sim_time = 0;
  std::vector<NamedField> final_fields;
  std::map<std::string, double> stats;
};

// progress: print a status line about once a second.
RunReport run_model(Model& m, const OutputOptions& out, bool progress);

}  // namespace poreflow
