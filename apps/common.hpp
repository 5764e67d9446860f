#pragma once
// Options shared by every subcommand, and helpers that turn them into backends and cases.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "backends/registry.hpp"
#include "core/io/case_file.hpp"

namespace poreflow::app {

struct Common {
  std::string backend = "auto";
  BackendOptions backend_opts;
  std::string precision = "double";
  int verbose = 0;
  bool quiet = false;
  std::vector<std::string> sets;  // --set key=value
  // shortcuts for case keys
  std::string reduction, combine;
  int block = 0, check_every = 0;
  std::string pressure_solver, algorithm;
  int exit_code = 0;  // set by a subcommand that finished but must report failure (compare)
  std::vector<std::string> args;  // the command line after the program's name (for hints)
  int processes = 1;              // the MPI run's processes (core/comm/mpi.hpp); 1 without a launcher
  int rank = 0;                   // this process's rank among them
};

// Registers the shared options on a subcommand: --backend when `backend`, the device choice
// (--device, --cl-platform, --cl-device, --threads) when `devices`, always precision (its help
// says `precision_default`) and logging.
inline const std::string kCasePrecision = "the case's precision key, else double; cases/fluids3d.toml says float";
void add_common_options(CLI::App& app, Common& c, bool backend = true, bool devices = true,
                        const std::string& precision_default = kCasePrecision);
void apply_logging(const Common& c);

// Loads a case and applies the shortcuts and --set overrides, in that order.
io::CaseFile load_case(const std::string& path, const Common& c);

// The precision of a run: --precision when given on subcommand `sub`, else the case's optional
// top-level key `precision` ("float" | "double"; fluids3d's case says float, as paper 001
// measured), else double.
Precision run_precision(io::CaseFile& cf, const CLI::App& sub, const Common& c);

std::vector<std::string> split_list(const std::string& s);

// The source commit the results come from, for the JSON poreflow writes: POREFLOW_COMMIT from the
// environment (the GPU machine gets a copy of the tree without .git, so the caller names it), else
// "unknown".
std::string source_commit();

void add_info(CLI::App& app, Common& c);
void add_run(CLI::App& app, Common& c);
void add_compare(CLI::App& app, Common& c);
void add_bench(CLI::App& app, Common& c);
void add_generate(CLI::App& app, Common& c);

}  // namespace poreflow::app
