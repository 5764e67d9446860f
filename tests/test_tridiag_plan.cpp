// The CUDA tridiag family's plan (core/kernels/tridiag_plan.hpp), host code tested without a GPU:
// shapes whose plans were recorded from kernels_cu/tridiag.cu's make_plan before it moved to core
// (so the move kept them), and what every plan must satisfy to be launchable.
#include <algorithm>
#include <string>

#include "core/base/error.hpp"
#include "core/kernels/tridiag_plan.hpp"
#include "tests/harness.hpp"

using namespace poreflow;

namespace {

tri::Shape shape(std::size_t vb, TridiagAlgo algo, TridiagLayout layout, std::size_t n, std::size_t batch,
                 std::size_t smem = 227 * 1024, int sms = 132) {
  tri::Shape s;
  s.algo = algo;
  s.layout = layout;
  s.n = n;
  s.batch = batch;
  s.value_bytes = vb;
  s.max_smem = smem;
  s.sm_count = sms;
  return s;
}

constexpr auto kC = TridiagLayout::Contiguous;
constexpr auto kI = TridiagLayout::Interleaved;

}  // namespace

TEST_SUITE("unit") {

TEST_CASE("tridiag plan: the plans kernels_cu/tridiag.cu made for these shapes") {
  SUBCASE("double CR+PCR, 64 contiguous systems of 100: staged, one block of 10 systems") {
    const tri::Plan p = tri::make_plan(shape(8, TridiagAlgo::CrPcr, kC, 100, 64));
    CHECK(p.kern == tri::Kern::Cr);
    CHECK(p.staged);
    CHECK(p.M == 4);
    CHECK(p.P == 25);
    CHECK(p.G == 10);
    CHECK(p.stop == 128);
    CHECK(p.threads == 250);
    CHECK(p.grid == 7);
    CHECK(p.smem == 52016);
    CHECK(p.K == 1);
    CHECK(p.npass == 0);
    CHECK(p.scratch == 0);
    CHECK(p.mcap == 100);
  }
  SUBCASE("float Thomas, 1000 interleaved systems of 5000 on 132 SMs: blocks of 32, spread over the SMs") {
    const tri::Plan p = tri::make_plan(shape(4, TridiagAlgo::Thomas, kI, 5000, 1000));
    CHECK(p.kern == tri::Kern::ThomasDirect);
    CHECK(p.threads == 32);
    CHECK(p.grid == 32);
    CHECK(p.smem == 0);
    CHECK(p.scratch == 5000000);
    CHECK(p.mcap == 5000);
  }
  SUBCASE("double CR, one contiguous system of 2^20: 512 subsystems after three global passes") {
    const tri::Plan p = tri::make_plan(shape(8, TridiagAlgo::CR, kC, 1 << 20, 1));
    CHECK(p.kern == tri::Kern::Cr);
    CHECK_FALSE(p.staged);
    CHECK(p.M == 8);
    CHECK(p.P == 256);
    CHECK(p.G == 2);
    CHECK(p.K == 512);
    REQUIRE(p.npass == 3);
    CHECK(p.pass[0].s0 == 1);
    CHECK(p.pass[0].k == 7);
    CHECK(p.pass[0].R == 514);
    CHECK(p.pass[1].s0 == 128);
    CHECK(p.pass[1].R == 512);
    CHECK(p.pass[2].s0 == 256);
    CHECK(p.pass[2].R == 0);  // one level, one equation per thread
    CHECK(p.threads == 512);
    CHECK(p.grid == 256);
    CHECK(p.smem == 49152);
    CHECK(p.scratch == 8u * (1u << 20));
    CHECK(p.mcap == 2048);
    CHECK(p.view.count == 512);
  }
  SUBCASE("float PCR, 41 interleaved systems of 100001 with 48 KB: 1024 subsystems") {
    const tri::Plan p = tri::make_plan(shape(4, TridiagAlgo::PCR, kI, 100001, 41, 48 * 1024));
    CHECK(p.kern == tri::Kern::Pcr);
    CHECK(p.M == 4);
    CHECK(p.P == 32);
    CHECK(p.G == 16);
    CHECK(p.K == 1024);
    CHECK(p.npass == 6);
    CHECK(p.threads == 512);
    CHECK(p.grid == 2624);
    CHECK(p.smem == 25088);
    CHECK(p.scratch == 32800328);
    CHECK(p.mcap == 98);
  }
  SUBCASE("double PCR+Thomas, 64 interleaved systems of 16384: one tiled pass of three levels") {
    const tri::Plan p = tri::make_plan(shape(8, TridiagAlgo::PcrThomas, kI, 16384, 64));
    CHECK(p.kern == tri::Kern::Pcr);
    CHECK(p.M == 8);
    CHECK(p.K == 8);
    REQUIRE(p.npass == 1);
    CHECK(p.pass[0].k == 3);
    CHECK(p.pass[0].R == 82);
    CHECK(p.smem == 131072);
    CHECK(p.scratch == 4u * 16384 * 64);
  }
  SUBCASE("float CR+PCR, 6144 contiguous systems of 257 on one SM with 48 KB") {
    const tri::Plan p = tri::make_plan(shape(4, TridiagAlgo::CrPcr, kC, 257, 6144, 48 * 1024, 1));
    CHECK(p.M == 8);
    CHECK(p.P == 33);
    CHECK(p.G == 7);
    CHECK(p.threads == 231);
    CHECK(p.grid == 878);
    CHECK(p.smem == 40784);
  }
  SUBCASE("tuning: CR+PCR's stop, and a forced configuration that does not fit") {
    tri::Shape s = shape(8, TridiagAlgo::CrPcr, kC, 100, 64);
    s.tune.stop = 32;
    CHECK(tri::make_plan(s).stop == 32);
    tri::Shape f = shape(8, TridiagAlgo::CR, kC, 5000, 64);
    f.tune = {8, 4, 1, 0};
    CHECK_THROWS_AS(tri::make_plan(f), BackendError);
  }
}

TEST_CASE("tridiag plan: every plan fits the kernels it names and covers every (sub)system") {
  for (std::size_t vb : {4, 8})
    for (TridiagAlgo algo : tridiag_algos())
      for (TridiagLayout layout : {kC, kI})
        for (std::size_t n : {2, 33, 255, 513, 4096, 100001})
          for (std::size_t batch : {1, 64, 6144})
            for (std::size_t smem : {48 * 1024, 227 * 1024}) {
              const tri::Shape s = shape(vb, algo, layout, n, batch, smem);
              CAPTURE(vb);
              const std::string what = std::string(to_string(algo)) + " " + to_string(layout);
              CAPTURE(what);
              CAPTURE(n);
              CAPTURE(batch);
              CAPTURE(smem);
              const tri::Plan p = tri::make_plan(s);
              CHECK(p.smem <= std::max<std::size_t>(smem, tri::tiled_smem_bytes(vb)));
              if (algo == TridiagAlgo::Thomas) {  // a thread per system
                CHECK(p.grid * static_cast<std::size_t>(p.threads) >= batch);
                CHECK(p.threads <= tri::kThomasBlock);
                CHECK(p.scratch == n * batch);
                continue;
              }
              CHECK(p.grid * static_cast<std::size_t>(p.G) >= p.view.count);  // G (sub)systems a block
              CHECK(p.threads == p.G * p.P);
              CHECK(p.threads <= tri::cr_max_threads(vb, p.M, p.staged));
              CHECK(static_cast<std::size_t>(p.M) * p.P >= static_cast<std::size_t>(p.mcap));
              CHECK(p.mcap == static_cast<int>((n + p.K - 1) / p.K));
              int levels = 0;
              for (int i = 0; i < p.npass; ++i) {
                CHECK(p.pass[i].s0 == 1 << levels);
                levels += p.pass[i].k;
              }
              CHECK((1u << levels) == p.K);
              CHECK(p.scratch == (p.npass == 0 ? 0 : (p.npass == 1 ? 4 : 8) * n * batch));
              // the cache answers the same
              const tri::Plan q = tri::plan_of(s);
              CHECK(q.M == p.M);
              CHECK(q.K == p.K);
              CHECK(q.grid == p.grid);
              CHECK(tri::describe(q, vb) == tri::describe(p, vb));
            }
}

TEST_CASE("tridiag plan: Auto is Thomas only for long interleaved systems in large batches") {
  CHECK(tri::auto_algo(kI, 4096, 6144) == TridiagAlgo::Thomas);
  CHECK(tri::auto_algo(kI, 4095, 6144) == TridiagAlgo::CrPcr);
  CHECK(tri::auto_algo(kI, 4096, 6143) == TridiagAlgo::CrPcr);
  CHECK(tri::auto_algo(kC, 100000, 100000) == TridiagAlgo::CrPcr);
}

}  // TEST_SUITE("unit")
