// poreflow info: every backend, whether it was compiled, and every device it sees; deck support.
#include <fmt/core.h>

#include "apps/common.hpp"
#include "core/comm/mpi.hpp"
#include "core/io/checkpoint.hpp"
#include "core/io/eclipse/deck.hpp"

namespace poreflow::app {

void add_info(CLI::App& app, Common& c) {
  auto* sub = app.add_subcommand("info", "list backends and the devices they see");
  add_common_options(*sub, c, false, false);
  sub->callback([&c] {
    apply_logging(c);
    fmt::print("poreflow {}\n", POREFLOW_VERSION);
    for (const auto& b : describe_backends()) {
      fmt::print("\n{:<7} {}\n", b.name, b.compiled ? "compiled" : "not compiled");
      for (const auto& line : b.lines) fmt::print("        {}\n", line);
    }
    fmt::print("\navailable now: ");
    auto av = available_backends();
    for (std::size_t i = 0; i < av.size(); ++i) fmt::print("{}{}", i ? ", " : "", av[i]);
    fmt::print("\n");
    fmt::print("Eclipse decks: {}\n", eclipse::available() ? "yes (opm-common)" : "no (built without opm-common)");
    const auto lib = io::checkpoint_library();
    fmt::print("checkpoints: {}\n", lib.empty() ? "not compiled (built without HDF5)" : lib);
    fmt::print("MPI: {}\n", mpi::compiled() ? mpi::library() + " (runs over several processes: docs/mpi.md)"
                                             : std::string("not compiled (built without libopenmpi-dev)"));
  });
}

}  // namespace poreflow::app
