// The reservoir input as bytes and back (core/io/cases/impes_input_wire.hpp): a deck's input, every
// member compared after the round trip; a buffer cut short or too long is refused with a message.
#include <doctest/doctest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/io/cases/impes_input_wire.hpp"
#include "core/io/eclipse/deck.hpp"

using namespace poreflow;

namespace {

bool same(double a, double b) { return a == b || (std::isnan(a) && std::isnan(b)); }

void check_setting(const WellSetting& a, const WellSetting& b) {
  CHECK(a.open == b.open);
  CHECK(a.control == b.control);
  CHECK(a.rate == b.rate);
  CHECK(a.bhp == b.bhp);
}

// every member of ImpesInput, as impes3d_input.hpp declares them
void check_same(const ImpesInput& a, const ImpesInput& b) {
  const ImpesGrid &g = a.grid, &h = b.grid;
  CHECK(g.nx == h.nx);
  CHECK(g.ny == h.ny);
  CHECK(g.nz == h.nz);
  for (auto m : {&ImpesGrid::dx, &ImpesGrid::dy, &ImpesGrid::dz, &ImpesGrid::tops, &ImpesGrid::permx, &ImpesGrid::permy,
                 &ImpesGrid::permz, &ImpesGrid::poro, &ImpesGrid::ntg, &ImpesGrid::multx, &ImpesGrid::multy, &ImpesGrid::multz})
    CHECK(g.*m == h.*m);
  CHECK(g.actnum == h.actnum);
  const ImpesFluid &f = a.fluid, &e = b.fluid;
  CHECK(f.rho_w == e.rho_w);
  CHECK(f.rho_o == e.rho_o);
  CHECK(f.gravity == e.gravity);
  CHECK(f.pvtw.pref == e.pvtw.pref);
  CHECK(f.pvtw.bw == e.pvtw.bw);
  CHECK(f.pvtw.cw == e.pvtw.cw);
  CHECK(f.pvtw.muw == e.pvtw.muw);
  CHECK(f.pvtw.cvw == e.pvtw.cvw);
  CHECK(f.pvdo.p == e.pvdo.p);
  CHECK(f.pvdo.bo == e.pvdo.bo);
  CHECK(f.pvdo.muo == e.pvdo.muo);
  CHECK(f.swof.sw == e.swof.sw);
  CHECK(f.swof.krw == e.swof.krw);
  CHECK(f.swof.krow == e.swof.krow);
  CHECK(f.swof.pcow == e.swof.pcow);
  CHECK(f.rock.pref == e.rock.pref);
  CHECK(f.rock.cr == e.rock.cr);
  REQUIRE(a.wells.size() == b.wells.size());
  for (std::size_t w = 0; w < a.wells.size(); ++w) {
    const ImpesWell &x = a.wells[w], &y = b.wells[w];
    CHECK(x.name == y.name);
    CHECK(x.kind == y.kind);
    CHECK(same(x.ref_depth, y.ref_depth));
    REQUIRE(x.completions.size() == y.completions.size());
    for (std::size_t c = 0; c < x.completions.size(); ++c) {
      const ImpesCompletion &p = x.completions[c], &q = y.completions[c];
      CHECK((p.i == q.i && p.j == q.j && p.k == q.k && p.wi == q.wi && p.diameter == q.diameter && p.skin == q.skin));
    }
    check_setting(x.initial, y.initial);
  }
  REQUIRE(a.schedule.size() == b.schedule.size());
  for (std::size_t s = 0; s < a.schedule.size(); ++s) {
    CHECK(a.schedule[s].time == b.schedule[s].time);
    CHECK(a.schedule[s].well == b.schedule[s].well);
    check_setting(a.schedule[s].setting, b.schedule[s].setting);
  }
  CHECK(a.report_times == b.report_times);
  const ImpesInitial &i = a.initial, &j = b.initial;
  CHECK(i.pressure == j.pressure);
  CHECK(i.sw == j.sw);
  CHECK(i.datum_depth == j.datum_depth);
  CHECK(i.datum_pressure == j.datum_pressure);
  CHECK(same(i.owc_depth, j.owc_depth));
  CHECK(i.pc_owc == j.pc_owc);
  CHECK(same(i.sw_uniform, j.sw_uniform));
  CHECK(i.hydrostatic == j.hydrostatic);
  CHECK(i.sublevels == j.sublevels);
  CHECK(a.source == b.source);
}

// an input with every member away from its default, so that one the wire lacked shows
ImpesInput every_member() {
  ImpesInput in;
  ImpesGrid& g = in.grid;
  g.nx = 3, g.ny = 2, g.nz = 2;
  double x = 1;
  for (auto m : {&ImpesGrid::dx, &ImpesGrid::dy, &ImpesGrid::dz, &ImpesGrid::tops, &ImpesGrid::permx, &ImpesGrid::permy,
                 &ImpesGrid::permz, &ImpesGrid::poro, &ImpesGrid::ntg, &ImpesGrid::multx, &ImpesGrid::multy, &ImpesGrid::multz}) {
    (g.*m).assign(g.cells(), 0);
    for (auto& v : g.*m) v = x++;
  }
  g.actnum = {1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1};
  ImpesFluid& f = in.fluid;
  f.rho_w = 1010, f.rho_o = 801, f.gravity = false;
  f.pvtw = {2, 1.02, 5e-5, 0.4, 1e-6};
  f.pvdo = {{50, 300}, {1.2, 1.1}, {1.1, 1.3}};
  f.swof = {{0.2, 0.8}, {0, 0.6}, {1, 0}, {0.4, 0}};
  f.rock = {3, 4e-5};
  ImpesWell w;
  w.name = "INJ-1";
  w.kind = WellKind::Injector;
  w.ref_depth = 2010.5;
  w.completions = {{1, 0, 1, 2.5, 0.3, 1.5}, {1, 0, 0, 0, 0.25, -0.5}};
  w.initial = {false, WellControl::Rate, 300, 410};
  in.wells = {w, w};
  in.wells[1].name = "P";
  in.wells[1].kind = WellKind::Producer;
  in.wells[1].initial.control = WellControl::Lrat;
  in.schedule = {{5, "P", {true, WellControl::Orat, 20, 90}}, {9.5, "INJ-1", {true, WellControl::Bhp, 0, 380}}};
  in.report_times = {1, 10, 20};
  ImpesInitial& i = in.initial;
  i.pressure.assign(g.cells(), 250);
  i.sw.assign(g.cells(), 0.3);
  i.datum_depth = 2000, i.datum_pressure = 240, i.owc_depth = 2050, i.pc_owc = 0.2, i.sw_uniform = 0.25;
  i.hydrostatic = false, i.sublevels = 4;
  in.source = "every_member";
  return in;
}

}  // namespace

TEST_CASE("input wire: an input with every member set survives bytes and back; a corrupt count is refused") {
  const ImpesInput in = every_member();
  const auto bytes = io::pack_impes_input(in);
  check_same(in, io::unpack_impes_input(bytes));
  // a valid grid's sizes, then a count far past the buffer's end: refused before anything is allocated
  std::vector<char> bad(bytes.begin(), bytes.begin() + 3 * sizeof(int));
  const std::uint64_t huge = std::uint64_t(1) << 60;
  bad.insert(bad.end(), reinterpret_cast<const char*>(&huge), reinterpret_cast<const char*>(&huge) + sizeof huge);
  bad.resize(bad.size() + 64, 0);
  CHECK_THROWS_WITH_AS(io::unpack_impes_input(bad), doctest::Contains("cut short"), Error);
}

TEST_CASE("input wire: a deck's reservoir input survives bytes and back, member by member") {
#if POREFLOW_HAVE_OPM
  for (const char* deck : {"/tests/decks/SMALL.DATA", "/validation/decks/HETERO.DATA", "/validation/decks/QFS.DATA"}) {
    CAPTURE(deck);
    ImpesInput in = eclipse::read_deck(std::string(POREFLOW_SOURCE_DIR) + deck)->input();
    // members a deck may leave empty or at their defaults, set here so that each is carried
    in.grid.multx.assign(in.grid.cells(), 0.5);
    in.initial.pressure.assign(in.grid.cells(), 123.0);
    in.initial.sublevels = 3;
    REQUIRE(!in.wells.empty());
    in.wells[0].ref_depth = 1234.5;
    const auto bytes = io::pack_impes_input(in);
    check_same(in, io::unpack_impes_input(bytes));
    // cut short anywhere, or a byte too many: refused, never read past the end
    for (std::size_t cut : {std::size_t(0), std::size_t(7), bytes.size() / 2, bytes.size() - 1})
      CHECK_THROWS_AS(io::unpack_impes_input(std::span<const char>(bytes.data(), cut)), Error);
    std::vector<char> longer = bytes;
    longer.push_back(0);
    CHECK_THROWS_WITH_AS(io::unpack_impes_input(longer), doctest::Contains("more than it holds"), Error);
  }
#else
  MESSAGE("built without opm-common: no deck to read");
#endif
}
