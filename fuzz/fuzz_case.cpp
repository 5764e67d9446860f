// libFuzzer target for the case input (POREFLOW_FUZZ=ON, clang): the bytes are a TOML case,
// optionally followed by a line "#--set" and one key=value override a line, as on the command
// line. They go through reading, validation and the memory need on the serial backend in the
// case's precision; a valid case with a tiny grid is built and stepped a few times on serial and
// omp, in double and float. A ConfigError (a bad key or value named) is the expected outcome of
// bad input, and so is the run's stop, with its reason, at a step the physics limits below the
// smallest step; anything else (a crash, an internal BackendError or another NumericalError from a
// case that was read and validated, another exception, a sanitizer report, a hang) is a finding.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
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

// A valid case must run: an internal error (BackendError, NumericalError, any poreflow error but
// ConfigError, which is how bad input is refused) from a case that was read and validated is a
// finding. The harness reports it and aborts, so libFuzzer keeps the input.
[[noreturn]] void finding(const char* where, const char* backend, Precision prec, const std::exception& e) {
  std::fprintf(stderr, "\nfuzz_case finding: %s on %s in %s: %s\n", where, backend, to_string(prec), e.what());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static std::unique_ptr<Backend> serial = [] {
    spdlog::set_level(spdlog::level::off);
    return make_backend("serial");
  }();
  static std::unique_ptr<Backend> omp = make_backend("omp");
  if (size > 64 * 1024) return 0;
  const Input in = split(std::string(reinterpret_cast<const char*>(data), size));
  MemoryNeed need;
  Precision prec = Precision::Double;
  try {
    auto cf = load(in);
    prec = cf.get_choice("precision", "double", parse_precision);  // a case may name its precision
    (void)make_model(cf, *serial, prec, &need);
    cf.check_all_used();
  } catch (const ConfigError&) {
    return 0;  // a clear message for the user: the expected end of bad input
  } catch (const Error& e) {
    finding("reading a case", "serial", prec, e);
  }
  // run only what finishes in milliseconds: a tiny grid, a bounded solver
  if (need.total > (std::size_t(256) << 10)) return 0;
  for (Backend* be : {serial.get(), omp.get()})
    for (Precision p : {Precision::Double, Precision::Float}) {
      try {
        auto cf2 = load(in);
        (void)cf2.get_choice("precision", "double", parse_precision);
        for (const char* key : {"pressure.max_iterations", "time.max_substeps", "time.max_cuts", "solver.max_sweeps"})
          if (cf2.has(key) && !(cf2.get_double(key, 0) <= 2000)) return 0;
        // the default iteration limits are for real runs (bl1d's Jacobi on 1001 points took over 10 s
        // under the sanitizers, a timeout: fuzz/corpus/regression_bl1d_slow_jacobi.toml)
        if (!cf2.has("pressure.max_iterations")) cf2.set("pressure.max_iterations=2000");
        auto model = make_model(cf2, *be, p);
        for (int s = 0; s < 3 && model->time() < model->end_time(); ++s) model->step(model->end_time());
      } catch (const ConfigError&) {
        // refused in this precision (a value float cannot hold): still a clear message
      } catch (const NumericalError& e) {
        // the designed stop of a step the physics limits below the smallest step, with its reason
        // (issue 24 section 1: bl1d at boundary.p_inj = 1e308): a message for the user, not a finding
        if (std::string(e.what()).find("below the smallest step") == std::string::npos)
          finding("stepping a valid case", be->name().c_str(), p, e);
      } catch (const Error& e) {
        finding("stepping a valid case", be->name().c_str(), p, e);
      }
    }
  return 0;
}
