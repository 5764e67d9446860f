// The tests of runs over several processes (docs/mpi.md), started by the launcher:
//   mpirun -n P poreflow_mpi_tests [--pf-backend=a,b] [doctest options]
// Every process runs every test; a test's checks are each process's own, and the exit code is
// the worst of all processes. The random seed is rank 0's, sent to the others, so every process
// builds the same global problems. Exit code 77 (ctest: skipped) as in tests/main.cpp.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <cstdint>
#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "apps/common.hpp"
#include "backends/registry.hpp"
#include "core/base/error.hpp"
#include "core/comm/mpi.hpp"
#include "tests/harness.hpp"
#include "tests/mpi/mpi_harness.hpp"

using namespace poreflow;

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  mpi::Session session(argc, argv);
  test::mpi_session() = &session;
  auto& e = test::env();
  std::string backends;
  std::vector<char*> rest = test::take_options(argc, argv, backends);
  const mpi::Launch l = mpi::launched();
  e.opts.node_rank = l.local_rank;  // one GPU per process where the node has enough (--pf-device=N to share one)
  e.opts.node_processes = l.local_size;
  const char* seed = std::getenv("POREFLOW_TEST_SEED");
  std::uint64_t s = seed ? std::stoull(seed) : std::random_device{}();
  {
    // the seed every process uses: rank 0's (a communicator on the serial backend carries it)
    auto comm = session.world(test::reference());
    comm->broadcast(&s, sizeof s, 0);
  }
  e.seed = s;
  if (session.rank() == 0)
    std::cout << "poreflow MPI tests: " << session.size() << " processes (local " << l.local_size << "), random seed " << e.seed
              << " (set POREFLOW_TEST_SEED to repeat)\n";
  e.backends = backends.empty() ? available_backends() : app::split_list(backends);
  int rc = 0;
  for (const auto& name : e.backends) {
    try {
      test::backend(name);
    } catch (const Error& err) {
      std::cout << "SKIPPED: backend " << name << ": " << err.what() << "\n";
      rc = 77;
    }
  }
  if (rc == 0) {
    doctest::Context ctx;
    ctx.applyCommandLine(static_cast<int>(rest.size()), rest.data());
    rc = ctx.run() != 0 ? 1 : 0;
  }
  {
    auto comm = session.world(test::reference());
    rc = static_cast<int>(comm->max(static_cast<long>(rc)));
  }
  test::release_backends();
  return rc;
}
