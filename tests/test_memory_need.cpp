// Every model computes its memory need from the case before allocating, and refuses a case that
// does not fit with one message giving the need and what the backend has free.
#include <string>

#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/models/memory.hpp"
#include "core/run/registry.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

std::string refusal(Backend& be, const std::string& text, const std::string& set) {
  auto cf = io::CaseFile::parse(text, "test");
  cf.set(set);
  try {
    auto m = make_model(cf, be, Precision::Double);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_SUITE("model") {

TEST_CASE("memory: a case too large for the backend is refused before it allocates, naming need and free") {
  for_each_backend([](Backend& be) {
    const auto free = be.memory().free;
    REQUIRE(free > 0);
    // each far beyond any machine: allocating it would fail or swap, the check must come first
    const std::string bl = refusal(be, "model = \"bl1d\"\n", "grid.points=300000000000");
    CHECK(bl.find("the 300000000000-point grid needs") != std::string::npos);
    CHECK(bl.find("free") != std::string::npos);
    const std::string adi = refusal(be, "model = \"adi2d\"\n", "grid.points=1000001");
    CHECK(adi.find("the 1000001 x 1000001 grid needs") != std::string::npos);
    auto cf = io::CaseFile::parse(
        "model = \"impes3d\"\n[grid]\nnx = 100000\nny = 100000\nnz = 2\nlx = 40.0\nly = 40.0\nlz = 4.0\n"
        "[[wells]]\nname = \"P\"\ntype = \"producer\"\ni = 1\nj = 1\ncontrol = \"bhp\"\nbhp = 50.0\n",
        "test");
    std::string big;
    try {
      (void)make_model(cf, be, Precision::Double);
    } catch (const ConfigError& e) {
      big = e.what();
    }
    CHECK(big.find("the 100000 x 100000 x 2 grid (20000000000 cells) needs") != std::string::npos);
    CHECK(big.find("free") != std::string::npos);
  });
}

TEST_CASE("memory: the need grows with the grid and fits for the shipped sizes") {
  for_each_backend([](Backend& be) {
    auto need_of = [&](const std::string& text, const std::string& set) {
      auto cf = io::CaseFile::parse(text, "test");
      cf.set(set);
      MemoryNeed need;
      CHECK(make_model(cf, be, Precision::Double, &need) == nullptr);
      return need;
    };
    const auto a = need_of("model = \"adi2d\"\n", "grid.points=65"), b = need_of("model = \"adi2d\"\n", "grid.points=129");
    CHECK(a.total > 0);
    CHECK(b.total > 3 * a.total);
    CHECK(b.largest <= b.total);
    CHECK_NOTHROW(check_memory(a, Precision::Double, be));
  });
}

}  // TEST_SUITE
