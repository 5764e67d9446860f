// impes3d over several processes (docs/mpi.md) against the run of one: every process runs the
// whole case alone (the self communicator) and its box with the others, then process 0 compares
// the gathered fields, the wells' results and the series. With CG + Jacobi the pressure solve is
// the same however the grid is cut (its dot products are summed in another order), so the runs
// agree to rounding; with AMG per process they agree to the solver's tolerance. Red-black SOR
// exchanges its ghosts after each colour and cuts at even indices: the same iterates as one
// process, to rounding.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <map>
#include <set>
#include <cmath>
#include <string>
#include <vector>

#include <unistd.h>

#include <filesystem>

#include "core/io/case_file.hpp"
#include "core/io/cases/impes_input_wire.hpp"
#include "core/io/checkpoint.hpp"
#include "core/io/outputs/model_outputs.hpp"
#include "core/io/cases/cases.hpp"
#include "core/models/impes3d.hpp"
#include "core/run/driver.hpp"
#include "tests/harness.hpp"
#include "tests/mpi/mpi_harness.hpp"
#include "tests/vtu_reader.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

// a heterogeneous reservoir with gravity and capillary pressure, holes, a rate injector, a BHP
// producer shut for a while, and (added in code) a deviated producer across the middle of the grid
const char* kCase = R"(
model = "impes3d"
[grid]
nx = 23
ny = 19
nz = 5
lx = 460.0
ly = 380.0
lz = 20.0
top = 2000.0
inactive = [[5, 5, 1], [5, 5, 2], [17, 3, 4], [9, 14, 5]]
[rock]
compressibility = 5e-5
p_ref = 200.0
[rock.generate]
seed = 7
kh = [20.0, 2000.0]
kv = [2.0, 200.0]
[fluid]
rho_water = 1000.0
rho_oil = 800.0
pvtw = [200.0, 1.01, 4.5e-5, 0.5, 0.0]
pvdo = [[50.0, 1.215, 1.10], [200.0, 1.200, 1.15], [400.0, 1.182, 1.25]]
[fluid.corey]
swc = 0.15
sor = 0.2
nw = 2.0
no = 2.0
krw_max = 0.6
kro_max = 1.0
pc_max = 0.5
[initial]
pressure = 200.0
datum_depth = 2000.0
sw = 0.15
[[wells]]
name = "INJ"
type = "injector"
i = 2
j = 3
control = "rate"
rate = 300.0
bhp = 400.0
[[wells]]
name = "PROD"
type = "producer"
i = 22
j = 17
control = "bhp"
bhp = 150.0
[[schedule]]
time = 5.0
well = "PROD"
open = false
[[schedule]]
time = 9.0
well = "PROD"
open = true
[[schedule]]
time = 20.0
well = "INJ"
control = "rate"
rate = 500.0
[time]
end = 60.0
reports = 3
dt_init = 0.2
[pressure]
solver = "cg"
)";

struct Outcome {
  std::vector<double> p, sw, series;
  std::vector<ImpesWellResult> wells;
  long steps = 0, iterations = 0;
  double newton = 0;  // the fully implicit scheme's Newton iterations (0 under IMPES)
};

Impes3DConfig config(Backend& be, const std::string& text, const std::vector<std::string>& sets, bool deviated) {
  auto cf = io::CaseFile::parse(text, "mpi-test");
  for (const auto& s : sets) cf.set(s);
  Impes3DConfig cfg = read_impes3d_case(cf, be, Precision::Double).config;
  if (deviated) {
    // completions in columns i = 10 .. 13 (0-based), where two processes' natural cut lies
    ImpesWell w;
    w.name = "DEV";
    w.initial.control = WellControl::Bhp;
    w.initial.bhp = 160;
    for (long i = 10; i <= 13; ++i) w.completions.push_back({i, 9, 1 + (i - 10) % 3, 0, 0.2, 0});
    cfg.input.wells.push_back(w);
  }
  return cfg;
}

Outcome run(Backend& be, const Impes3DConfig& cfg, const Communicator& comm) {
  Impes3D<double> m(be, cfg, comm);
  OutputOptions off;
  off.enabled = false;
  run_model(m, off, false);
  m.before_output(true);
  Outcome o;
  o.p = m.pressure();
  o.sw = m.saturation();
  o.series = m.series_row();
  o.wells = m.wells();
  o.steps = m.steps();
  o.iterations = m.sor_iterations();
  const auto stats = m.final_stats();
  if (stats.count("newton_iterations_total")) o.newton = stats.at("newton_iterations_total");
  return o;
}

double max_rel(const std::vector<double>& a, const std::vector<double>& b, double floor) {
  double e = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i]) / std::max(std::abs(b[i]), floor));
  return e;
}

// the decomposed run against the run of one on this backend; tolerances for the fields (relative,
// with S_w's absolute) and the wells
void compare(Backend& be, const Impes3DConfig& cfg, double tol, bool same_steps, bool same_iterations = true) {
  const Communicator& c = world(be);
  // only process 0 compares: the others would run the same one-process case beside it for nothing
  // (on CI's 2 cores, 4 processes took twice its time)
  const Outcome one = c.rank() == 0 ? run(be, cfg, self_communicator()) : Outcome{};
  const Outcome all = run(be, cfg, c);
  if (c.rank() != 0) {
    CHECK(all.p.empty());  // only process 0 holds the gathered fields
    return;
  }
  REQUIRE(all.p.size() == one.p.size());
  REQUIRE(all.sw.size() == one.sw.size());
  CHECK(max_rel(all.p, one.p, 1.0) <= tol);
  CHECK(max_rel(all.sw, one.sw, 1.0) <= tol);
  if (same_steps) {
    CHECK(all.steps == one.steps);
    if (same_iterations) CHECK(std::abs(all.iterations - one.iterations) <= one.steps);  // within one a step
    // Newton on the global Jacobian: its iterations as one process's (a Jacobian that missed the
    // couplings across a cut would converge, but slower)
    CHECK(std::abs(all.newton - one.newton) <= double(one.steps));
  }
  REQUIRE(all.wells.size() == one.wells.size());
  for (std::size_t w = 0; w < one.wells.size(); ++w) {
    CAPTURE(w);
    const auto &a = all.wells[w], &b = one.wells[w];
    CHECK(a.control == b.control);
    CHECK(std::abs(a.bhp - b.bhp) <= tol * std::max(1.0, std::abs(b.bhp)));
    const double q = std::max({1.0, std::abs(b.oil_total), std::abs(b.water_total), std::abs(b.water_injected)});
    CHECK(std::abs(a.oil_total - b.oil_total) <= tol * q);
    CHECK(std::abs(a.water_total - b.water_total) <= tol * q);
    CHECK(std::abs(a.water_injected - b.water_injected) <= tol * q);
    CHECK(b.oil_total + b.water_total + b.water_injected > 0);  // every well flowed
  }
  // the series row: time, rates, totals, FPR, in place (the iteration count aside)
  REQUIRE(all.series.size() == one.series.size());
  for (std::size_t i = 0; i < one.series.size(); ++i)
    if (i != 14) CHECK(std::abs(all.series[i] - one.series[i]) <= tol * std::max(1.0, std::abs(one.series[i])));
  MESSAGE(be.name(), ": impes3d on ", c.size(), " processes: ", all.steps, " steps, ", all.iterations,
          " linear iterations (one process: ", one.steps, ", ", one.iterations, ")");
}

}  // namespace

TEST_CASE("mpi: impes3d with CG + Jacobi matches the one-process run to rounding; a deviated well stays whole") {
  for_each_backend([](Backend& be) {
    const Impes3DConfig cfg = config(be, kCase, {"pressure.preconditioner=jacobi"}, true);
    // the cut avoids the deviated well's columns 10 .. 13
    const ImpesGeometry geo = build_geometry(cfg.input.grid);
    const Decomposition d = decompose_impes(cfg.input, geo, world(be).size(), false);
    for (int r = 0; r < d.size(); ++r) {
      const RankBox b = d.box(r);
      CHECK((b.i0 + b.nx <= 10 || b.i0 >= 14 || (b.i0 <= 10 && b.i0 + b.nx >= 14)));
    }
    compare(be, cfg, 1e-9, true);
  });
}

TEST_CASE("mpi: impes3d with AMG, per process or with its level across processes, agrees with the one-process run to the solver's tolerance") {
  for_each_backend([](Backend& be) {
    // to day 21: past the schedule's three events
    compare(be, config(be, kCase, {"pressure.preconditioner=amg", "time.end=21"}, true), 1e-4, false);
    compare(be, config(be, kCase, {"pressure.preconditioner=amg", "pressure.amg_across=\"multiplicative\"", "time.end=21"}, true),
            1e-4, false);
  });
}

TEST_CASE("mpi: impes3d with red-black SOR matches the one-process run to rounding (the colours are the grid's)") {
  for_each_backend([](Backend& be) {
    for (const char* design : {"simple", "zline"}) {
      CAPTURE(design);
      const Impes3DConfig cfg =
          config(be, kCase, {"pressure.solver=sor", std::string("pressure.design=") + design, "time.end=6"}, true);
      // every box starts at an even i and j
      const Decomposition d = decompose_impes(cfg.input, build_geometry(cfg.input.grid), world(be).size(), true);
      for (int r = 0; r < d.size(); ++r) CHECK((d.box(r).i0 % 2 == 0 && d.box(r).j0 % 2 == 0));
      compare(be, cfg, 1e-9, true);
    }
  });
}

namespace {

// active cells only in the first three columns of a 9 x 1 x 3 grid (wider from 8 processes on: a
// column a process past the first), a well across all three: the cut cannot fall between them, and
// the processes past the first hold inactive cells only
Impes3DConfig no_active_case(Backend& be, const std::string& text, std::vector<std::string> sets) {
  const int nx = std::max(9, 3 + world(be).size() - 1);
  std::string t = text;
  std::string holes = "inactive = [";
  for (int i = 4; i <= nx; ++i)
    for (int k = 1; k <= 3; ++k) holes += "[" + std::to_string(i) + ", 1, " + std::to_string(k) + "], ";
  holes += "]";
  t.replace(t.find("inactive = ["), t.find('\n', t.find("inactive = [")) - t.find("inactive = ["), holes);
  sets.push_back("grid.nx=" + std::to_string(nx));
  sets.push_back("grid.lx=" + std::to_string(10 * nx));
  for (const char* x : {"grid.ny=1", "grid.nz=3", "grid.ly=10", "grid.lz=6", "wells[0].i=1",
                        "wells[0].j=1", "wells[0].k=[1, 2]", "wells[1].i=3", "wells[1].j=1", "wells[1].k=1"})
    sets.push_back(x);
  Impes3DConfig cfg = config(be, t, sets, false);
  ImpesWell w;
  w.name = "DEV";
  w.initial.control = WellControl::Bhp;
  w.initial.bhp = 160;
  w.completions = {{0, 0, 2, 0, 0.2, 0}, {1, 0, 2, 0, 0.2, 0}, {2, 0, 1, 0, 0.2, 0}};
  cfg.input.wells.push_back(w);
  const Communicator& c = world(be);
  if (c.size() > 1) {
    const Decomposition d = decompose_impes(cfg.input, build_geometry(cfg.input.grid), c.size(), false);
    CHECK(std::count(d.active.begin(), d.active.end(), 0L) == c.size() - 1);
  }
  return cfg;
}

// A decomposed run saves its processes' states (through a file of each process's where checkpoints
// are built in) once half its time has passed, and runs on to the end; a new model loads the states
// and runs to the end too: bit for bit the first (the same processes, the same cut). The first run
// stands for the one that never stopped (one run fewer): saving only reads a model's state
// (state().save is a const member).
void check_restart(Backend& be, const Impes3DConfig& cfg) {
  const Communicator& c = world(be);
  auto until = [](Impes3D<double>& m, double t) {
    long n = 0;
    while (m.time() < t * (1 - 1e-12)) m.step(m.end_time()), ++n;
    return n;
  };
  Impes3D<double> whole(be, cfg, c);
  const long half = until(whole, 0.5 * whole.end_time());
  io::Checkpoint ck;
  ck.model = "impes3d";
  ck.processes = c.size();
  ck.rank = c.rank();
  whole.state().save(ck.model_state);
  if (io::checkpoints_supported()) {  // through this process's file
    const auto dir = std::filesystem::temp_directory_path() / ("poreflow_mpi_ckpt_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const auto file = io::process_file(dir / "c.h5", c.rank(), c.size());
    if (c.size() > 1) CHECK(file.filename().string() == "c.p" + std::to_string(c.rank()) + "of" + std::to_string(c.size()) + ".h5");
    io::write_checkpoint(file, ck);
    const io::Checkpoint back = io::read_checkpoint(file);
    CHECK(back.processes == c.size());
    CHECK(back.rank == c.rank());
    ck.model_state = back.model_state;
    std::filesystem::remove_all(dir);
  }
  const long rest = until(whole, whole.end_time());
  REQUIRE(half >= 2);
  REQUIRE(rest >= 2);
  Impes3D<double> second(be, cfg, c);
  second.state().load(ck.model_state);
  CHECK(second.steps() == half);
  CHECK(until(second, second.end_time()) == rest);
  whole.before_output(true);
  second.before_output(true);
  CHECK(whole.pressure() == second.pressure());
  CHECK(whole.saturation() == second.saturation());
  CHECK(whole.series_row() == second.series_row());
}

}  // namespace

TEST_CASE("mpi: impes3d runs where a process holds no active cell") {
  for_each_backend([](Backend& be) { compare(be, no_active_case(be, kCase, {"pressure.preconditioner=jacobi"}), 1e-9, true); });
}

TEST_CASE("mpi: a decomposed impes3d run restarted from its processes' checkpoints ends as one that never stopped") {
  for_each_backend([](Backend& be) { check_restart(be, config(be, kCase, {"pressure.solver=sor", "time.end=8"}, true)); });
}

namespace {

// The fully implicit scheme cut between processes: its Newton systems are global (the Jacobian's
// products exchange the ghosts, the Krylov dots are summed), CPR's ILU0 and pressure AMG work per
// process (block Jacobi). Newton converged tightly, at a fixed step of a day: the same steps as
// one process, the fields to the Newton tolerance.
const std::vector<std::string> kFimTight = {"scheme=fim",         "newton.cnv=1e-9",  "newton.cnv_relaxed=1e-9", "newton.mb=1e-11",
                                            "newton.wells=1e-10", "linear.tolerance=1e-6", "newton.max_iterations=30",
                                            "time.dt_init=1",     "time.dt_max=1",    "time.end=10"};

// the case without its [pressure] table (IMPES's)
std::string fim_case() {
  std::string t = kCase;
  t.erase(t.find("[pressure]"));
  return t;
}

}  // namespace

TEST_CASE("mpi: the fully implicit scheme with CPR agrees with the one-process run to Newton's tolerance") {
  for_each_backend([](Backend& be) { compare(be, config(be, fim_case(), kFimTight, true), 1e-7, true, false); });
}

TEST_CASE("mpi: the fully implicit scheme runs where a process holds no active cell") {
  for_each_backend([](Backend& be) {
    std::vector<std::string> sets = kFimTight;
    sets.push_back("wells[0].rate=2");
    compare(be, no_active_case(be, fim_case(), sets), 1e-7, true, false);
  });
}

// A step that cannot converge (one Newton iteration, no cut) stops every process with one message,
// the worst cell named by the grid's indices from the process that holds it.
TEST_CASE("mpi: a failed fully implicit step stops every process with the same message, naming the worst cell") {
  for_each_backend([](Backend& be) {
    const Communicator& c = world(be);
    const Impes3DConfig cfg = config(be, fim_case(), {"scheme=fim", "newton.max_iterations=1", "newton.cnv=1e-12",
                                                      "newton.cnv_relaxed=1e-12", "time.max_cuts=0", "time.end=2"}, true);
    std::string why;
    try {
      run(be, cfg, c);
    } catch (const Error& e) {
      why = e.what();
    }
    CHECK(why.find("Newton did not converge") != std::string::npos);
    CHECK(why.find("; the worst cell (") != std::string::npos);
    std::string first = why;
    broadcast_bytes(c, first, 0);
    CHECK(why == first);
    MESSAGE(c.size(), " processes: ", why);
  });
}

TEST_CASE("mpi: a decomposed fully implicit run restarted from its processes' checkpoints ends as one that never stopped") {
  // the pressure AMG restored as it was set up and last refreshed, on every process
  for_each_backend([](Backend& be) { check_restart(be, config(be, fim_case(), {"scheme=fim", "time.end=8"}, true)); });
}

// The PNG map of a decomposed run: process 0 gathers the map's layer alone (gather_plane).
TEST_CASE("mpi: the PNG map's layer is gathered alone, equal to that layer of the whole field") {
  for_each_backend([](Backend& be) {
    const Communicator& c = world(be);
    for (int layer : {0, 3}) {
      CAPTURE(layer);
      Impes3DConfig cfg = config(be, kCase, {"pressure.preconditioner=jacobi", "time.end=3"}, true);
      cfg.map_layer = layer;
      Impes3D<double> cut(be, cfg, c);
      while (cut.time() < cut.end_time() * (1 - 1e-12)) cut.step(cut.end_time());
      cut.before_output(true);  // the whole field, for the reference
      const auto whole = cut.saturation();
      cut.before_output(true, Model::Gather::Maps);
      const auto sw = cut.map_layer_saturation();
      if (c.size() > 1) CHECK(cut.saturation().empty());  // the maps gather their layer, nothing else
      if (c.rank() != 0) {
        CHECK(sw.empty());
        continue;
      }
      const auto& g = cfg.input.grid;
      REQUIRE(sw.size() == std::size_t(g.nx * g.ny));
      long differ = 0;
      for (long j = 0; j < g.ny; ++j)
        for (long i = 0; i < g.nx; ++i) differ += sw[std::size_t(j * g.nx + i)] != whole[g.index(i, j, layer)];
      CHECK(differ == 0);
    }
  });
}

// A decomposed snapshot (docs/mpi.md): every process writes its cells as a .vtu piece from its own
// device, process 0 the .pvtu that names them. The pieces together hold every active cell once,
// with the corners of the one-process file and the values process 0 gathers, bit for bit.
TEST_CASE("mpi: a decomposed snapshot is one .vtu piece a process, tied by process 0's .pvtu") {
  for_each_backend([](Backend& be) {
    const Communicator& c = world(be);
    const Impes3DConfig cfg = config(be, kCase, {"pressure.preconditioner=jacobi", "time.end=3"}, true);
    Impes3D<double> one(be, cfg, self_communicator());
    Impes3D<double> cut(be, cfg, c);
    while (cut.time() < cut.end_time() * (1 - 1e-12)) cut.step(cut.end_time());
    // one folder for every process: process 0's number
    std::int64_t id = ::getpid();
    c.broadcast(&id, sizeof id, 0);
    const auto dir = std::filesystem::temp_directory_path() / ("poreflow_mpi_pieces_" + std::to_string(id));
    std::filesystem::create_directories(dir);
    cut.before_output(true);  // gathers the fields on process 0, as a run's snapshot does
    const std::string file = io::impes3d_snapshot()(cut, dir, "snap");
    // a snapshot without PNG output gathers nothing, and its pieces are the same files
    cut.before_output(true, Model::Gather::Pieces);
    if (c.size() > 1) CHECK(cut.pressure().empty());
    (void)io::impes3d_snapshot()(cut, dir, "bare");
    cut.before_output(true);
    (void)c.any(false);  // every piece written
    if (c.rank() == 0) {
      if (c.size() == 1) {
        CHECK(file == "snap.vtu");
      } else {
        CHECK(file == "snap.pvtu");
        const std::string pvtu = slurp(dir / file);
        const auto sources = tags(pvtu, "Piece");
        REQUIRE(sources.size() == std::size_t(c.size()));
        CHECK(tags(pvtu, "PDataArray").size() == 6);  // pressure, sw, permx, poro, cell_index, Points
        CHECK(io::impes3d_snapshot()(one, dir, "one") == "one.vtu");
        const Vtu whole = read_vtu(dir / "one.vtu");
        const auto wi = whole.arrays.at("CellData/cell_index").as<std::int64_t>();
        const auto wp = whole.arrays.at("Points/Points").as<double>();
        const auto wc = whole.arrays.at("Cells/connectivity").as<std::int64_t>();
        const auto wperm = whole.arrays.at("CellData/permx").as<double>();
        std::map<std::int64_t, std::size_t> at;  // the whole file's row of each cell
        for (std::size_t n = 0; n < wi.size(); ++n) at[wi[n]] = n;
        const auto p = cut.pressure(), sw = cut.saturation();
        std::set<std::int64_t> seen;
        for (int r = 0; r < c.size(); ++r) {
          CAPTURE(r);
          CHECK(attr(sources[std::size_t(r)], "Source") == "snap_piece" + std::to_string(r) + ".vtu");
          CHECK(slurp(dir / ("bare_piece" + std::to_string(r) + ".vtu")) == slurp(dir / ("snap_piece" + std::to_string(r) + ".vtu")));
          const Vtu piece = read_vtu(dir / ("snap_piece" + std::to_string(r) + ".vtu"));
          const auto ci = piece.arrays.at("CellData/cell_index").as<std::int64_t>();
          const auto pp = piece.arrays.at("CellData/pressure").as<double>(), ps = piece.arrays.at("CellData/sw").as<double>();
          const auto perm = piece.arrays.at("CellData/permx").as<double>();
          const auto pts = piece.arrays.at("Points/Points").as<double>();
          const auto con = piece.arrays.at("Cells/connectivity").as<std::int64_t>();
          CHECK(!ci.empty());
          long twice = 0, foreign = 0, values = 0, corners = 0;  // cells that differ, by what
          for (std::size_t n = 0; n < ci.size(); ++n) {
            twice += !seen.insert(ci[n]).second;  // a cell in two pieces
            if (at.count(ci[n]) != 1) {           // no active cell of the grid
              ++foreign;
              continue;
            }
            const std::size_t w = at[ci[n]], cell = std::size_t(ci[n]);
            values += std::bit_cast<std::uint64_t>(pp[n]) != std::bit_cast<std::uint64_t>(p[cell]) ||
                      std::bit_cast<std::uint64_t>(ps[n]) != std::bit_cast<std::uint64_t>(sw[cell]) || perm[n] != wperm[w];
            bool same = true;
            for (std::size_t v = 0; v < 8; ++v)
              for (std::size_t d = 0; d < 3; ++d)
                same = same && pts[3 * std::size_t(con[8 * n + v]) + d] == wp[3 * std::size_t(wc[8 * w + v]) + d];
            corners += !same;
          }
          CHECK(twice == 0);
          CHECK(foreign == 0);
          CHECK(values == 0);
          CHECK(corners == 0);
        }
        CHECK(seen.size() == wi.size());  // every active cell in a piece
      }
    }
    if (c.size() > 1) {
      // a process without an active cell writes an empty piece, named in the .pvtu as the others
      Impes3D<double> holes(be, no_active_case(be, kCase, {"pressure.preconditioner=jacobi"}), c);
      holes.before_output(true, Model::Gather::Pieces);
      (void)io::impes3d_snapshot()(holes, dir, "holes");
      (void)c.any(false);
      if (c.rank() == 0) {
        CHECK(tags(slurp(dir / "holes.pvtu"), "Piece").size() == std::size_t(c.size()));
        for (int r = 0; r < c.size(); ++r) {
          CAPTURE(r);
          const Vtu piece = read_vtu(dir / ("holes_piece" + std::to_string(r) + ".vtu"));
          CHECK(piece.arrays.at("CellData/cell_index").as<std::int64_t>().empty() == (r > 0));
        }
      }
    }
    (void)c.any(false);  // process 0 has read them
    if (c.rank() == 0) std::filesystem::remove_all(dir);
  });
}

// The deck read once (docs/mpi.md): process 0 alone calls the reader, and every process returns
// the input it sent, byte for byte.
TEST_CASE("mpi: a reservoir input read by process 0 alone reaches every process whole") {
  Backend& be = reference();
  const Communicator& c = world(be);
  int reads = 0;
  const ImpesInput in = io::share_impes_input(c, [&] {
    ++reads;
    if (c.rank() != 0) throw Error("process " + std::to_string(c.rank()) + " read the input");
    return config(be, kCase, {}, true).input;
  });
  CHECK(reads == (c.rank() == 0 ? 1 : 0));
  CHECK(in.wells.size() == 3);
  auto mine = io::pack_impes_input(in), first = mine;
  broadcast_bytes(c, first, 0);
  CHECK(mine == first);
}
