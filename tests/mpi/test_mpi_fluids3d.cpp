// fluids3d over several processes (docs/mpi.md) against the run of one: every process runs the
// whole case alone (the self communicator) and its slab with the others, then process 0 compares
// the gathered fields and the series. The grid is cut into slabs along z at even layers, so the
// red-black colours are the grid's; each colour's planes go to the neighbours after its sweep and
// the solves' stops are decided from the combined maxima: the same sweeps as one process, and
// advect's trace reads the neighbours' layers where one process reads its own. The runs agree to
// rounding.
#include <algorithm>
#include <array>
#include <cstdint>
#include <filesystem>
#include <cmath>
#include <string>
#include <vector>

#include <unistd.h>

#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/io/cases/cases.hpp"
#include "core/io/outputs/model_outputs.hpp"
#include "core/models/fluids3d.hpp"
#include "core/run/driver.hpp"
#include "tests/harness.hpp"
#include "tests/mpi/mpi_harness.hpp"
#include "tests/vtu_reader.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

// a density source and a force with an upward (z) part, both on cells next to where two or three
// processes' slabs meet, so sources span slabs and the trace crosses them
const char* kFluidsCase = R"(
model = "fluids3d"
[grid]
n = 26
[time]
dt = 0.04
steps = 6
[fluid]
viscosity = 0.001
diffusion = 0.0005
[solver]
tolerance = 1e-6
max_sweeps = 8
[[sources]]
quantity = "density"
cell = [10, 9, 10]
radius = 2
rate = 500.0
first_step = 0
last_step = 8
[[sources]]
quantity = "force"
cell = [8, 11, 7]
radius = 1
force = [10.0, 20.0, 60.0]
first_step = 0
last_step = 6
[[sources]]
quantity = "force"
cell = [12, 6, 14]
radius = 1
force = [0.0, -5.0, -60.0]
first_step = 1
last_step = 5
)";

// The case for the processes of c: from 5 processes on, the grid grows to 6 layers a process
// (slabs of 4 to 6 layers at even cuts: advect's trace of about 2 cells fits in a neighbour's) and
// dt shrinks with its cells, so a step traces as many cells as on the 26-cell grid.
Fluids3DConfig config(const Communicator& c, const std::vector<std::string>& sets) {
  auto cf = io::CaseFile::parse(kFluidsCase, "mpi-test");
  const int n = std::max(26, 6 * c.size());
  if (n > 26) {
    cf.set("grid.n=" + std::to_string(n));
    cf.set("time.dt=" + std::to_string(0.04 * 26 / n));
  }
  for (const auto& s : sets) cf.set(s);
  return read_fluids3d_config(cf);
}

struct FluidsOutcome {
  std::vector<NamedField> fields;
  std::vector<double> series;
  std::array<FluidsSolveStatus, kFluidsSolves> solves{};
  long exchanges = 0;
  ImagePiece piece;
};

FluidsOutcome run(Backend& be, const Fluids3DConfig& cfg, const Communicator& comm) {
  Fluids3D<double> m(be, cfg, comm);
  OutputOptions off;
  off.enabled = false;
  run_model(m, off, false);
  m.before_output(true);
  FluidsOutcome o;
  o.fields = m.fields();
  o.series = m.series_row();
  o.solves = m.scheme().solve_status();
  o.exchanges = m.scheme().exchanges();
  o.piece = m.image_piece();
  return o;
}

double max_diff(const std::vector<double>& a, const std::vector<double>& b) {
  double e = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) e = std::max(e, std::abs(a[i] - b[i])), scale = std::max(scale, std::abs(b[i]));
  return e / std::max(scale, 1e-300);
}

}  // namespace

TEST_CASE("mpi: fluids3d cut into slabs matches the one-process run to rounding, sweep for sweep") {
  for_each_backend([](Backend& be) {
    const Communicator& c = world(be);
    const Fluids3DConfig cfg = config(c, {});
    const FluidsOutcome one = run(be, cfg, self_communicator());
    const FluidsOutcome all = run(be, cfg, c);
    if (c.size() > 1) CHECK(all.exchanges > 0);
    for (int b = 0; b < kFluidsSolves; ++b) {
      CAPTURE(b);
      CHECK(all.solves[b].sweeps == one.solves[b].sweeps);  // every process decided as one does
      CHECK(all.solves[b].converged == one.solves[b].converged);
    }
    if (c.rank() != 0) {
      CHECK(all.fields.empty());  // only process 0 holds the gathered fields
      return;
    }
    REQUIRE(all.fields.size() == one.fields.size());
    double worst = 0;
    for (std::size_t q = 0; q < one.fields.size(); ++q) {
      CAPTURE(one.fields[q].name);
      REQUIRE(all.fields[q].values.size() == one.fields[q].values.size());
      const double e = max_diff(all.fields[q].values, one.fields[q].values);
      CHECK(e <= 1e-12);
      worst = std::max(worst, e);
    }
    // the velocity moved along z by more than a layer a step somewhere: the trace crossed slabs
    double wmax = 0;
    for (double w : one.fields[3].values) wmax = std::max(wmax, std::abs(w));
    CHECK(wmax * cfg.dt * double(cfg.n) > 1.0);
    REQUIRE(all.series.size() == one.series.size());
    for (std::size_t i = 0; i < one.series.size(); ++i) CHECK(std::abs(all.series[i] - one.series[i]) <= 1e-12 * std::max(1.0, std::abs(one.series[i])));
    MESSAGE(be.name(), ": fluids3d on ", c.size(), " processes: fields within ", worst, " of one process's, ", all.exchanges,
            " exchanges; largest trace ", wmax * cfg.dt * double(cfg.n), " cells along z");
  });
}

TEST_CASE("mpi: a fluids3d trace longer than a slab keeps of its neighbours stops every process with a message") {
  for_each_backend([](Backend& be) {
    const Communicator& c = world(be);
    if (c.size() == 1) return;  // one process keeps no neighbours' layers
    const Fluids3DConfig cfg = config(c, {"solver.trace_layers=2", "sources[1].force=[0.0, 0.0, 400.0]"});
    Fluids3D<double> m(be, cfg, c);
    OutputOptions off;
    off.enabled = false;
    CHECK_THROWS_WITH_AS(run_model(m, off, false), doctest::Contains("set solver.trace_layers to at least"), NumericalError);
  });
}

TEST_CASE("mpi: a fluids3d run restarted from its processes' states ends bit for bit as one that never stopped") {
  for_each_backend([](Backend& be) {
    const Communicator& c = world(be);
    const Fluids3DConfig cfg = config(c, {"time.steps=5"});
    Fluids3D<double> whole(be, cfg, c);
    OutputOptions off;
    off.enabled = false;
    run_model(whole, off, false);
    Fluids3D<double> first(be, cfg, c);
    for (int s = 0; s < 2; ++s) first.step(first.end_time());
    ModelState saved;
    first.state().save(saved);
    Fluids3D<double> second(be, cfg, c);
    second.state().load(saved);
    CHECK(second.steps() == 2);
    while (second.steps() < cfg.steps) second.step(second.end_time());
    whole.before_output(true);
    second.before_output(true);
    CHECK(whole.series_row() == second.series_row());
    const auto a = whole.fields(), b = second.fields();
    REQUIRE(a.size() == b.size());
    for (std::size_t q = 0; q < a.size(); ++q) CHECK(a[q].values == b[q].values);
  });
}

TEST_CASE("mpi: fluids3d's PNG maps gather their two centre planes alone, equal to the whole field's") {
  for_each_backend([](Backend& be) {
    const Communicator& c = world(be);
    Fluids3DConfig cfg = config(c, {});
    cfg.steps = 3;
    Fluids3D<double> m(be, cfg, c);
    while (m.steps() < cfg.steps) m.step(m.end_time());
    m.before_output(true);  // the whole fields on process 0 (none elsewhere), for the reference
    const auto whole = m.fields();
    const std::vector<double> dens = whole.empty() ? std::vector<double>{} : whole[0].values;
    m.before_output(true, Model::Gather::Maps);
    if (c.size() > 1) CHECK(m.fields().empty());
    const long n = cfg.n, mid = n / 2;
    const auto xy = m.density_plane(2, mid), xz = m.density_plane(1, mid);
    if (c.rank() != 0) {
      CHECK(xy.empty());
      CHECK(xz.empty());
      return;
    }
    REQUIRE(xy.size() == std::size_t(n * n));
    REQUIRE(xz.size() == std::size_t(n * n));
    long differ = 0;
    for (long v = 0; v < n; ++v)
      for (long u = 0; u < n; ++u) {
        differ += xy[std::size_t(v * n + u)] != dens[std::size_t((mid * n + v) * n + u)];
        differ += xz[std::size_t(v * n + u)] != dens[std::size_t((v * n + mid) * n + u)];
      }
    CHECK(differ == 0);
  });
}

TEST_CASE("mpi: fluids3d refuses more processes than its grid has pairs of layers, naming both") {
  for_each_backend([](Backend& be) {
    const Communicator& c = world(be);
    if (c.size() < 3) return;
    Fluids3DConfig cfg = config(c, {});
    cfg.n = 5;
    cfg.sources.clear();
    CHECK_THROWS_WITH_AS(Fluids3D<double>(be, cfg, c), doctest::Contains("5 layers does not split into"), ConfigError);
  });
}

// A decomposed snapshot (docs/mpi.md): every process's piece is its slab and the first layer of the
// slab above (pieces share their faces), with one process's values to rounding; process 0's .pvti
// names every piece at its extent.
TEST_CASE("mpi: fluids3d's snapshot pieces are the slabs with the layer above, tied by a .pvti") {
  for_each_backend([](Backend& be) {
    const Communicator& c = world(be);
    const Fluids3DConfig cfg = config(c, {"time.steps=2"});
    const FluidsOutcome one = run(be, cfg, self_communicator());
    const FluidsOutcome all = run(be, cfg, c);
    const ImagePiece& p = all.piece;
    if (c.size() == 1) {
      CHECK(p.count == 1);
      return;
    }
    CHECK(p.count == c.size());
    CHECK(p.index == c.rank());
    REQUIRE(p.extents.size() == std::size_t(c.size()));
    CHECK(p.extents.front()[4] == 0);
    CHECK(p.extents.back()[5] == cfg.n - 1);
    for (std::size_t r = 1; r < p.extents.size(); ++r) CHECK(p.extents[r][4] == p.extents[r - 1][5]);  // a shared layer
    const auto& e = p.extents[std::size_t(c.rank())];
    CHECK((p.first == std::array<int, 3>{0, 0, e[4]}));
    CHECK((p.points == std::array<int, 3>{int(cfg.n), int(cfg.n), e[5] - e[4] + 1}));
    REQUIRE(p.fields.size() == one.fields.size());
    const std::size_t layer = std::size_t(cfg.n) * std::size_t(cfg.n), from = std::size_t(e[4]) * layer;
    for (std::size_t q = 0; q < p.fields.size(); ++q) {
      CAPTURE(p.fields[q].name);
      REQUIRE(p.fields[q].values.size() == std::size_t(p.points[2]) * layer);
      const std::vector<double> mine(one.fields[q].values.begin() + long(from), one.fields[q].values.begin() + long(from + p.fields[q].values.size()));
      CHECK(max_diff(p.fields[q].values, mine) <= 1e-12);
    }
    // the files: every process its piece, process 0 the .pvti
    std::int64_t id = ::getpid();
    c.broadcast(&id, sizeof id, 0);
    const auto dir = std::filesystem::temp_directory_path() / ("poreflow_mpi_vti_" + std::to_string(id));
    std::filesystem::create_directories(dir);
    Fluids3D<double> m(be, cfg, c);
    m.before_output(true);
    const std::string file = io::fluids3d_snapshot(m, dir, "snap");
    (void)c.any(false);  // every piece written
    if (c.rank() == 0) {
      CHECK(file == "snap.pvti");
      const std::string pvti = slurp(dir / file);
      const auto pieces = tags(pvti, "Piece");
      REQUIRE(pieces.size() == std::size_t(c.size()));
      for (int r = 0; r < c.size(); ++r) {
        const auto& x = p.extents[std::size_t(r)];
        CHECK(attr(pieces[std::size_t(r)], "Source") == "snap_piece" + std::to_string(r) + ".vti");
        CHECK(attr(pieces[std::size_t(r)], "Extent") == "0 " + std::to_string(x[1]) + " 0 " + std::to_string(x[3]) + " " +
                                                          std::to_string(x[4]) + " " + std::to_string(x[5]));
        const std::string piece = slurp(dir / ("snap_piece" + std::to_string(r) + ".vti"));
        CHECK(attr(tags(piece, "Piece").at(0), "Extent") == attr(pieces[std::size_t(r)], "Extent"));
      }
    }
    (void)c.any(false);
    if (c.rank() == 0) std::filesystem::remove_all(dir);
  });
}
