// The reservoir input as bytes and back (core/io/cases/impes_input_wire.hpp): a deck's input, every
// member compared after the round trip; a buffer cut short or too long is refused with a message.
#include <doctest/doctest.h>

#include <cmath>
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

}  // namespace

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
  // a size past the buffer's end (a corrupt count) is refused before anything is allocated
  std::vector<char> huge(16, char(0xff));
  CHECK_THROWS_WITH_AS(io::unpack_impes_input(huge), doctest::Contains("cut short"), Error);
#else
  MESSAGE("built without opm-common: no deck to read");
#endif
}
