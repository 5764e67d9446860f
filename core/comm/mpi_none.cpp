// core/comm/mpi.hpp without MPI built in: one process, and a clear stop when a launcher started more.
#include <cstdlib>
#include <string>

#include "core/base/error.hpp"
#include "core/comm/mpi.hpp"

namespace poreflow::mpi {

bool compiled() { return false; }
std::string library() { return "not built in"; }

namespace {
const Session* g_current = nullptr;
}
const Session* Session::current() { return g_current; }

Session::Session(int&, char**&) {
  g_current = this;
  const Launch l = launched();
  if (l.size > 1)
    throw ConfigError("started by an MPI launcher as one of " + std::to_string(l.size) +
                      " processes, but this poreflow was built without MPI (install libopenmpi-dev and rebuild; "
                      "`poreflow info` says what is built in)");
}
Session::~Session() { if (g_current == this) g_current = nullptr; }
int Session::rank() const { return 0; }
void Session::abort(int) const {}
int Session::size() const { return 1; }

std::unique_ptr<Communicator> Session::world(Backend&) const { return make_self_communicator(); }

}  // namespace poreflow::mpi
