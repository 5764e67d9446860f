// Eclipse decks (opm-common): the deck and its TOML twin give the same input and the same run on
// every backend, the summary files hold what the run reported, and bad decks are refused naming
// the keyword, the file and the line.
#include <algorithm>
#include <cmath>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include <unistd.h>

#include "core/io/cases/cases.hpp"
#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/io/eclipse/deck.hpp"
#include "core/run/registry.hpp"
#include "core/models/impes3d.hpp"
#include "core/models/impes3d_setup.hpp"
#include "tests/harness.hpp"
#include "tests/stop_after.hpp"

#if POREFLOW_HAVE_OPM
#include <opm/io/eclipse/ESmry.hpp>
#endif

using namespace poreflow;
using namespace poreflow::test;

namespace {

const std::string kDecks = std::string(POREFLOW_SOURCE_DIR) + "/tests/decks/";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// a temporary deck: SMALL.DATA with `from` replaced by `to` (each must occur)
std::string edited_deck(const std::string& name, const std::vector<std::pair<std::string, std::string>>& edits) {
  std::string text = read_text(kDecks + "SMALL.DATA");
  for (const auto& edit : edits) {
    const std::string &from = edit.first, &to = edit.second;  // (clang 14: no structured binding in REQUIRE's lambda)
    const auto at = text.find(from);
    REQUIRE_MESSAGE(at != std::string::npos, from);
    text.replace(at, from.size(), to);
  }
  const auto dir = std::filesystem::temp_directory_path() / "poreflow_decks";
  std::filesystem::create_directories(dir);
  const auto path = (dir / (name + ".DATA")).string();
  std::ofstream(path) << text;
  return path;
}

std::string refusal(const std::string& path) {
  try {
    auto cf = io::CaseFile::load(path);
    make_model(cf, reference(), Precision::Double);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

struct Ran {
  std::unique_ptr<Model> model;
  Impes3D<double>* impes = nullptr;
};

// sets: --set assignments
Ran run(Backend& be, const std::string& path, const std::filesystem::path& out = {}, const std::vector<std::string>& sets = {}) {
  auto cf = io::CaseFile::load(path);
  for (const auto& s : sets) cf.set(s);
  Ran r;
  auto sim = make_simulation(cf, be, Precision::Double);
  const auto read = read_output_options(cf);
  cf.check_all_used();
  OutputOptions o;
  o.enabled = !out.empty();
  o.dir = out;
  o.vtk = o.png = false;
  o.series_every = read.series_every;
  run_simulation(sim, o, false);
  r.model = std::move(sim.model);
  r.impes = dynamic_cast<Impes3D<double>*>(r.model.get());
  return r;
}

// A folder of this test process's own, emptied: ctest runs the suites of two backends at once,
// and a shared folder that one clears would lose the other's files.
std::filesystem::path scratch(const std::string& name) {
  const auto dir = std::filesystem::temp_directory_path() / "poreflow_decks" / (name + "_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  return dir;
}

std::vector<std::string> lines(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::vector<std::string> out;
  for (std::string l; std::getline(in, l);) out.push_back(l);
  return out;
}

// the refusal of a deck case with --set assignments
std::string refusal(const std::string& path, const std::vector<std::string>& sets) {
  try {
    auto cf = io::CaseFile::load(path);
    for (const auto& s : sets) cf.set(s);
    make_model(cf, reference(), Precision::Double);
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(no error)";
}

// the configuration of SMALL.DATA with --set assignments
Impes3DConfig small_config(const std::vector<std::string>& sets) {
  auto cf = io::CaseFile::load(kDecks + "SMALL.DATA");
  for (const auto& s : sets) cf.set(s);
  return read_impes3d_case(cf, reference(), Precision::Double).config;
}

bool near(double a, double b, double rel) { return std::abs(a - b) <= rel * std::max({std::abs(a), std::abs(b), 1e-300}); }

}  // namespace

#if POREFLOW_HAVE_OPM

namespace {

// impes3d_series.csv: its columns by name, its rows
struct Series {
  std::vector<std::string> names;
  std::vector<std::vector<double>> rows;
  double at(std::size_t r, const std::string& name) const {
    const auto c = std::find(names.begin(), names.end(), name);
    REQUIRE_MESSAGE(c != names.end(), "no CSV column " << name);
    return rows[r][static_cast<std::size_t>(c - names.begin())];
  }
};

Series read_series(const std::filesystem::path& file) {
  std::ifstream in(file);
  REQUIRE_MESSAGE(in, file.string());
  Series s;
  std::string line, cell;
  std::getline(in, line);
  for (std::stringstream ls(line); std::getline(ls, cell, ',');) s.names.push_back(cell);
  while (std::getline(in, line)) {
    std::vector<double> row;
    for (std::stringstream ls(line); std::getline(ls, cell, ',');) row.push_back(std::stod(cell));
    REQUIRE(row.size() == s.names.size());
    s.rows.push_back(row);
  }
  return s;
}

// The totals of the summary file (opm-common's, from the rates of every step it was handed) equal
// the CSV's at the same report times and, at the end, the run's final statistics (impes3d's, from
// the rates it added to the cells' masses): FOPT, FWPT, FWIT and each well's WOPT, WWPT, WWIT. The
// summary stores floats: equal to their rounding. Every CSV row after `after` has its summary
// report step. Between reports the file holds every time step (ministeps, as OPM Flow writes them):
// `steps` of them in all, at increasing times, with totals that never decrease.
void check_totals(const std::filesystem::path& smspec, const std::filesystem::path& csv, const std::map<std::string, double>& stats,
                  long steps, double after = 0) {
  CAPTURE(smspec.string());
  const Opm::EclIO::ESmry smry(smspec.string());
  {
    const auto& all = smry.get("TIME");
    CHECK(long(all.size()) == steps);
    for (const char* k : {"TIME", "FOPT", "FWPT", "FWIT"}) {
      CAPTURE(k);
      const auto& v = smry.get(k);
      for (std::size_t i = 1; i < v.size(); ++i) REQUIRE(v[i] >= v[i - 1]);
    }
    for (std::size_t i = 1; i < all.size(); ++i) REQUIRE(all[i] > all[i - 1]);
  }
  const Series series = read_series(csv);
  std::vector<std::string> keys = {"FOPT", "FWPT", "FWIT"};
  for (const auto& n : series.names)
    for (const char* v : {"WOPT:", "WWPT:", "WWIT:"})
      if (n.rfind(v, 0) == 0) keys.push_back(n);
  REQUIRE(keys.size() > 3);
  const auto time = smry.get_at_rstep("TIME");
  std::size_t row = 0, matched = 0;
  for (std::size_t i = 0; i < time.size(); ++i) {
    while (row < series.rows.size() && series.at(row, "TIME") < double(time[i]) - 1e-4) ++row;
    REQUIRE_MESSAGE(row < series.rows.size(), "no CSV row at t = " << time[i]);
    REQUIRE(series.at(row, "TIME") == doctest::Approx(time[i]).epsilon(1e-6));
    ++matched;
    for (const auto& k : keys) {
      CAPTURE(k);
      CAPTURE(time[i]);
      REQUIRE_MESSAGE(smry.hasKey(k), "the deck's SUMMARY section lacks " << k);
      CHECK(double(smry.get_at_rstep(k)[i]) == doctest::Approx(series.at(row, k)).epsilon(1e-6));
    }
  }
  std::size_t expected = 0;
  for (std::size_t r = 0; r < series.rows.size(); ++r) expected += series.at(r, "TIME") > after + 1e-9;
  CHECK(matched == expected);
  REQUIRE(!time.empty());
  // the mean pressure where the deck asks for it: the CSV's at reports, and the ministeps' own (not
  // the last report's again)
  if (smry.hasKey("FPR")) {
    const auto fpr = smry.get_at_rstep("FPR");
    row = 0;
    for (std::size_t i = 0; i < time.size(); ++i) {
      while (row < series.rows.size() && series.at(row, "TIME") < double(time[i]) - 1e-4) ++row;
      CHECK(double(fpr[i]) == doctest::Approx(series.at(row, "FPR")).epsilon(1e-6));
    }
    // repeated, the values would number the reports' and time 0's at most
    const auto& all = smry.get("FPR");
    const std::size_t ministeps = all.size() - time.size();
    REQUIRE(ministeps > 0);
    std::set<float> distinct(all.begin(), all.end());
    CHECK(distinct.size() > time.size() + 1 + ministeps / 2);
  }
  CHECK(double(smry.get("FOPT").back()) == doctest::Approx(stats.at("oil_produced_sm3")).epsilon(1e-6));
  CHECK(double(smry.get("FWPT").back()) == doctest::Approx(stats.at("water_produced_sm3")).epsilon(1e-6));
  CHECK(double(smry.get("FWIT").back()) == doctest::Approx(stats.at("water_injected_sm3")).epsilon(1e-6));
}

// the number of steps a run of `deck` has taken when its time first passes t
long steps_past(Backend& be, const std::string& deck, double t) {
  auto cf = io::CaseFile::load(deck);
  auto m = make_model(cf, be, Precision::Double);
  for (double stop : m->report_times())
    while (m->time() < stop * (1 - 1e-12)) {
      m->step(stop);
      if (m->time() > t) return m->steps();
    }
  FAIL("the run never passes t = " << t);
  return 0;
}

}  // namespace

TEST_CASE("decks: SMALL.DATA reads into the same input as its TOML twin") {
  const auto deck = eclipse::read_deck(kDecks + "SMALL.DATA");
  auto cf = io::CaseFile::load(kDecks + "small.toml");
  const auto toml = read_impes3d_case(cf, reference(), Precision::Double).config;
  const ImpesInput &a = deck->input(), &b = toml.input;
  CHECK(deck->units() == "METRIC");
  CHECK(deck->basename() == "SMALL");
  REQUIRE(a.grid.cells() == b.grid.cells());
  for (std::size_t c = 0; c < a.grid.cells(); ++c) {
    CAPTURE(c);
    REQUIRE(near(a.grid.dx[c], b.grid.dx[c], 1e-12));
    REQUIRE(near(a.grid.dz[c], b.grid.dz[c], 1e-12));
    REQUIRE(near(a.grid.tops[c], b.grid.tops[c], 1e-12));
    REQUIRE(near(a.grid.permx[c], b.grid.permx[c], 1e-12));  // mD through opm's SI and back
    REQUIRE(near(a.grid.permy[c], b.grid.permy[c], 1e-12));
    REQUIRE(near(a.grid.permz[c], b.grid.permz[c], 1e-12));
    REQUIRE(near(a.grid.poro[c], b.grid.poro[c], 1e-12));
  }
  CHECK(a.fluid.swof.sw == b.fluid.swof.sw);
  for (std::size_t r = 0; r < a.fluid.swof.pcow.size(); ++r) CHECK(near(a.fluid.swof.pcow[r], b.fluid.swof.pcow[r], 1e-12));
  for (std::size_t r = 0; r < a.fluid.pvdo.p.size(); ++r) {
    CHECK(near(a.fluid.pvdo.p[r], b.fluid.pvdo.p[r], 1e-12));
    CHECK(near(a.fluid.pvdo.muo[r], b.fluid.pvdo.muo[r], 1e-12));
  }
  CHECK(near(a.fluid.pvtw.cw, b.fluid.pvtw.cw, 1e-12));
  CHECK(near(a.fluid.pvtw.muw, b.fluid.pvtw.muw, 1e-12));
  CHECK(near(a.fluid.rock.cr, b.fluid.rock.cr, 1e-12));
  CHECK(near(a.initial.owc_depth, b.initial.owc_depth, 1e-12));
  REQUIRE(a.wells.size() == 2);
  for (std::size_t w = 0; w < 2; ++w) {
    CHECK(a.wells[w].name == b.wells[w].name);
    CHECK(a.wells[w].initial.control == b.wells[w].initial.control);
    CHECK(near(a.wells[w].initial.rate, b.wells[w].initial.rate, 1e-12));
    CHECK(near(a.wells[w].initial.bhp, b.wells[w].initial.bhp, 1e-12));
    REQUIRE(a.wells[w].completions.size() == b.wells[w].completions.size());
    for (std::size_t c = 0; c < a.wells[w].completions.size(); ++c) {
      const auto &x = a.wells[w].completions[c], &y = b.wells[w].completions[c];
      CHECK(x.i == y.i);
      CHECK(x.k == y.k);
      // opm-common's connection factor (Peaceman) against impes3d's own, from the same rock
      CHECK(x.wi > 0);
      CHECK(y.wi == 0);
    }
  }
  REQUIRE(a.schedule.size() == 1);
  CHECK(a.schedule[0].time == doctest::Approx(150));
  CHECK(a.schedule[0].setting.control == WellControl::Bhp);
  CHECK(a.schedule[0].setting.bhp == doctest::Approx(150));
  REQUIRE(a.report_times.size() == b.report_times.size());
  for (std::size_t r = 0; r < a.report_times.size(); ++r) CHECK(a.report_times[r] == doctest::Approx(b.report_times[r]).epsilon(1e-12));
}

TEST_CASE("decks: EQUIL item 9 averages each cell's S_w over 2N slices, as a grid refined N-fold twice would") {
  // SMALL.DATA's EQUIL leaves item 9 to its default, -5 (OPM Flow's); its whole grid lies in the
  // capillary transition zone (p_cow up to 0.3 bar over 15 m above the contact at 2020 m)
  CHECK(eclipse::read_deck(kDecks + "SMALL.DATA")->input().initial.sublevels == 5);
  CHECK(eclipse::read_deck(edited_deck("EQUIL0", {{" 2000 200 2020 0 /", " 2000 200 2020 0 1* 1* 1* 1* 0 /"}}))->input().initial.sublevels == 0);
  const std::string msg = refusal(edited_deck("EQUIL3", {{" 2000 200 2020 0 /", " 2000 200 2020 0 1* 1* 1* 1* 3 /"}}));
  CHECK_MESSAGE(msg.find("EQUIL item 9 = 3") != std::string::npos, msg);
  // the twin, with its layers cut into M = 2N slices each and S_w at the slices' centres
  // (sublevels 0): the coarse cell's S_w with sublevels N is the mean of its slices' (equal pore
  // volumes), up to the slices' own discrete equilibrium
  auto cf = io::CaseFile::load(kDecks + "small.toml");
  ImpesInput coarse = read_impes3d_case(cf, reference(), Precision::Double).config.input;
  const int N = 3, M = 2 * N;
  coarse.initial.sublevels = N;
  ImpesInput fine = coarse;
  fine.initial.sublevels = 0;
  auto& g = fine.grid;
  const auto& c = coarse.grid;
  g.nz = c.nz * M;
  for (auto* v : {&g.dx, &g.dy, &g.dz, &g.tops, &g.permx, &g.permy, &g.permz, &g.poro, &g.ntg}) v->assign(g.cells(), 0.0);
  if (!c.actnum.empty()) g.actnum.assign(g.cells(), 1);
  for (long k = 0; k < c.nz; ++k)
    for (int m = 0; m < M; ++m)
      for (long j = 0; j < c.ny; ++j)
        for (long i = 0; i < c.nx; ++i) {
          const std::size_t a = c.index(i, j, k), b = g.index(i, j, k * M + m);
          g.dx[b] = c.dx[a];
          g.dy[b] = c.dy[a];
          g.dz[b] = c.dz[a] / M;
          g.tops[b] = c.tops[a] + m * c.dz[a] / M;
          g.permx[b] = c.permx[a];
          g.permy[b] = c.permy[a];
          g.permz[b] = c.permz[a];
          g.poro[b] = c.poro[a];
          g.ntg[b] = c.ntg.empty() ? 1.0 : c.ntg[a];
        }
  if (c.ntg.empty()) g.ntg.clear();
  const auto prm = build_prm(coarse.fluid);
  const auto gc = build_geometry(coarse.grid), gf = build_geometry(fine.grid);
  const auto sc = initial_state(coarse, gc, prm), sf = initial_state(fine, gf, prm);
  ImpesInput centre = coarse;
  centre.initial.sublevels = 0;
  const auto s0 = initial_state(centre, gc, prm);
  double worst = 0, moved = 0;
  for (long k = 0; k < c.nz; ++k)
    for (long j = 0; j < c.ny; ++j)
      for (long i = 0; i < c.nx; ++i) {
        double mean = 0;
        for (int m = 0; m < M; ++m) mean += sf.sw[gf.at(i, j, k * M + m)] / M;
        worst = std::max(worst, std::fabs(sc.sw[gc.at(i, j, k)] - mean));
        moved = std::max(moved, std::fabs(sc.sw[gc.at(i, j, k)] - s0.sw[gc.at(i, j, k)]));
      }
  MESSAGE("max |S_w(N slices) - mean of the refined grid's| = ", worst, ", max change from the centre value ", moved);
  CHECK(moved > 5e-4);        // the averaging changes S_w here (measured 8.6e-4)
  CHECK(worst < 0.05 * moved);  // and to the refined grid's mean
}

TEST_CASE("decks: opm-common's connection factors equal impes3d's Peaceman index") {
  const auto deck = eclipse::read_deck(kDecks + "SMALL.DATA");
  auto in = deck->input();
  for (const auto& w : in.wells)
    for (const auto& c : w.completions) {
      const std::size_t cell = in.grid.index(c.i, c.j, c.k);
      const double own = peaceman_wi(in.grid.permx[cell], in.grid.permy[cell], in.grid.dx[cell], in.grid.dy[cell],
                                     in.grid.dz[cell], 0.5 * c.diameter, c.skin);
      CAPTURE(w.name);
      CHECK(c.wi == doctest::Approx(own).epsilon(1e-12));
    }
}

TEST_SUITE("model") {
TEST_CASE("decks: a deck and its TOML twin give the same run on every backend, and the summary files hold it") {
  const auto dir = scratch("summary");
  for_each_backend([&](Backend& be) {
    // with either scheme (a deck defaults to fim, a TOML case to impes: both named here)
    for (const char* scheme : {"scheme=\"impes\"", "scheme=\"fim\""}) {
      CAPTURE(std::string(scheme));
      // fim steps by the changes: the default Newton-count rule turns a last bit that decides one
      // Newton iteration more into another step size (on cuda, 17 steps against 19)
      const bool fim = std::string(scheme).find("fim") != std::string::npos;
      std::vector<std::string> sets{scheme};
      if (fim) sets.push_back("time.control=\"changes\"");
      const auto d = run(be, kDecks + "SMALL.DATA", dir, sets);
      const auto t = run(be, kDecks + "small.toml", {}, sets);
      REQUIRE(d.impes);
      REQUIRE(t.impes);
      CHECK(d.impes->steps() == t.impes->steps());
      // the same model up to the last bits of the unit conversions and opm's well index; the
      // Newton iteration stops anywhere within its tolerances (CNV 1e-2), where a last bit may
      // decide one iteration more or fewer: 1e-6 there
      const double tol = fim ? 1e-6 : 1e-12;
      CHECK(max_rel_diff(d.impes->pressure(), t.impes->pressure()) <= tol);
      CHECK(max_rel_diff(d.impes->saturation(), t.impes->saturation(), 1.0) <= tol);
      const auto& wd = d.impes->wells();
      const auto& wt = t.impes->wells();
      for (std::size_t w = 0; w < wd.size(); ++w) CHECK(wd[w].oil_total == doctest::Approx(wt[w].oil_total).epsilon(tol));
    }
  });
  CHECK(std::filesystem::file_size(dir / "SMALL.SMSPEC") > 0);
  CHECK(std::filesystem::file_size(dir / "SMALL.UNSMRY") > 0);
  std::filesystem::remove_all(dir);
}
}  // TEST_SUITE

TEST_CASE("decks: time.end cuts a deck's report times and events at the new end") {
  const auto full = small_config({});
  REQUIRE(full.input.report_times.size() == 10);
  REQUIRE(full.input.schedule.size() == 1);  // P1 to BHP at day 150
  // between the reports at 90 and 120: 100 is the last report, the event at 150 is gone
  auto c = small_config({"time.end=100"});
  auto expected = std::vector<double>(full.input.report_times.begin(), full.input.report_times.begin() + 3);
  expected.push_back(100.0);
  CHECK(c.input.report_times == expected);
  CHECK(c.input.schedule.empty());
  // on a report: the reports up to it as they were (the deck's values, not 150 rounded), and the
  // event at 150 stays (the full run applies it at the end of its step to 150 as well)
  c = small_config({"time.end=150"});
  CHECK(c.input.report_times == std::vector<double>(full.input.report_times.begin(), full.input.report_times.begin() + 5));
  CHECK(c.input.schedule.size() == 1);
  // the deck's own end, and a hair short of it, change nothing
  CHECK(small_config({"time.end=300"}).input.report_times == full.input.report_times);
  CHECK(small_config({"time.end=299.9999999999"}).input.report_times == full.input.report_times);
  // a TOML case pointing at the deck reads [time] end the same way
  auto cf = io::CaseFile::parse("model = \"impes3d\"\n[input]\ndeck = \"" + kDecks + "SMALL.DATA\"\n[time]\nend = 45\n", "end.toml");
  c = read_impes3d_case(cf, reference(), Precision::Double).config;
  CHECK(c.input.report_times == std::vector<double>{full.input.report_times[0], 45.0});
}

TEST_CASE("decks: keys the deck sets are refused naming the deck; time.end must be in (0, the deck's end]") {
  auto refused = [](const std::vector<std::string>& sets, std::vector<std::string> words) {
    const std::string msg = refusal(kDecks + "SMALL.DATA", sets);
    for (const auto& w : words) CHECK_MESSAGE(msg.find(w) != std::string::npos, "expected '" << w << "' in: " << msg);
    CHECK_MESSAGE(msg.find("unknown key") == std::string::npos, msg);
  };
  refused({"grid.nx=5"}, {"grid.nx is set by the deck SMALL.DATA (DIMENS); change the deck"});
  refused({"time.growth_after_cut=0.5"}, {"time.growth_after_cut = 0.5 must be 0 (off) or at least 1"});
  refused({"time.growth_after_cut=101"}, {"time.growth_after_cut"});
  refused({"rock.poro=0.3"}, {"rock.poro is set by the deck SMALL.DATA (PORO)"});
  refused({"fluid.swof=[[0.2, 0, 1, 0], [1, 1, 0, 0]]"}, {"fluid.swof is set by the deck SMALL.DATA (SWOF)"});
  refused({"initial.pressure=250"}, {"initial.pressure is set by the deck SMALL.DATA (EQUIL"});
  refused({"wells.rate=10"}, {"wells.rate is set by the deck SMALL.DATA (WELSPECS"});
  refused({"time.reports=4"}, {"time.reports is set by the deck SMALL.DATA (TSTEP or DATES)", "time.end"});
  refused({"time.end=0"}, {"time.end = 0 must be a finite number > 0"});
  refused({"time.end=-30"}, {"time.end = -30 must be a finite number > 0"});
  refused({"time.end=301"}, {"time.end = 301 is past the end of the deck SMALL.DATA (day 300)"});
  // the same in a TOML case that points at the deck
  const std::string text = "model = \"impes3d\"\n[input]\ndeck = \"" + kDecks + "SMALL.DATA\"\n[grid]\nnz = 4\n";
  std::string msg = "(no error)";
  try {
    auto cf = io::CaseFile::parse(text, "deck.toml");
    make_model(cf, reference(), Precision::Double);
  } catch (const ConfigError& e) {
    msg = e.what();
  }
  CHECK_MESSAGE(msg.find("grid.nz is set by the deck SMALL.DATA (DIMENS)") != std::string::npos, msg);
}

TEST_SUITE("model") {
TEST_CASE("decks: a run shortened by time.end writes the full run's rows up to its end, bit for bit") {
  const auto base = scratch("end");
  for_each_backend([&](Backend& be) {
    const auto full_dir = base / (be.name() + "_full");
    const auto full = run(be, kDecks + "SMALL.DATA", full_dir);
    const auto rows = lines(full_dir / "impes3d_series.csv");
    REQUIRE(rows.size() == 12);  // the header, t = 0 and 10 reports
    // 100 between the reports at 90 and 120 (a row of its own), 150 on a report (with an event)
    for (const auto& p : std::vector<std::pair<double, std::size_t>>{{100, 5}, {150, 7}}) {
      const double end = p.first;
      const std::size_t same = p.second;  // rows of the full run: the header, t = 0 and the reports up to the end
      CAPTURE(end);
      const auto dir = base / (be.name() + "_" + std::to_string(int(end)));
      const auto r = run(be, kDecks + "SMALL.DATA", dir, {"time.end=" + std::to_string(end)});
      CHECK(r.model->time() == end);
      const auto got = lines(dir / "impes3d_series.csv");
      REQUIRE(got.size() == (end == 100 ? same + 1 : same));
      for (std::size_t i = 0; i < same; ++i) CHECK(got[i] == rows[i]);
      CHECK(got.back().rfind(std::to_string(int(end)) + ",", 0) == 0);
      // the summary files end there too
      const Opm::EclIO::ESmry smry((dir / "SMALL.SMSPEC").string());
      CHECK(smry.get("TIME").back() == float(end));
    }
    CHECK(full.model->time() == 300);
  });
  std::filesystem::remove_all(base);
}

TEST_CASE("decks: output.series_every writes every N-th report and the last, as the full run has them") {
  const auto base = scratch("every");
  for_each_backend([&](Backend& be) {
    const auto full_dir = base / (be.name() + "_full"), dir = base / (be.name() + "_4");
    const auto full = run(be, kDecks + "SMALL.DATA", full_dir);
    const auto thin = run(be, kDecks + "SMALL.DATA", dir, {"output.series_every=4"});
    CHECK(thin.model->steps() == full.model->steps());  // the run stops at every report as before
    const auto rows = lines(full_dir / "impes3d_series.csv"), got = lines(dir / "impes3d_series.csv");
    // the header, t = 0, reports 4 and 8 (days 120, 240) and the last (300)
    REQUIRE(rows.size() == 12);
    REQUIRE(got.size() == 5);
    for (std::size_t i = 0; i < got.size(); ++i) CHECK(got[i] == rows[std::vector<std::size_t>{0, 1, 5, 9, 11}[i]]);
    const Opm::EclIO::ESmry a((full_dir / "SMALL.SMSPEC").string()), b((dir / "SMALL.SMSPEC").string());
    // the full run's files have every step (ministeps) and its reports; the thinned ones only theirs
    CHECK(long(a.get("TIME").size()) == full.model->steps());
    CHECK(a.get_at_rstep("TIME") == std::vector<float>{30, 60, 90, 120, 150, 180, 210, 240, 270, 300});
    CHECK(b.get("TIME") == std::vector<float>{120, 240, 300});
    for (const char* key : {"FOPT", "FWCT", "WBHP:P1"}) {
      CAPTURE(key);
      const auto r = a.get_at_rstep(key);
      CHECK(b.get(key) == std::vector<float>{r[3], r[7], r[9]});
    }
  });
  std::filesystem::remove_all(base);
}

// Ministeps: the fully implicit scheme writes every step; IMPES, and a deck's RPTONLY, only the
// reports; SUMTHIN keeps ministeps at least its interval apart (reports are always written).
TEST_CASE("decks: summary ministeps follow the scheme, RPTONLY and SUMTHIN") {
  namespace fs = std::filesystem;
  const auto base = scratch("ministeps");
  fs::create_directories(base);
  // SMALL.DATA with keywords after its SUMMARY (or another section's) line
  auto variant = [&](const std::string& name, const std::string& extra, const std::string& section = "SUMMARY") {
    std::string text;
    for (const auto& l : lines(kDecks + "SMALL.DATA")) text += l + "\n" + (l == section ? extra : "");
    const auto path = base / (name + ".DATA");
    std::ofstream(path) << text;
    return path.string();
  };
  const std::string rptonly = variant("RPTONLY", "RPTONLY\n"), sumthin = variant("SUMTHIN", "SUMTHIN\n 10 /\n");
  const std::string rptonly_schedule = variant("RPTONLY_S", "RPTONLY\n", "SCHEDULE");
  const std::vector<float> reports = {30, 60, 90, 120, 150, 180, 210, 240, 270, 300};
  for_each_backend([&](Backend& be) {
    const auto dir = [&](const std::string& n) { return base / (be.name() + "_" + n); };
    const auto fim = run(be, kDecks + "SMALL.DATA", dir("fim"));
    const Opm::EclIO::ESmry all((dir("fim") / "SMALL.SMSPEC").string());
    CHECK(long(all.get("TIME").size()) == fim.model->steps());
    REQUIRE(fim.model->steps() > long(reports.size()));
    const auto impes = run(be, kDecks + "SMALL.DATA", dir("impes"), {"scheme=impes"});
    CHECK(impes.model->steps() > long(reports.size()));
    CHECK(Opm::EclIO::ESmry((dir("impes") / "SMALL.SMSPEC").string()).get("TIME") == reports);
    run(be, rptonly, dir("rptonly"));
    CHECK(Opm::EclIO::ESmry((dir("rptonly") / "RPTONLY.SMSPEC").string()).get("TIME") == reports);
    run(be, rptonly_schedule, dir("rptonly_s"));  // in the SCHEDULE section, where OPM Flow takes it too
    CHECK(Opm::EclIO::ESmry((dir("rptonly_s") / "RPTONLY_S.SMSPEC").string()).get("TIME") == reports);
    run(be, sumthin, dir("sumthin"));
    const Opm::EclIO::ESmry thin((dir("sumthin") / "SUMTHIN.SMSPEC").string());
    const auto& t = thin.get("TIME");
    CHECK(thin.get_at_rstep("TIME") == reports);
    CHECK(t.size() > reports.size());
    CHECK(t.size() < all.get("TIME").size());
    // a ministep comes at least 10 days after the step written before it
    float last = 0;
    for (float x : t) {
      const bool report = std::find(reports.begin(), reports.end(), x) != reports.end();
      if (!report) CHECK(x - last >= 10 - 1e-3f);
      last = x;
    }
  });
  std::filesystem::remove_all(base);
}
}  // TEST_SUITE

TEST_SUITE("model") {
// Each deck with its first control change: SMALL's producer rate -> BHP; SWITCH's wells rate ->
// BHP -> rate, shut and open.
const std::vector<std::pair<std::string, double>> kSwitchDecks = {{"SMALL", 150.0}, {"SWITCH", 60.0}};

// The summary files hold the totals the run reports, through control changes and a step retried
// just after one.
TEST_CASE("decks: the summary files' totals equal the CSV's and the final statistics, through control changes") {
  namespace fs = std::filesystem;
  for_each_backend([&](Backend& be) {
    for (const auto& d : kSwitchDecks) {
      const std::string& name = d.first;
      CAPTURE(name);
      const fs::path dir = fs::temp_directory_path() / "poreflow_decks" / ("totals_" + name + "_" + be.name());
      fs::remove_all(dir);
      auto cf = io::CaseFile::load(kDecks + name + ".DATA");
      auto sim = make_simulation(cf, be, Precision::Double);
      // halves the step after the change: a step that reaches fail_at fails once
      const double fail_at = d.second + 0.05;
      dynamic_cast<Impes3D<double>&>(*sim.model).add_step_check([fail_at, once = true](double t, double dt) mutable {
        if (!once || t + dt < fail_at) return std::string();
        once = false;
        return std::string("a failure asked for by the test");
      });
      OutputOptions out;
      out.vtk = out.png = false;
      out.dir = dir;
      const RunReport r = run_simulation(sim, out, false);
      CHECK(r.stats.at("retried_steps") >= 1);
      check_totals(dir / (name + ".SMSPEC"), dir / "impes3d_series.csv", r.stats, r.steps);
      fs::remove_all(dir);
    }
  });
}

// A run stopped (as by SIGTERM) two steps after a control change and restarted from its
// checkpoint: the restarted run's summary files (NAME_R<step>) go on with the totals.
TEST_CASE("decks: a restarted run's summary files continue the totals") {
  namespace fs = std::filesystem;
  if (!io::checkpoints_supported()) return;
  for_each_backend([&](Backend& be) {
    for (const auto& d : kSwitchDecks) {
      const std::string& name = d.first;
      CAPTURE(name);
      const std::string deck = kDecks + name + ".DATA";
      const fs::path dir = fs::temp_directory_path() / "poreflow_decks" / ("restart_" + name + "_" + be.name());
      fs::remove_all(dir);
      auto cf = io::CaseFile::load(deck);
      OutputOptions out;
      out.vtk = out.png = false;
      out.dir = dir;
      CheckpointOptions ck;
      ck.identity.case_text = cf.canonical_text();
      ck.identity.case_source = deck;
      ck.identity.backend = be.name();
      ck.identity.precision = "double";
      ck.file = dir / "checkpoint.h5";
      ck.handle_signals = true;
      const long k = steps_past(be, deck, d.second) + 1;
      auto first = make_simulation(cf, be, Precision::Double);
      Observers obs = first.outputs(out);
      obs.push_back(std::make_unique<StopAfter>(k));
      REQUIRE(run_model(*first.model, obs, out, false, ck).interrupted == SIGTERM);
      const io::Checkpoint c = io::read_checkpoint(ck.file);
      // the stopped run's files hold its steps up to the last (a ministep written when it ran)
      CHECK(Opm::EclIO::ESmry((dir / (name + ".SMSPEC")).string()).get("TIME").back() == doctest::Approx(c.time).epsilon(1e-6));
      ck.restart = &c;
      auto second = make_simulation(cf, be, Precision::Double);
      const RunReport r = run_simulation(second, out, false, ck);
      REQUIRE(r.interrupted == 0);
      check_totals(dir / (name + "_R" + std::to_string(k) + ".SMSPEC"), dir / "impes3d_series.csv", r.stats, r.steps - c.steps, c.time);
      fs::remove_all(dir);
    }
  });
}
}  // TEST_SUITE

TEST_CASE("decks: bad decks are refused naming the keyword, the file and the line") {
  auto refused = [](const std::string& path, std::vector<std::string> words) {
    const std::string msg = refusal(path);
    for (const auto& w : words) CHECK_MESSAGE(msg.find(w) != std::string::npos, "expected '" << w << "' in: " << msg);
  };
  refused(kDecks + "MISSING.DATA", {"MISSING.DATA' does not exist"});
  // a syntax error: text where a keyword belongs
  refused(edited_deck("SYNTAX", {{"PORO\n", "PORO\n 300*0.2 /\nthis is not a keyword\nXPORO\n"}}), {"SYNTAX.DATA", "line"});
  // an unsupported keyword, with where it is
  refused(edited_deck("GASDECK", {{"OIL\nWATER\n", "OIL\nWATER\nGAS\n"}}), {"GAS", "GASDECK.DATA:10", "not supported", "gas phase"});
  refused(edited_deck("FAULTS", {{"PROPS\n", "FAULTS\n F1 5 5 1 10 1 3 X /\n/\nPROPS\n"}}), {"FAULTS", "FAULTS.DATA:", "not supported"});
  // a well outside the grid
  refused(edited_deck("OUTSIDE", {{" P1 G1 10 10 1* OIL /", " P1 G1 12 10 1* OIL /"}, {" P1 10 10 1 3 OPEN", " P1 12 10 1 3 OPEN"}}),
          {"OUTSIDE.DATA"});
  // a completion in an inactive cell
  refused(edited_deck("INACTIVE", {{"NTG\n", "ACTNUM\n 99*1 0 200*1 /\nNTG\n"}}), {"INACTIVE.DATA", "P1", "(10, 10, 1)"});
  // a SWOF whose S_w column goes back
  refused(edited_deck("SWOF", {{" 0.40  0.040  0.360  0.08", " 0.25  0.040  0.360  0.08"}}), {"SWOF.DATA", "SWOF"});
  // a control poreflow does not model
  refused(edited_deck("RESV", {{" P1 OPEN LRAT 3* 100 1* 100 /", " P1 OPEN RESV 4* 100 100 /"}}), {"RESV", "well P1"});
  refused(edited_deck("HORIZONTAL", {{" P1 10 10 1 3 OPEN 1* 1* 0.2 /", " P1 10 10 1 3 OPEN 1* 1* 0.2 1* 1* 1* X /"}}),
          {"horizontal connection", "P1"});
}

#else

TEST_CASE("decks: without opm-common a deck is refused clearly") {
  const std::string msg = refusal(kDecks + "SMALL.DATA");
  CHECK_MESSAGE(msg.find("built without Eclipse deck support") != std::string::npos, msg);
}

#endif
