// Extreme but accepted values (issue 24): every model has a smallest step and stops below it with
// the reason, a run that could not reach its end within time.max_steps is refused or stopped,
// and the progress line's estimate prints in words, never as a 150-digit number.
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <cstdio>
#include <cstring>
#include <regex>
#include <sstream>
#include <string>
#include <thread>

#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/run/driver.hpp"
#include "core/run/registry.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

// the error a case gives when it is read and run to its end on `be` (empty when it runs through)
std::string run_error(Backend& be, const std::string& text, const std::vector<std::string>& sets, long* steps = nullptr) {
  auto cf = io::CaseFile::parse(text, "test");
  for (const auto& s : sets) cf.set(s);
  try {
    auto m = make_model(cf, be, Precision::Double);
    cf.check_all_used();
    OutputOptions off;
    off.enabled = false;
    try {
      run_model(*m, off, false);
    } catch (...) {
      if (steps) *steps = m->steps();
      throw;
    }
  } catch (const Error& e) {
    return e.what();
  }
  return "";
}

// sleeps past the progress line's second after step 1, ends the run after step `last`
struct ThrowAfter : Observer {
  long last;
  explicit ThrowAfter(long k) : last(k) {}
  void step(const Model& m) override {
    if (m.steps() == 1) std::this_thread::sleep_for(std::chrono::milliseconds(1100));
    if (m.steps() == last) throw Error("stopped by the test");
  }
};

// takes 1 % of the water of bl1d's interior points away after step k, as a lost flux would
struct LoseWater : Observer {
  long at;
  explicit LoseWater(long k) : at(k) {}
  void step(const Model& m) override {
    if (m.steps() != at) return;
    ModelState s;
    m.state().save(s);
    StateArray a = s.arrays().at("saturation");
    std::vector<double> v(a.count());
    REQUIRE(a.type == StateType::Double);
    std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
    for (std::size_t i = 1; i + 1 < v.size(); ++i) v[i] *= 0.99;
    std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
    s.insert("saturation", a);
    m.state().load(s);
  }
};

}  // namespace

TEST_SUITE("model") {

TEST_CASE("bl1d: the water balance closes past breakthrough in float and double, and a lost flux stops the run") {
  for_each_backend([](Backend& be) {
    for (auto prec : {Precision::Double, Precision::Float}) {
      INFO(to_string(prec));
      auto cf = io::CaseFile::parse("model = \"bl1d\"\n[grid]\npoints = 41\n[time]\nend = 120.0\n[pressure]\nsolver = \"tridiag\"\n", "test");
      auto m = make_model(cf, be, prec);
      OutputOptions off;
      off.enabled = false;
      const auto r = run_model(*m, off, false);
      CHECK(r.stats.at("water_produced") > 0.01);  // past breakthrough: water leaves through the producer
      CHECK(r.stats.at("water_balance_rel_error") <= (prec == Precision::Float ? 1e-5 : 1e-13));
    }
    auto cf = io::CaseFile::parse("model = \"bl1d\"\n[grid]\npoints = 41\n[time]\nend = 20.0\n", "test");
    auto m = make_model(cf, be, Precision::Double);
    Observers obs;
    obs.push_back(std::make_unique<LoseWater>(3));
    OutputOptions off;
    off.enabled = false;
    CHECK_THROWS_WITH_AS(run_model(*m, obs, off, false), doctest::Contains("(t = 20): the water balance does not close"),
                         NumericalError);
  });
}

TEST_CASE("bl1d: a step the CFL limit sets below the smallest step stops the run at once, saying why") {
  for_each_backend([](Backend& be) {
    const std::string bl = "model = \"bl1d\"\n[grid]\npoints = 21\n[time]\nmax_steps = 1000\n";
    // boundary.p_inj = 1e308 ran 120 s at dt = 5e-309; a tiny porosity did the same
    long steps = -1;
    const std::string p = run_error(be, bl, {"boundary.p_inj=1e308"}, &steps);
    CHECK(p.find("step 1 (t = 0): the CFL limit (time.cfl = 0.5, max |u| = ") != std::string::npos);
    CHECK(p.find("below the smallest step 0.06 (time.end / time.max_steps") != std::string::npos);
    CHECK(steps == 0);  // the first step is not taken
    const std::string m = run_error(be, bl, {"rock.porosity=1e-300", "time.dt_min=0.001"});
    CHECK(m.find("rock.porosity = 1e-300") != std::string::npos);
    CHECK(m.find("below the smallest step 0.001 (time.dt_min)") != std::string::npos);
    // time.end = 1e308: no step the CFL limit allows can get there within time.max_steps
    CHECK(run_error(be, bl, {"time.end=1e308"}).find("below the smallest step 1e+305") != std::string::npos);
    // the last step before a stop is shortened to meet it, however short: not a reason to stop
    CHECK(run_error(be, bl, {"time.end=60.000000001"}) == "");
  });
}

TEST_CASE("adi2d: a run past time.max_steps is refused, a transport substep below the smallest stops the run") {
  for_each_backend([](Backend& be) {
    const std::string adi = "model = \"adi2d\"\n[grid]\npoints = 9\n[time]\nend = 0.003\n";
    CHECK(run_error(be, adi, {"time.end=1e308"})
              .find("time.max_steps = 10000000 is fewer than the more than 1e+308 steps of time.dt = 0.001 to time.end = 1e+308") !=
          std::string::npos);
    CHECK(run_error(be, adi, {"time.max_steps=2"}).find("time.max_steps = 2 is fewer than the 3 steps") != std::string::npos);
    // a CFL limit far below the step: 100000 substeps ran before the run stopped
    const std::string s = run_error(be, adi, {"time.cfl=1e-12"});
    CHECK(s.find("step 1 (t = 0): the CFL limit of the transport (time.cfl = 1e-12") != std::string::npos);
    CHECK(s.find("below the smallest substep time.dt / time.max_substeps = 1e-08") != std::string::npos);
    CHECK(run_error(be, adi, {}) == "");
  });
}

TEST_CASE("impes3d: a run that cannot end within time.max_steps even at time.dt_max is refused") {
  for_each_backend([](Backend& be) {
    const std::string imp =
        "model = \"impes3d\"\n[grid]\nnx = 4\nny = 3\nnz = 2\n[[wells]]\nname = \"P\"\ni = 1\nj = 1\ncontrol = \"bhp\"\nbhp = 50.0\n";
    // time.end = 1e308 also overflowed its report times (end x r / reports) to infinity
    CHECK(run_error(be, imp, {"time.end=1e308"})
              .find("time.max_steps = 10000000 is fewer than the 3.33e+306 steps of time.dt_max = 30 days to the run's end at day 1e+308") !=
          std::string::npos);
    CHECK(run_error(be, imp, {"time.end=100", "time.max_steps=3"}).find("time.max_steps = 3 is fewer than the 4 steps") !=
          std::string::npos);
    // within the bound at dt_max, but the steps the run takes are smaller: stopped when it is reached
    CHECK(run_error(be, imp, {"time.end=100", "time.max_steps=5"}).find("time.max_steps = 5 reached at t = ") != std::string::npos);
  });
}

TEST_CASE("output: the steps and the answer do not depend on whether or how often output is written") {
  // --no-output changed bl1d's answer: the snapshot times cut the CFL steps (43 steps at 21 points
  // instead of 40); adi2d's fixed steps were cut the same way
  for_each_backend([](Backend& be) {
    const std::string dir = (std::filesystem::temp_directory_path() / ("poreflow_output_" + std::to_string(::getpid()))).string();
    for (const std::string text : {"model = \"bl1d\"\n[grid]\npoints = 21\n",
                                   "model = \"adi2d\"\n[grid]\npoints = 9\n[time]\ndt = 0.0007\nend = 0.01\n"}) {
      INFO(text);
      auto run = [&](int snapshots) {
        auto cf = io::CaseFile::parse(text, "test");
        auto sim = make_simulation(cf, be, Precision::Double);
        OutputOptions out;
        out.enabled = snapshots > 0;
        out.dir = dir;
        out.snapshots = snapshots;
        out.png = false;
        return run_simulation(sim, out, false);
      };
      const RunReport none = run(0), some = run(10), many = run(7);
      CHECK(some.steps == none.steps);
      CHECK(many.steps == none.steps);
      for (std::size_t f = 0; f < none.final_fields.size(); ++f) {
        CHECK(some.final_fields[f].values == none.final_fields[f].values);
        CHECK(many.final_fields[f].values == none.final_fields[f].values);
      }
    }
    std::filesystem::remove_all(dir);
  });
}

TEST_CASE("progress: the estimate of the time left prints in words however far the end") {
  if (isatty(fileno(stderr))) return;  // the line then goes to the terminal, not the log
  auto& be = reference();
  // a run at its first steps towards time.end = 1e300: ~1e300 s left printed as 301 digits
  auto cf = io::CaseFile::parse("model = \"bl1d\"\n[grid]\npoints = 11\n[time]\nend = 1e300\ndt_min = 1e-300\n", "test");
  auto m = make_model(cf, be, Precision::Double);
  std::ostringstream log;
  auto logger = spdlog::default_logger();
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(log);
  logger->sinks().push_back(sink);
  const auto level = logger->level();
  logger->set_level(spdlog::level::info);
  Observers obs;
  obs.push_back(std::make_unique<ThrowAfter>(2));
  OutputOptions off;
  off.enabled = false;
  CHECK_THROWS_WITH_AS(run_model(*m, obs, off, true), "stopped by the test", Error);
  logger->sinks().pop_back();
  logger->set_level(level);
  const std::string text = log.str();
  INFO(text);
  CHECK(text.find("step 1  t = ") != std::string::npos);
  CHECK(text.find("elapsed, ~more than a million years left") != std::string::npos);
  CHECK_FALSE(std::regex_search(text, std::regex("[0-9]{16}")));
}

}  // TEST_SUITE
