#pragma once
// Runs over several processes through MPI (docs/mpi.md). MPI is optional at build time
// (POREFLOW_WITH_MPI); a process started alone never initialises it, so a run of one process is
// exactly what it was without MPI. A process started by a launcher (mpirun) with others joins
// them; without MPI built in, that is a ConfigError naming the launcher's process count.
#include <memory>
#include <string>

#include "core/comm/communicator.hpp"

namespace poreflow {
class Backend;
}

namespace poreflow::mpi {

bool compiled();            // built with MPI
std::string library();      // "Open MPI v4.1.4, ..." or "not built in"

// What the launcher says in this process's environment (Open MPI's OMPI_COMM_WORLD_*, or the
// PMI / PMIx variables of other launchers): the processes of the run and this one's rank among
// them and on its node (which picks its GPU); 1, 0, 0 for a process started alone.
struct Launch {
  int size = 1, rank = 0, local_rank = 0, local_size = 1;
};
Launch launched();

// MPI for the life of the object: initialised when the launcher started several processes and
// MPI is built in (a ConfigError when it is not), finalised by the destructor.
class Session {
 public:
  Session(int& argc, char**& argv);
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;
  bool active() const { return active_; }  // MPI initialised here
  int rank() const;
  int size() const;
  // A communicator of every process of the run whose device hook stages through be's buffers
  // (self_communicator's twin when the run is one process).
  std::unique_ptr<Communicator> world(Backend& be) const;
  // the process's session (the last one made; nullptr before it)
  static const Session* current();
  // Ends every process of the run with `code` (MPI_Abort): an error on one process would leave the
  // others waiting in their next collective. Does nothing in a run of one process.
  void abort(int code) const;

 private:
  bool active_ = false;
};

}  // namespace poreflow::mpi
