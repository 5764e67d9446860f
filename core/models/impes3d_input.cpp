#include "core/models/impes3d_input.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <set>
#include <sstream>

#include "core/base/enum_names.hpp"
#include "core/base/error.hpp"
#include "core/base/limits.hpp"

namespace poreflow {

std::string impes_grid_text(const ImpesGrid& g) {
  std::ostringstream o;
  o << g.nx << " x " << g.ny << " x " << g.nz << " grid (";
  const auto c = product_within({std::uint64_t(std::max(g.nx, 0)), std::uint64_t(std::max(g.ny, 0)), std::uint64_t(std::max(g.nz, 0))},
                                ~std::uint64_t(0));
  if (c || g.nx <= 0 || g.ny <= 0 || g.nz <= 0) o << c;
  else o << std::setprecision(3) << double(g.nx) * double(g.ny) * double(g.nz);
  o << " cells)";
  return o.str();
}

namespace {

constexpr EnumNames<WellControl, 5> kControls{{{"orat", WellControl::Orat},
                                               {"wrat", WellControl::Wrat},
                                               {"lrat", WellControl::Lrat},
                                               {"rate", WellControl::Rate},
                                               {"bhp", WellControl::Bhp}}};

std::string num(double v) {
  std::ostringstream o;
  o << v;
  return o.str();
}

// "(i, j, k)" 1-based, as Eclipse users count
std::string cell_name(long i, long j, long k) {
  std::ostringstream o;
  o << '(' << i + 1 << ", " << j + 1 << ", " << k + 1 << ')';
  return o.str();
}

struct Checker {
  const ImpesInput& in;
  [[noreturn]] void fail(const std::string& what) const {
    throw ConfigError((in.source.empty() ? std::string() : "case '" + in.source + "': ") + what);
  }

  void sized(const std::vector<double>& v, const char* name, bool optional) const {
    const std::size_t n = in.grid.cells();
    if (v.empty() && optional) return;
    if (v.size() != n)
      fail(std::string(name) + " has " + std::to_string(v.size()) + " values, the grid " + std::to_string(in.grid.nx) +
           " x " + std::to_string(in.grid.ny) + " x " + std::to_string(in.grid.nz) + " has " + std::to_string(n) + " cells");
  }

  // every value of a per-cell array in [lo, hi] (finite), naming the first cell that is not
  void range(const std::vector<double>& v, const char* name, double lo, double hi, bool lo_open, const char* what) const {
    const auto& g = in.grid;
    for (std::size_t c = 0; c < v.size(); ++c) {
      const double x = v[c];
      if (std::isfinite(x) && (lo_open ? x > lo : x >= lo) && x <= hi) continue;
      const long i = static_cast<long>(c % g.nx), j = static_cast<long>((c / g.nx) % g.ny), k = static_cast<long>(c / (std::size_t(g.nx) * g.ny));
      fail(std::string(name) + " of cell " + cell_name(i, j, k) + " = " + num(x) + " " + what);
    }
  }

  void grid() const {
    const auto& g = in.grid;
    if (g.nx < 1 || g.ny < 1 || g.nz < 1)
      fail("the grid " + std::to_string(g.nx) + " x " + std::to_string(g.ny) + " x " + std::to_string(g.nz) +
           " needs at least one cell in each direction");
    sized(g.dx, "DX", false);
    sized(g.dy, "DY", false);
    sized(g.dz, "DZ", false);
    sized(g.tops, "TOPS", false);
    sized(g.permx, "PERMX", false);
    sized(g.permy, "PERMY", false);
    sized(g.permz, "PERMZ", false);
    sized(g.poro, "PORO", false);
    sized(g.ntg, "NTG", true);
    sized(g.multx, "MULTX", true);
    sized(g.multy, "MULTY", true);
    sized(g.multz, "MULTZ", true);
    if (!g.actnum.empty() && g.actnum.size() != g.cells())
      fail("ACTNUM has " + std::to_string(g.actnum.size()) + " values, the grid has " + std::to_string(g.cells()) + " cells");
    const double inf = INFINITY;
    range(g.dx, "DX", 0, inf, true, "must be positive");
    range(g.dy, "DY", 0, inf, true, "must be positive");
    range(g.dz, "DZ", 0, inf, true, "must be positive");
    range(g.tops, "TOPS", -inf, inf, false, "must be finite");
    range(g.permx, "PERMX", 0, inf, false, "is negative (permeabilities are >= 0 mD)");
    range(g.permy, "PERMY", 0, inf, false, "is negative (permeabilities are >= 0 mD)");
    range(g.permz, "PERMZ", 0, inf, false, "is negative (permeabilities are >= 0 mD)");
    range(g.poro, "PORO", 0, 1, false, "must be in [0, 1]");
    range(g.ntg, "NTG", 0, 1, false, "must be in [0, 1]");
    range(g.multx, "MULTX", 0, inf, false, "must be >= 0");
    range(g.multy, "MULTY", 0, inf, false, "must be >= 0");
    range(g.multz, "MULTZ", 0, inf, false, "must be >= 0");
  }

  void increasing(const std::vector<double>& x, const std::string& what) const {
    for (std::size_t r = 1; r < x.size(); ++r)
      if (!(x[r] > x[r - 1]))
        fail(what + " is not increasing: row " + std::to_string(r + 1) + " (" + num(x[r]) + ") after row " + std::to_string(r) +
             " (" + num(x[r - 1]) + ")");
  }

  void fluid() const {
    const auto& f = in.fluid;
    if (!(f.rho_w > 0) || !(f.rho_o > 0)) fail("the surface densities must be positive");
    if (!(f.pvtw.bw > 0) || !(f.pvtw.muw > 0) || !std::isfinite(f.pvtw.cw) || !std::isfinite(f.pvtw.cvw))
      fail("PVTW: B_w and mu_w must be positive, the compressibilities finite");
    if (!std::isfinite(f.rock.cr) || f.rock.cr < 0) fail("ROCK: the compressibility must be >= 0");
    // PVDO
    const auto& o = f.pvdo;
    if (o.p.size() < 2 || o.bo.size() != o.p.size() || o.muo.size() != o.p.size())
      fail("PVDO needs at least 2 rows of (p, B_o, mu_o)");
    increasing(o.p, "PVDO's pressure column");
    for (std::size_t r = 0; r < o.p.size(); ++r)
      if (!(o.bo[r] > 0) || !(o.muo[r] > 0)) fail("PVDO row " + std::to_string(r + 1) + ": B_o and mu_o must be positive");
    for (std::size_t r = 1; r < o.p.size(); ++r)
      if (o.bo[r] > o.bo[r - 1])
        fail("PVDO: B_o must not rise with the pressure (row " + std::to_string(r + 1) + ": " + num(o.bo[r]) + " after " +
             num(o.bo[r - 1]) + ")");
    // SWOF
    const auto& s = f.swof;
    const std::size_t n = s.sw.size();
    if (n < 2 || s.krw.size() != n || s.krow.size() != n || s.pcow.size() != n)
      fail("SWOF needs at least 2 rows of (S_w, k_rw, k_row, p_cow)");
    increasing(s.sw, "SWOF's S_w column");
    if (s.sw.front() < 0 || s.sw.back() > 1) fail("SWOF: S_w must lie in [0, 1]");
    for (std::size_t r = 0; r < n; ++r) {
      if (!(s.krw[r] >= 0 && s.krw[r] <= 1) || !(s.krow[r] >= 0 && s.krow[r] <= 1) || !std::isfinite(s.pcow[r]))
        fail("SWOF row " + std::to_string(r + 1) + ": relative permeabilities must lie in [0, 1]");
      if (r == 0) continue;
      if (s.krw[r] < s.krw[r - 1])
        fail("SWOF: k_rw is not monotonic (row " + std::to_string(r + 1) + ": " + num(s.krw[r]) + " after " + num(s.krw[r - 1]) + ")");
      if (s.krow[r] > s.krow[r - 1])
        fail("SWOF: k_row is not monotonic (row " + std::to_string(r + 1) + ": " + num(s.krow[r]) + " after " + num(s.krow[r - 1]) +
             ")");
      if (s.pcow[r] > s.pcow[r - 1])
        fail("SWOF: p_cow must not increase with S_w (row " + std::to_string(r + 1) + ")");
    }
    // the table spans [S_wc, 1 - S_or]: water immobile at its first row, oil immobile by its last
    if (s.krw.front() != 0)
      fail("SWOF does not start at the connate water saturation: k_rw = " + num(s.krw.front()) + " at its first row (S_w = " +
           num(s.sw.front()) + "), expected 0");
    if (s.krow.back() != 0)
      fail("SWOF does not reach 1 - S_or: k_row = " + num(s.krow.back()) + " at its last row (S_w = " + num(s.sw.back()) +
           "), expected 0");
  }

  void wells() const {
    const auto& g = in.grid;
    std::set<std::string> names;
    std::set<std::size_t> used;
    for (const auto& w : in.wells) {
      const std::string wn = "well '" + w.name + "'";
      if (w.name.empty()) fail("a well has no name");
      if (!names.insert(w.name).second) fail("two wells are named '" + w.name + "'");
      if (w.completions.empty()) fail(wn + " has no completions");
      for (std::size_t c = 0; c < w.completions.size(); ++c) {
        const auto& x = w.completions[c];
        const std::string cn = wn + " completion " + std::to_string(c + 1);
        if (x.i < 0 || x.j < 0 || x.k < 0 || x.i >= g.nx || x.j >= g.ny || x.k >= g.nz)
          fail(cn + ": cell " + cell_name(x.i, x.j, x.k) + " is outside the " + std::to_string(g.nx) + " x " +
               std::to_string(g.ny) + " x " + std::to_string(g.nz) + " grid");
        const std::size_t cell = g.index(x.i, x.j, x.k);
        const double pv = g.dx[cell] * g.dy[cell] * g.dz[cell] * g.poro[cell] * (g.ntg.empty() ? 1.0 : g.ntg[cell]);
        if ((!g.actnum.empty() && g.actnum[cell] == 0) || !(pv > 0))
          fail(cn + ": cell " + cell_name(x.i, x.j, x.k) + " is inactive" +
               (!g.actnum.empty() && g.actnum[cell] == 0 ? " (ACTNUM 0)" : " (no pore volume)"));
        if (!used.insert(cell).second)
          fail(cn + ": cell " + cell_name(x.i, x.j, x.k) + " already has a completion (one completion per cell)");
        if (!(x.wi >= 0) || !std::isfinite(x.wi)) fail(cn + ": the well index must be >= 0");
        if (x.wi == 0 && !(x.diameter > 0)) fail(cn + ": the diameter must be positive");
        if (!std::isfinite(x.skin)) fail(cn + ": the skin must be finite");
      }
      setting(w, w.initial, wn);
    }
  }

  void setting(const ImpesWell& w, const WellSetting& s, const std::string& where) const {
    const bool inj = w.kind == WellKind::Injector;
    if (inj && s.control != WellControl::Rate && s.control != WellControl::Bhp)
      fail(where + ": an injector is controlled by its water rate (rate) or its BHP (bhp), not " + std::string(to_string(s.control)));
    if (!inj && s.control == WellControl::Rate)
      fail(where + ": a producer is controlled by orat, wrat, lrat or bhp, not rate");
    if (!(s.rate >= 0) || !std::isfinite(s.rate)) fail(where + ": the rate must be >= 0");
    if (s.control != WellControl::Bhp && !(s.rate > 0)) fail(where + ": a rate control needs a positive rate");
    if (!(s.bhp > 0) || !std::isfinite(s.bhp)) fail(where + ": the BHP (target or limit) must be positive");
  }

  void schedule() const {
    double last = 0;
    for (std::size_t e = 0; e < in.schedule.size(); ++e) {
      const auto& ev = in.schedule[e];
      const std::string en = "schedule event " + std::to_string(e + 1) + " (well '" + ev.well + "', t = " + num(ev.time) + ")";
      if (!(ev.time >= 0) || !std::isfinite(ev.time)) fail(en + ": the time must be >= 0");
      if (ev.time < last)
        fail(en + ": the time is in the past, before the previous event's " + num(last) + " (events must be in time order)");
      last = ev.time;
      const ImpesWell* w = nullptr;
      for (const auto& x : in.wells)
        if (x.name == ev.well) w = &x;
      if (!w) fail(en + ": there is no well '" + ev.well + "'");
      setting(*w, ev.setting, en);
    }
  }

  void times() const {
    if (in.report_times.empty()) fail("no report times (time.end)");
    double last = 0;
    for (double t : in.report_times) {
      if (!(t > last) || !std::isfinite(t)) fail("report times must increase from > 0 (" + num(t) + " after " + num(last) + ")");
      last = t;
    }
  }

  void initial() const {
    const auto& i = in.initial;
    const std::size_t n = in.grid.cells();
    if (!i.pressure.empty() || !i.sw.empty()) {
      if (i.pressure.size() != n || i.sw.size() != n) fail("the initial pressure and S_w need one value per cell each");
      for (std::size_t c = 0; c < n; ++c)
        if (!(i.pressure[c] > 0) || !(i.sw[c] >= 0 && i.sw[c] <= 1)) fail("initial state of cell " + std::to_string(c + 1) + " is out of range");
    } else if (!(i.datum_pressure > 0) || !std::isfinite(i.datum_depth)) {
      fail("initial: the datum pressure must be positive and its depth finite");
    }
    const auto& s = in.fluid.swof;
    if (std::isfinite(i.sw_uniform) && (i.sw_uniform < s.sw.front() - 1e-12 || i.sw_uniform > s.sw.back() + 1e-12))
      fail("initial S_w = " + num(i.sw_uniform) + " lies outside the SWOF table's [" + num(s.sw.front()) + ", " + num(s.sw.back()) + "]");
  }
};

}  // namespace

const char* to_string(WellControl c) { return enum_name(c, kControls); }
const char* to_string(ReservoirSchemeKind s) { return s == ReservoirSchemeKind::Fim ? "fim" : "impes"; }
WellControl parse_well_control(std::string_view s) { return parse_enum(s, kControls, "well control"); }

void validate(const ImpesInput& in) {
  Checker c{in};
  c.grid();
  c.fluid();
  c.times();
  c.wells();
  c.schedule();
  c.initial();
}

}  // namespace poreflow
