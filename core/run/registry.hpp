#pragma once
// From a case file to a running model: which model it names, its configuration (core/io/cases),
// its memory need checked before anything is allocated, and the observers that write its output
// (core/io/outputs): the CSV series, VTK snapshots and PNG plots every model has, in the model's
// own form where it has one, and a deck's Eclipse summary files.
#include <functional>
#include <memory>

#include "core/comm/communicator.hpp"
#include "core/io/case_file.hpp"
#include "core/models/memory.hpp"
#include "core/models/model.hpp"
#include "core/run/driver.hpp"

namespace poreflow {

struct Simulation {
  std::unique_ptr<Model> model;
  // the observers that write this case's output as `out` asks (none when out.enabled is false)
  std::function<Observers(const OutputOptions& out)> outputs;
};

// Reads `model = "..."` and builds it; every case key is validated by the model's reader.
// need_only: fill it with the run's memory need and return an empty simulation (--dry-run)
// comm: the processes the run is cut between (docs/mpi.md); impes3d's IMPES scheme runs over
// several, every other model refuses with a message
Simulation make_simulation(io::CaseFile& cf, Backend& be, Precision prec, MemoryNeed* need_only = nullptr,
                           const Communicator& comm = self_communicator());
// the model alone
std::unique_ptr<Model> make_model(io::CaseFile& cf, Backend& be, Precision prec, MemoryNeed* need_only = nullptr);

// the simulation's model run to its end with the case's outputs (run_model)
RunReport run_simulation(Simulation& sim, const OutputOptions& out, bool progress, const CheckpointOptions& ck = {});

}  // namespace poreflow
