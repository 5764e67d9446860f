// libFuzzer target for Eclipse decks (POREFLOW_FUZZ=ON with opm-common): the bytes are a .DATA
// deck, written to a file and read as `poreflow run DECK.DATA` reads it: opm-common's parser,
// EclipseState and Schedule, poreflow's keyword checks and mapping, impes3d's validation and the
// memory need; a valid deck with a tiny grid is stepped a few times, its SOR solve bounded to 2000
// iterations a try. poreflow's ConfigError (a
// deck refused with its keyword, file and line) is the expected end of bad input; a crash, a
// hang, a sanitizer report or another exception escaping is a finding.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <fstream>
#include <memory>
#include <string>

#include <spdlog/spdlog.h>

#include "backends/registry.hpp"
#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/models/memory.hpp"
#include "core/run/registry.hpp"

using namespace poreflow;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::unique_ptr<Backend> be = [] {
    spdlog::set_level(spdlog::level::off);
    return make_backend("serial");
  }();
  static const std::string path = "/tmp/poreflow_fuzz_deck_" + std::to_string(getpid()) + ".DATA";
  if (size > 64 * 1024) return 0;
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  }
  try {
    auto cf = io::CaseFile::load(path);
    MemoryNeed need;
    (void)make_model(cf, *be, Precision::Double, &need);
    if (need.total > (std::size_t(256) << 10)) return 0;
    auto cf2 = io::CaseFile::load(path);
    // bounded as the case harness bounds its runs: a tiny grid's SOR solve must not run to its
    // default 5000 iterations a try (8 cuts a step) under the sanitizers
    cf2.set("pressure.max_iterations=2000");
    auto model = make_model(cf2, *be, Precision::Double);
    for (int s = 0; s < 3 && model->time() < model->end_time(); ++s) model->step(model->end_time());
  } catch (const Error&) {
    // a clear message for the user: the expected end of bad input
  }
  return 0;
}
