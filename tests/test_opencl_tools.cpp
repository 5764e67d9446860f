// The OpenCL backend's developer knobs (docs: tools/device/README.md): POREFLOW_CL_DUMP writes each
// program it builds (source, driver binary, index), POREFLOW_CL_OPTIONS reaches the compiler.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/kernels/blas.hpp"
#include "core/kernels/launch_tally.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

// sets an environment variable for the scope, restoring what was there
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const std::string& value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    ::setenv(name, value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (had_) ::setenv(name_, old_.c_str(), 1);
    else ::unsetenv(name_);
  }

 private:
  const char* name_;
  std::string old_;
  bool had_ = false;
};

// one axpy on a fresh OpenCL backend (the cached ones have built their programs already)
void run_axpy() {
  auto be = make_backend("opencl", env().opts);
  auto x = make_field(*be, std::vector<float>(1000, 1.0f)), y = make_field(*be, std::vector<float>(1000, 2.0f));
  be->blas().axpy({Precision::Float, 1000, 0.5, &x.buffer(), &y.buffer()});
  CHECK(y.download()[999] == 2.5f);
}

bool opencl_under_test() {
  for (const auto& n : env().backends)
    if (n == "opencl") return true;
  return false;
}

}  // namespace

TEST_SUITE("backend") {

TEST_CASE("opencl: POREFLOW_CL_DUMP writes each built program's source, binary and index") {
  if (!opencl_under_test()) return;
  const auto dir = std::filesystem::temp_directory_path() / ("poreflow_cl_dump_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  {
    ScopedEnv dump("POREFLOW_CL_DUMP", dir.string());
    run_axpy();
  }
  std::ifstream index(dir / "index.txt");
  REQUIRE(index.good());
  std::string line;
  int blas = 0;
  while (std::getline(index, line)) {
    CAPTURE(line);
    const std::string stem = line.substr(0, line.find(' '));
    CHECK(std::filesystem::file_size(dir / (stem + ".cl")) > 0);
    CHECK(std::filesystem::file_size(dir / (stem + ".bin")) > 0);
    if (line.find("OpenCL program blas") != std::string::npos) ++blas;
  }
  CHECK(blas == 1);
  std::filesystem::remove_all(dir);
}

TEST_CASE("opencl: POREFLOW_CL_OPTIONS reaches the compiler (a define changes nothing, a bad option fails the build by name)") {
  if (!opencl_under_test()) return;
  {
    ScopedEnv opts("POREFLOW_CL_OPTIONS", "-DPF_TEST_UNUSED_DEFINE=1");
    run_axpy();
  }
  ScopedEnv opts("POREFLOW_CL_OPTIONS", "-poreflow-no-such-option");
  try {
    run_axpy();
    FAIL("a build with an unknown option succeeded");
  } catch (const BackendError& e) {
    const std::string what = e.what();
    CAPTURE(what);
    CHECK(what.find("failed to build") != std::string::npos);
  }
}

TEST_CASE("opencl: the launch tally counts the enqueues after a kernel's first, and the host's waits") {
  if (!opencl_under_test()) return;
  auto be = make_backend("opencl", env().opts);
  auto x = make_field(*be, std::vector<float>(1000, 1.0f)), y = make_field(*be, std::vector<float>(1000, 2.0f));
  const AxpyArgs a{Precision::Float, 1000, 0.5, &x.buffer(), &y.buffer()};
  be->blas().axpy(a);  // the first launch of its shape counts as building (program_builds.hpp), not here
  const LaunchTally t0 = launch_tally();
  for (int i = 0; i < 3; ++i) be->blas().axpy(a);
  const LaunchTally t1 = launch_tally();
  CHECK(t1.launches - t0.launches == 3);
  CHECK(t1.enqueue_seconds > t0.enqueue_seconds);
  CHECK(t1.waits == t0.waits);  // nothing waited yet
  CHECK(y.download()[999] == 4.0f);  // 2 + 4 * 0.5: a blocking read
  const LaunchTally t2 = launch_tally();
  CHECK(t2.waits > t1.waits);
  CHECK(t2.wait_seconds > t1.wait_seconds);
  CHECK(t2.launches == t1.launches);
}

}  // TEST_SUITE
