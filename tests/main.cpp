// doctest main with poreflow's own options, removed before doctest sees the arguments:
//   --pf-backend=a,b     backends under test (default: every available one)
//   --pf-cl-platform=S   OpenCL platform substring; --pf-cl-device=N; --pf-device=N (CUDA)
// Exit code 77 (ctest: skipped) when a named backend is not usable here, unless the environment
// variable POREFLOW_REQUIRE_BACKENDS lists it (the GPU machine's script sets it): then it fails.
#define DOCTEST_CONFIG_IMPLEMENT
#include <doctest/doctest.h>
#include <spdlog/spdlog.h>

#include <cstdlib>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include "apps/common.hpp"
#include "backends/registry.hpp"
#include "core/base/error.hpp"
#include "tests/harness.hpp"

using namespace poreflow;

int main(int argc, char** argv) {
  spdlog::set_level(spdlog::level::warn);
  auto& e = test::env();
  std::string backends;
  std::vector<char*> rest = test::take_options(argc, argv, backends);
  const char* seed = std::getenv("POREFLOW_TEST_SEED");
  e.seed = seed ? std::stoull(seed) : std::random_device{}();
  std::cout << "poreflow tests: random seed " << e.seed << " (set POREFLOW_TEST_SEED to repeat)\n";

  auto required = app::split_list(std::getenv("POREFLOW_REQUIRE_BACKENDS") ? std::getenv("POREFLOW_REQUIRE_BACKENDS") : "");
  e.backends = backends.empty() ? available_backends() : app::split_list(backends);
  for (const auto& name : e.backends) {
    try {
      auto& be = test::backend(name);
      std::cout << "backend under test: " << name << " on " << be.device_name() << "\n";
    } catch (const Error& err) {
      bool must = std::find(required.begin(), required.end(), name) != required.end();
      std::cout << (must ? "FAILED: " : "SKIPPED: ") << "backend " << name << ": " << err.what() << "\n";
      return must ? 1 : 77;
    }
  }
  doctest::Context ctx;
  ctx.applyCommandLine(static_cast<int>(rest.size()), rest.data());
  const int rc = ctx.run();
  test::release_backends();
  return rc;
}
