// libFuzzer target for the case input (POREFLOW_FUZZ=ON, clang): the bytes are a TOML case,
// optionally followed by a line "#--set" and one key=value override a line, as on the command
// line. They go through reading, validation and the memory need on the serial backend; a valid
// case with a tiny grid is built and stepped a few times. poreflow's own errors (a bad key or
// value, a numerical breakdown named) are the expected outcome of bad input; anything else (a
// crash, another exception, a sanitizer report, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "backends/registry.hpp"
#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/models/memory.hpp"
#include "core/run/registry.hpp"

using namespace poreflow;

namespace {

struct Input {
  std::string toml;
  std::vector<std::string> sets;
};

Input split(const std::string& bytes) {
  Input in;
  const std::string mark = "\n#--set\n";
  const auto at = bytes.find(mark);
  in.toml = bytes.substr(0, at);
  if (at == std::string::npos) return in;
  std::string rest = bytes.substr(at + mark.size());
  std::size_t start = 0;
  while (start <= rest.size()) {
    const auto end = rest.find('\n', start);
    const std::string line = rest.substr(start, end == std::string::npos ? std::string::npos : end - start);
    if (!line.empty()) in.sets.push_back(line);
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return in;
}

io::CaseFile load(const Input& in) {
  auto cf = io::CaseFile::parse(in.toml, "fuzz");
  for (const auto& s : in.sets) cf.set(s);
  return cf;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::unique_ptr<Backend> be = [] {
    spdlog::set_level(spdlog::level::off);
    return make_backend("serial");
  }();
  if (size > 64 * 1024) return 0;
  const Input in = split(std::string(reinterpret_cast<const char*>(data), size));
  try {
    auto cf = load(in);
    (void)cf.get_choice("precision", "double", parse_precision);  // a case may name its precision
    MemoryNeed need;
    (void)make_model(cf, *be, Precision::Double, &need);
    cf.check_all_used();
    // run only what finishes in milliseconds: a tiny grid, a bounded solver
    if (need.total > (std::size_t(256) << 10)) return 0;
    auto cf2 = load(in);
    (void)cf2.get_choice("precision", "double", parse_precision);
    for (const char* key : {"pressure.max_iterations", "time.max_substeps", "time.max_cuts", "solver.max_sweeps"})
      if (cf2.has(key) && !(cf2.get_double(key, 0) <= 2000)) return 0;
    // the default iteration limits are for real runs (bl1d's Jacobi on 1001 points took over 10 s
    // under the sanitizers, a timeout: fuzz/corpus/regression_bl1d_slow_jacobi.toml)
    if (!cf2.has("pressure.max_iterations")) cf2.set("pressure.max_iterations=2000");
    auto model = make_model(cf2, *be, Precision::Double);
    for (int s = 0; s < 3 && model->time() < model->end_time(); ++s) model->step(model->end_time());
  } catch (const Error&) {
    // a clear message for the user: the expected end of bad input
  }
  return 0;
}
