// Every model computes its memory need from the case before allocating, and refuses a case that
// does not fit with one message giving the need and what the backend has free.
#include <string>

#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/models/impes3d.hpp"
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

TEST_CASE("sizes: a grid past the 64-bit counting limits is refused by key and limit, its count never wrapped") {
  for_each_backend([](Backend& be) {
    // issue 24: fluids3d grid.n = 2000000000 was reported as 18339785675282317312 cells, impes3d
    // grid.nx = 4000000000 as a -294967296 x 10 x 3 grid
    CHECK(refusal(be, "model = \"fluids3d\"\n", "grid.n=2000000000")
              .find("grid.n = 2000000000 must be an integer in [1, 65534]") != std::string::npos);
    CHECK(refusal(be, "model = \"adi2d\"\n", "grid.points=5000000000")
              .find("grid.points = 5000000000 must be an integer in [3, 16777216]") != std::string::npos);
    CHECK(refusal(be, "model = \"bl1d\"\n", "grid.points=4000000000000000000")
              .find("grid.points = 4000000000000000000 must be an integer in [3, 281474976710656]") != std::string::npos);
    const std::string imp = "model = \"impes3d\"\n[grid]\nnx = 10\nny = 10\nnz = 3\n";
    CHECK(refusal(be, imp, "grid.nx=4000000000").find("grid.nx = 4000000000 must be an integer in [1, 2147483647]") !=
          std::string::npos);
    CHECK(refusal(be, imp + "[time]\nend = 1.0\n", "grid.ny=2000000000")
              .find("the 10 x 2000000000 x 3 grid (60000000000 cells) needs") != std::string::npos);  // within the limit: memory
    const std::string past = refusal(be, "model = \"impes3d\"\n[grid]\nnx = 2000000000\nny = 2000000000\n", "grid.nz=3");
    CHECK(past.find("the 2000000000 x 2000000000 x 3 grid (12000000000000000000 cells) is past the limit of 2^48 cells") !=
          std::string::npos);
    // a deck's DIMENS reaches the need unchecked: its count must not wrap either
    ImpesGrid g;
    g.nx = g.ny = g.nz = 2147483647;
    CHECK_THROWS_WITH_AS(impes3d_need(g, 0, 0, Precision::Double, true), doctest::Contains("grid (9.9e+27 cells) is past the limits"),
                         ConfigError);
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

TEST_CASE("impes3d: the fully implicit scheme's memory need is counted apart, larger than IMPES's") {
  ImpesGrid g;
  g.nx = 60;
  g.ny = 60;
  g.nz = 10;
  const auto impes = impes3d_memory(g, 10, 2, Precision::Double, ReservoirSchemeKind::Impes);
  const auto fim = impes3d_memory(g, 10, 2, Precision::Double, ReservoirSchemeKind::Fim);
  CHECK(fim.total > 3 * impes.total);
  CHECK(fim.largest >= 28 * 62 * 62 * 12 * sizeof(double));  // the Jacobian's planes
}

TEST_CASE("impes3d: a Krylov pressure solve adds its operator, vectors and preconditioner; processes share the need") {
  ImpesGrid g;
  g.nx = 60;
  g.ny = 60;
  g.nz = 10;
  const double E = 62.0 * 62 * 12, v = sizeof(double);
  using S = PressureSolver;
  using P = PressurePreconditioner;
  const auto k = ReservoirSchemeKind::Impes;
  const auto sor = impes3d_memory(g, 10, 2, Precision::Double, k);
  const auto cgj = impes3d_memory(g, 10, 2, Precision::Double, k, S::Cg, P::Jacobi);
  const auto bij = impes3d_memory(g, 10, 2, Precision::Double, k, S::Bicgstab, P::Jacobi);
  const auto cga = impes3d_memory(g, 10, 2, Precision::Double, k, S::Cg, P::Amg);
  // CG + Jacobi: 13 values a cell more, and the operator's int32 activity
  CHECK(double(cgj.total - sor.total) == doctest::Approx(13 * E * v + E * sizeof(int)));
  CHECK(bij.total > cgj.total);
  CHECK(cga.total > cgj.total);
  // over 4 processes each device needs about a quarter, with 10 % for the cuts
  const auto one = impes3d_need(g, 10, 2, Precision::Double, false, k, 1, S::Cg, P::Jacobi);
  const auto four = impes3d_need(g, 10, 2, Precision::Double, false, k, 4, S::Cg, P::Jacobi);
  CHECK(double(four.total) == doctest::Approx(1.1 * double(one.total) / 4).epsilon(1e-6));
  CHECK(four.what.find("cut between 4 processes") != std::string::npos);
}
