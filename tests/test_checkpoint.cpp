// Checkpoints and restart: a model stopped after some steps, saved, rebuilt from its case, loaded
// and run on ends bit-identical to a run that never stopped (every model, both precisions, every
// backend under test); through the driver, an interrupted and restarted run writes the same CSV
// series, collection and snapshots; checkpoints of another case, precision or a damaged file are
// refused with a message naming them.
#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/io/checkpoint.hpp"
#include "core/io/csv.hpp"
#include "core/run/registry.hpp"
#include "core/run/interrupt.hpp"
#include "core/models/state.hpp"
#include "tests/harness.hpp"
#include "tests/stop_after.hpp"

using namespace poreflow;
using namespace poreflow::test;
namespace fs = std::filesystem;

namespace {

constexpr int kCheckpointFormatForTest = io::kCheckpointFormat + 1;

struct Spec {
  const char* name;
  const char* file;  // under cases/
  std::vector<std::string> sets;
  const char* extra = "";  // TOML appended to the file
};

// small enough for PoCL, long enough for a state that has moved away from its initial one; the
// impes3d case changes a well's control halfway (the schedule's position is state too)
const std::vector<Spec>& specs() {
  static const std::vector<Spec> s = {
      {"bl1d", "buckley_leverett.toml", {"grid.points=41", "time.end=6"}},
      {"bl1d tridiag", "buckley_leverett.toml", {"grid.points=41", "time.end=6", "pressure.solver=\"tridiag\""}},
      {"adi2d", "adi2d.toml", {"grid.points=17", "time.end=0.008"}},
      {"impes3d",
       "impes_case1.toml",
       {"grid.nx=10", "grid.ny=10", "grid.nz=3", "time.end=60", "time.reports=6"},
       "\n[[schedule]]\ntime = 25.0\nwell = \"PROD\"\ncontrol = \"bhp\"\nbhp = 60.0\n"},
      // the fully implicit scheme: its wells' BHPs and controls and its reused AMG are state too
      {"impes3d fim",
       "impes_case1.toml",
       {"grid.nx=10", "grid.ny=10", "grid.nz=3", "time.end=60", "time.reports=6", "scheme=\"fim\"", "time.dt_max=5"},
       "\n[[schedule]]\ntime = 25.0\nwell = \"PROD\"\ncontrol = \"bhp\"\nbhp = 60.0\n"},
      // the same with the pressure AMG in float (its copy of the pressure matrix rebuilt on load)
      {"impes3d fim float AMG",
       "impes_case1.toml",
       {"grid.nx=10", "grid.ny=10", "grid.nz=3", "time.end=60", "time.reports=6", "scheme=\"fim\"", "time.dt_max=5",
        "linear.amg_float=true"},
       "\n[[schedule]]\ntime = 25.0\nwell = \"PROD\"\ncontrol = \"bhp\"\nbhp = 60.0\n"},
      // the sources stop at step 10: the restart at step 7 crosses that
      {"fluids3d", "fluids3d.toml", {"grid.n=12", "time.steps=14"}},
  };
  return s;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

io::CaseFile load(const Spec& s) {
  auto cf = io::CaseFile::parse(read_text(fs::path(POREFLOW_SOURCE_DIR) / "cases" / s.file) + s.extra, s.file);
  for (const auto& x : s.sets) cf.set(x);
  return cf;
}

std::unique_ptr<Model> build(Backend& be, Precision prec, const Spec& s) {
  auto cf = load(s);
  (void)read_output_options(cf);  // the driver's keys, read by the run
  (void)cf.get_string("precision", "");  // the case's own precision (fluids3d): the test sets it
  auto m = make_model(cf, be, prec);
  cf.check_all_used();
  return m;
}

long run_steps(Model& m, long n) {
  long done = 0;
  while (done < n && m.time() < m.end_time() * (1 - 1e-12)) {
    m.step(m.end_time());
    ++done;
  }
  return done;
}

// every entry of two states bit for bit, but the wall-clock seconds
void check_same_state(const ModelState& a, const ModelState& b) {
  REQUIRE(a.arrays().size() == b.arrays().size());
  for (const auto& entry : a.arrays()) {
    const std::string& name = entry.first;  // (not a structured binding: clang 14's CAPTURE lambdas cannot see one)
    const StateArray& x = entry.second;
    if (name.rfind("seconds", 0) == 0) continue;  // wall-clock seconds
    CAPTURE(name);
    REQUIRE(b.has(name));
    const StateArray& y = b.arrays().at(name);
    CHECK(x.type == y.type);
    REQUIRE(x.bytes.size() == y.bytes.size());
    CHECK(std::memcmp(x.bytes.data(), y.bytes.data(), x.bytes.size()) == 0);
  }
}

fs::path temp_dir(const std::string& tag) {
  auto d = fs::temp_directory_path() / ("poreflow_ckpt_" + tag + "_" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

Simulation build_simulation(Backend& be, Precision prec, const Spec& s) {
  auto cf = load(s);
  (void)read_output_options(cf);
  (void)cf.get_string("precision", "");
  auto sim = make_simulation(cf, be, prec);
  cf.check_all_used();
  return sim;
}

}  // namespace

TEST_SUITE("model") {
TEST_CASE("checkpoint: a restarted model ends bit-identical to one that never stopped (every model)") {
  for_each_backend([](Backend& be) {
    for (Precision prec : {Precision::Double, Precision::Float}) {
      if (!be.supports(prec)) continue;
      for (const auto& s : specs()) {
        CAPTURE(std::string(s.name));
        CAPTURE(std::string(to_string(prec)));
        auto whole = build(be, prec, s);
        const long n = run_steps(*whole, 1L << 30);
        REQUIRE(n >= 4);
        const long k = n / 2;

        auto first = build(be, prec, s);
        REQUIRE(run_steps(*first, k) == k);
        io::Checkpoint ck;
        first->state().save(ck.model_state);
        first.reset();
        if (io::checkpoints_supported()) {  // through the file as well
          const auto dir = temp_dir("model");
          ck.model = s.name;
          io::write_checkpoint(dir / "c.h5", ck);
          const auto back = io::read_checkpoint(dir / "c.h5");
          check_same_state(ck.model_state, back.model_state);
          ck.model_state = back.model_state;
          fs::remove_all(dir);
        }
        auto second = build(be, prec, s);
        second->state().load(ck.model_state);
        CHECK(second->steps() == k);
        CHECK(run_steps(*second, 1L << 30) == n - k);

        ModelState a, b;
        whole->state().save(a);
        second->state().save(b);
        check_same_state(a, b);
        const auto fa = whole->fields(), fb = second->fields();
        REQUIRE(fa.size() == fb.size());
        for (std::size_t f = 0; f < fa.size(); ++f) {
          CAPTURE(fa[f].name);
          CHECK(fa[f].values == fb[f].values);
        }
        CHECK(whole->series_row() == second->series_row());
      }
    }
  });
}

TEST_CASE("checkpoint: an interrupted run restarted through the driver writes the same series, collection and fields") {
  if (!io::checkpoints_supported()) return;
  for_each_backend([](Backend& be) {
    for (const auto& s : specs()) {
      CAPTURE(std::string(s.name));
      const auto dir = temp_dir(std::string("driver_") + be.name());
      OutputOptions out;
      out.png = false;
      out.snapshots = 3;
      CheckpointOptions ck;
      ck.identity.case_text = load(s).canonical_text();
      ck.identity.case_source = s.file;
      ck.identity.backend = be.name();
      ck.identity.precision = "double";

      out.dir = dir / "whole";
      auto whole_sim = build_simulation(be, Precision::Double, s);
      const Model* whole = whole_sim.model.get();
      const RunReport ra = run_simulation(whole_sim, out, false, ck);
      const long n = ra.steps;
      REQUIRE(n >= 4);

      // stopped after step k as by SIGTERM, with periodic checkpoints before it
      out.dir = dir / "parts";
      ck.file = dir / "parts" / "checkpoint.h5";
      ck.handle_signals = true;
      ck.every = whole->end_time() / 5;
      auto first = build_simulation(be, Precision::Double, s);
      Observers obs = first.outputs(out);
      obs.push_back(std::make_unique<StopAfter>(n / 2 + 1));
      const RunReport r1 = run_model(*first.model, obs, out, false, ck);
      CHECK(r1.interrupted == SIGTERM);
      CHECK(r1.steps == n / 2 + 1);
      REQUIRE(r1.checkpoint == ck.file);
      CHECK(r1.checkpoint_bytes > 0);
      // a run killed after its checkpoint may leave a row behind it: the restart drops it
      std::ofstream(out.dir / (whole->name() + "_series.csv"), std::ios::app) << "9,9,9\n";
      // the fully implicit scheme's Krylov solves (linear_solves.csv), a row past the checkpoint too
      const bool krylov = std::string(s.name).find("fim") != std::string::npos;
      CHECK(fs::exists(out.dir / "linear_solves.csv") == krylov);
      if (krylov) std::ofstream(out.dir / "linear_solves.csv", std::ios::app) << "9,9,9,9,9,9\n";

      const io::Checkpoint c = io::read_checkpoint(ck.file);
      CHECK(c.steps == n / 2 + 1);
      check_restart(c, ck.identity, ck.file);
      ck.restart = &c;
      auto second = build_simulation(be, Precision::Double, s);
      const RunReport r2 = run_simulation(second, out, false, ck);
      CHECK(r2.interrupted == 0);
      CHECK(r2.steps == n);
      CHECK(fs::exists(ck.file));  // the end's checkpoint

      for (const char* f : {"_series.csv", ".pvd"}) {
        CAPTURE(f);
        const std::string name = whole->name() + f;
        CHECK(read_text(dir / "whole" / name) == read_text(dir / "parts" / name));
      }
      if (krylov) {
        CHECK(read_text(dir / "whole" / "linear_solves.csv") == read_text(dir / "parts" / "linear_solves.csv"));
        CHECK(read_text(dir / "whole" / "linear_solves.csv").size() > 1000);
      }
      for (const auto& e : fs::directory_iterator(dir / "whole")) {
        const auto ext = e.path().extension();
        if (ext != ".vti" && ext != ".vtu") continue;
        CAPTURE(e.path().filename().string());
        CHECK(read_text(e.path()) == read_text(dir / "parts" / e.path().filename()));
      }
      REQUIRE(ra.final_fields.size() == r2.final_fields.size());
      for (std::size_t f = 0; f < ra.final_fields.size(); ++f) CHECK(ra.final_fields[f].values == r2.final_fields[f].values);
      fs::remove_all(dir);
    }
  });
}
}  // TEST_SUITE

TEST_CASE("checkpoint: the case text is the case after its overrides, in a fixed order") {
  auto a = io::CaseFile::parse("model = \"bl1d\"\n[grid]\npoints = 41\n[time]\nend = 6.0\n", "a");
  auto b = io::CaseFile::parse("[time]\nend = 6.0\n[grid]\npoints = 11\n", "b");
  b.set("model=\"bl1d\"");
  CHECK(a.canonical_text() != b.canonical_text());
  b.set("grid.points=41");
  CHECK(a.canonical_text() == b.canonical_text());
  CHECK(a.canonical_text() == "grid.points = 41\nmodel = 'bl1d'\ntime.end = 6.0\n");
  // one line a key, however long its table (so a difference names its key)
  a.set("fluid.pvdo=[[5.0, 1.062, 5.6], [20.0, 1.058, 5.8], [40.0, 1.053, 6.05], [60.0, 1.049, 6.3], [80.0, 1.045, 6.55]]");
  const auto text = a.canonical_text();
  CHECK(text.rfind("fluid.pvdo = [[5.0, 1.062", 0) == 0);
  CHECK(std::count(text.begin(), text.end(), '\n') == 4);
}

TEST_CASE("checkpoint: another case or precision is refused, another backend allowed") {
  io::Checkpoint was, now;
  was.case_text = "grid.points = 41\nmodel = 'bl1d'\n";
  was.case_source = "cases/buckley_leverett.toml";
  was.precision = now.precision = "double";
  was.backend = "omp";
  now.backend = "serial";
  now.case_text = was.case_text;
  CHECK_NOTHROW(check_restart(was, now, "c.h5"));
  now.case_text = "grid.points = 401\nmodel = 'bl1d'\n";
  CHECK_THROWS_WITH_AS(check_restart(was, now, "c.h5"),
                       doctest::Contains("checkpoint 'c.h5' was written for a different case (cases/buckley_leverett.toml): "
                                         "grid.points = 41 there, 401 here"),
                       ConfigError);
  now.case_text = was.case_text;
  now.precision = "float";
  CHECK_THROWS_WITH_AS(check_restart(was, now, "c.h5"), doctest::Contains("written in precision double"), ConfigError);
}

TEST_CASE("checkpoint: a missing, foreign or damaged file is refused with its name") {
  if (!io::checkpoints_supported()) {
    CHECK_THROWS_WITH_AS(io::read_checkpoint("x.h5"), doctest::Contains("built without checkpoint support (HDF5)"), ConfigError);
    return;
  }
  const auto dir = temp_dir("bad");
  CHECK_THROWS_WITH_AS(io::read_checkpoint(dir / "none.h5"), doctest::Contains("does not exist"), ConfigError);
  std::ofstream(dir / "text.h5") << "model = \"bl1d\"\n";
  CHECK_THROWS_WITH_AS(io::read_checkpoint(dir / "text.h5"), doctest::Contains("is not an HDF5 file"), ConfigError);

  // a real checkpoint, then cut short and with a flipped byte in its data
  auto model = build(reference(), Precision::Double, specs()[0]);
  run_steps(*model, 3);
  io::Checkpoint c;
  c.model = model->name();
  model->state().save(c.model_state);
  const auto good = dir / "good.h5";
  io::write_checkpoint(good, c);
  CHECK_FALSE(fs::exists(dir / "good.h5.tmp"));
  CHECK(io::read_checkpoint(good).model_state.arrays().size() == c.model_state.arrays().size());
  const std::string bytes = read_text(good);
  std::ofstream(dir / "cut.h5", std::ios::binary) << bytes.substr(0, bytes.size() / 2);
  CHECK_THROWS_WITH_AS(io::read_checkpoint(dir / "cut.h5"), doctest::Contains("cut.h5' "), ConfigError);
  // the pressure's values, found by their bytes, changed in one place: its checksum fails
  std::vector<double> p = c.model_state.doubles("pressure");
  std::string raw(reinterpret_cast<const char*>(p.data()), p.size() * 8);
  const auto at = bytes.find(raw);
  REQUIRE(at != std::string::npos);
  std::string flipped = bytes;
  flipped[at + 100] ^= 0x10;
  std::ofstream(dir / "flipped.h5", std::ios::binary) << flipped;
  CHECK_THROWS_WITH_AS(io::read_checkpoint(dir / "flipped.h5"), doctest::Contains("is damaged: 'model/pressure'"), ConfigError);
  // a format this poreflow does not read
  c.format = kCheckpointFormatForTest;
  io::write_checkpoint(dir / "future.h5", c);
  const std::string future = "has format " + std::to_string(kCheckpointFormatForTest);
  CHECK_THROWS_WITH_AS(io::read_checkpoint(dir / "future.h5"), doctest::Contains(future.c_str()), ConfigError);
  fs::remove_all(dir);
}

TEST_CASE("checkpoint: a CSV series continues after the checkpoint's row, or is refused naming the file") {
  const auto dir = temp_dir("csv");
  const auto file = dir / "s.csv";
  {
    io::CsvWriter w(file, {"t", "x"});
    for (double t : {0.0, 1.0, 2.0}) w.row({t, 10 * t});
  }
  // the checkpoint was written after row 2; row 3 came later and goes
  {
    auto w = io::CsvWriter::resume(file, {"t", "x"}, 2, {1.0, 10.0});
    CHECK(w.rows() == 2);
    w.row({2.5, 25.0});
  }
  CHECK(read_text(file) == "t,x\n0,0\n1,10\n2.5,25\n");
  CHECK_THROWS_WITH_AS(io::CsvWriter::resume(file, {"t", "x"}, 2, {1.0, 11.0}),
                       doctest::Contains("its row 2 is not the one the checkpoint recorded"), ConfigError);
  CHECK_THROWS_WITH_AS(io::CsvWriter::resume(file, {"t", "x"}, 5, {1.0, 10.0}),
                       doctest::Contains("it has 3 complete rows, the checkpoint was written after row 5"), ConfigError);
  const std::string header = "'" + file.string() + "': its header is not the one this run writes";
  CHECK_THROWS_WITH_AS(io::CsvWriter::resume(file, {"t", "y"}, 2, {1.0, 10.0}), doctest::Contains(header.c_str()), ConfigError);
  fs::remove_all(dir);
}
