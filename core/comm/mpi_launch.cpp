// What the MPI launcher put into this process's environment (core/comm/mpi.hpp).
#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <string>

#include "core/base/error.hpp"
#include "core/comm/mpi.hpp"

namespace poreflow::mpi {
namespace {

// the first of the variables that is set, as a non-negative number; -1 when none is
int env_int(std::initializer_list<const char*> names) {
  for (const char* n : names) {
    const char* v = std::getenv(n);
    if (!v || !*v) continue;
    char* end = nullptr;
    const long x = std::strtol(v, &end, 10);
    if (*end != '\0' || x < 0 || x > 1 << 24)
      throw ConfigError(std::string("the MPI launcher's variable ") + n + "=" + v + " is not a process count or rank");
    return static_cast<int>(x);
  }
  return -1;
}

}  // namespace

Launch launched() {
  Launch l;
  const int size = env_int({"OMPI_COMM_WORLD_SIZE", "PMIX_SIZE", "PMI_SIZE"});
  if (size <= 0) return l;
  l.size = size;
  l.rank = std::max(0, env_int({"OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK"}));
  l.local_rank = std::max(0, env_int({"OMPI_COMM_WORLD_LOCAL_RANK", "MPI_LOCALRANKID", "PMI_LOCAL_RANK"}));
  l.local_size = std::max(1, env_int({"OMPI_COMM_WORLD_LOCAL_SIZE", "MPI_LOCALNRANKS", "PMI_LOCAL_SIZE"}));
  return l;
}

}  // namespace poreflow::mpi
