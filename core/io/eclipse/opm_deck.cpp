// A deck read by opm-common into impes3d's ImpesInput. opm-common keeps every value in SI; impes3d
// works in METRIC (bar, m, day, mD, cP, sm3), so each value goes through opm's METRIC unit system.
#include "core/io/eclipse/opm_deck.hpp"

#include <cmath>
#include <filesystem>
#include <sstream>

#include <opm/common/utility/OpmInputError.hpp>
#include <opm/common/utility/TimeService.hpp>
#include <opm/input/eclipse/EclipseState/Grid/EclipseGrid.hpp>
#include <opm/input/eclipse/EclipseState/Grid/FieldPropsManager.hpp>
#include <opm/input/eclipse/EclipseState/InitConfig/Equil.hpp>
#include <opm/input/eclipse/EclipseState/InitConfig/InitConfig.hpp>
#include <opm/input/eclipse/EclipseState/Tables/FlatTable.hpp>
#include <opm/input/eclipse/EclipseState/Tables/PvdoTable.hpp>
#include <opm/input/eclipse/EclipseState/Tables/SwofTable.hpp>
#include <opm/input/eclipse/EclipseState/Tables/TableManager.hpp>
#include <opm/input/eclipse/Parser/ErrorGuard.hpp>
#include <opm/input/eclipse/Parser/ParseContext.hpp>
#include <opm/input/eclipse/Parser/Parser.hpp>
#include <opm/input/eclipse/Python/Python.hpp>
#include <opm/input/eclipse/Schedule/SummaryState.hpp>
#include <opm/input/eclipse/Schedule/Well/Connection.hpp>
#include <opm/input/eclipse/Schedule/Well/Well.hpp>
#include <opm/input/eclipse/Schedule/Well/WellConnections.hpp>
#include <opm/input/eclipse/Units/UnitSystem.hpp>
#include <spdlog/spdlog.h>

#include "core/base/error.hpp"
#include "core/io/eclipse/deck_text.hpp"
#include "core/io/eclipse/opm_checks.hpp"
#include "core/io/eclipse/opm_errors.hpp"
#include "core/io/eclipse/opm_keywords.hpp"

namespace poreflow::eclipse {

bool available() { return true; }

namespace {

using Measure = Opm::UnitSystem::measure;
const Opm::UnitSystem kMetric = Opm::UnitSystem::newMETRIC();
double metric(Measure m, double si) { return kMetric.from_si(m, si); }
// compressibilities (1/Pa -> 1/bar)
double per_bar(double per_pa) { return per_pa * kMetric.to_si(Measure::pressure, 1.0); }

[[noreturn]] void fail(const std::string& path, const std::string& what) { throw ConfigError("deck '" + path + "': " + what); }

std::vector<double> column(const Opm::TableColumn& c, Measure m) {
  std::vector<double> v(c.size());
  for (std::size_t i = 0; i < c.size(); ++i) v[i] = metric(m, c[i]);
  return v;
}

// all ones (one region) or empty
bool single_region(const Opm::FieldPropsManager& fp, const std::string& kw) {
  if (!fp.has_int(kw)) return true;
  for (int v : fp.get_int(kw))
    if (v != 1) return false;
  return true;
}

// Cartesian cells with vertical pillars and flat tops and bottoms: what impes3d's per-cell
// DX/DY/DZ/TOPS describe exactly. Checked on active cells (inactive ones may be degenerate).
void read_grid(const Opm::EclipseState& es, ImpesGrid& g, const std::string& path) {
  const auto& eg = es.getInputGrid();
  g.nx = static_cast<int>(eg.getNX());
  g.ny = static_cast<int>(eg.getNY());
  g.nz = static_cast<int>(eg.getNZ());
  const std::size_t n = g.cells();
  g.dx.resize(n);
  g.dy.resize(n);
  g.dz.resize(n);
  g.tops.resize(n);
  g.actnum.assign(eg.getACTNUM().begin(), eg.getACTNUM().end());
  for (std::size_t c = 0; c < n; ++c) {
    const std::size_t i = c % g.nx, j = (c / g.nx) % g.ny, k = c / (std::size_t(g.nx) * g.ny);
    if (!eg.cellActive(c)) {  // sizes only matter for output; keep them positive
      const auto d = eg.getCellDims(c);
      g.dx[c] = d[0] > 0 ? d[0] : 1;
      g.dy[c] = d[1] > 0 ? d[1] : 1;
      g.dz[c] = d[2] > 0 ? d[2] : 1;
      g.tops[c] = eg.getCellDepth(c) - 0.5 * g.dz[c];
      continue;
    }
    std::array<std::array<double, 3>, 8> p;
    for (int q = 0; q < 8; ++q) p[q] = eg.getCornerPos(i, j, k, q);
    const double dx = p[1][0] - p[0][0], dy = p[2][1] - p[0][1], dz = p[4][2] - p[0][2];
    const double tol = 1e-6 * std::max({std::abs(dx), std::abs(dy), std::abs(dz), 1.0});
    bool box = dx > 0 && dy > 0 && dz > 0;
    for (int q = 0; q < 4 && box; ++q) {
      box = std::abs(p[q][0] - p[q + 4][0]) < tol && std::abs(p[q][1] - p[q + 4][1]) < tol;  // vertical pillars
      box = box && std::abs(p[q][2] - p[0][2]) < tol && std::abs(p[q + 4][2] - p[4][2]) < tol;  // flat top, bottom
    }
    box = box && std::abs(p[3][0] - p[2][0] - dx) < tol && std::abs(p[3][1] - p[1][1] - dy) < tol;
    if (!box) {
      std::ostringstream s;
      s << "cell (" << i + 1 << ", " << j + 1 << ", " << k + 1
        << ") is not a box with vertical pillars: poreflow takes Cartesian grids (DX/DY/DZ/TOPS, or COORD/ZCORN with "
           "vertical pillars and flat layers)";
      fail(path, s.str());
    }
    g.dx[c] = dx;
    g.dy[c] = dy;
    g.dz[c] = dz;
    g.tops[c] = p[0][2];
  }
  const auto& fp = es.fieldProps();
  auto global = [&](const std::string& kw, Measure m, std::vector<double>& out) {
    out = fp.get_global_double(kw);
    for (double& v : out) v = metric(m, v);
  };
  global("PERMX", Measure::permeability, g.permx);
  global("PERMY", Measure::permeability, g.permy);
  global("PERMZ", Measure::permeability, g.permz);
  global("PORO", Measure::identity, g.poro);
  if (fp.has_double("NTG")) global("NTG", Measure::identity, g.ntg);
  if (fp.has_double("MULTX")) global("MULTX", Measure::identity, g.multx);
  if (fp.has_double("MULTY")) global("MULTY", Measure::identity, g.multy);
  if (fp.has_double("MULTZ")) global("MULTZ", Measure::identity, g.multz);
  // inactive cells may hold anything; impes3d's checks look at every cell
  for (std::size_t c = 0; c < n; ++c)
    if (!g.actnum[c]) {
      g.permx[c] = g.permy[c] = g.permz[c] = 0;
      g.poro[c] = 0;
    }
}

void read_fluid(const Opm::EclipseState& es, ImpesFluid& f, const std::string& path) {
  const auto& tm = es.getTableManager();
  const auto& fp = es.fieldProps();
  if (!single_region(fp, "SATNUM")) fail(path, "SATNUM gives several saturation regions; poreflow takes one SWOF table");
  if (!single_region(fp, "PVTNUM")) fail(path, "PVTNUM gives several PVT regions; poreflow takes one PVDO/PVTW table");
  if (!single_region(fp, "EQLNUM")) fail(path, "EQLNUM gives several equilibration regions; poreflow takes one EQUIL record");
  const auto& swofs = tm.getSwofTables();
  if (swofs.empty()) fail(path, "SWOF is missing (PROPS): poreflow needs the oil-water saturation functions");
  const auto& sw = swofs.getTable<Opm::SwofTable>(0);
  f.swof.sw = column(sw.getSwColumn(), Measure::identity);
  f.swof.krw = column(sw.getKrwColumn(), Measure::identity);
  f.swof.krow = column(sw.getKrowColumn(), Measure::identity);
  f.swof.pcow = column(sw.getPcowColumn(), Measure::pressure);
  const auto& pvdos = tm.getPvdoTables();
  if (pvdos.empty()) fail(path, "PVDO is missing (PROPS): poreflow's oil is dead oil");
  const auto& pv = pvdos.getTable<Opm::PvdoTable>(0);
  f.pvdo.p = column(pv.getPressureColumn(), Measure::pressure);
  f.pvdo.bo = column(pv.getFormationFactorColumn(), Measure::identity);
  f.pvdo.muo = column(pv.getViscosityColumn(), Measure::viscosity);
  if (tm.getPvtwTable().empty()) fail(path, "PVTW is missing (PROPS)");
  const auto& w = tm.getPvtwTable()[0];
  f.pvtw.pref = metric(Measure::pressure, w.reference_pressure);
  f.pvtw.bw = w.volume_factor;
  f.pvtw.cw = per_bar(w.compressibility);
  f.pvtw.muw = metric(Measure::viscosity, w.viscosity);
  f.pvtw.cvw = per_bar(w.viscosibility);
  if (tm.getDensityTable().empty()) fail(path, "DENSITY is missing (PROPS)");
  f.rho_o = metric(Measure::density, tm.getDensityTable()[0].oil);
  f.rho_w = metric(Measure::density, tm.getDensityTable()[0].water);
  if (!tm.getRockTable().empty()) {
    f.rock.pref = metric(Measure::pressure, tm.getRockTable()[0].reference_pressure);
    f.rock.cr = per_bar(tm.getRockTable()[0].compressibility);
  }
  f.gravity = true;
}

void read_initial(const Opm::EclipseState& es, ImpesInput& in, const std::string& path) {
  const auto& ic = es.getInitConfig();
  auto& ini = in.initial;
  if (ic.hasEquil()) {
    const auto& eq = ic.getEquil();
    if (eq.size() != 1) fail(path, "EQUIL has " + std::to_string(eq.size()) + " records; poreflow takes one");
    const auto& r = eq.getRecord(0);
    ini.datum_depth = metric(Measure::length, r.datumDepth());
    ini.datum_pressure = metric(Measure::pressure, r.datumDepthPressure());
    ini.owc_depth = metric(Measure::length, r.waterOilContactDepth());
    ini.pc_owc = metric(Measure::pressure, r.waterOilContactCapillaryPressure());
    ini.hydrostatic = true;
    // item 9, the accuracy of the initial fluids in place: 0 the cells' centres, -N the mean over
    // 2N slices of each cell (OPM Flow's default -5, which poreflow follows); +N (tilted blocks) is
    // OPM Flow's refusal too
    const int acc = r.initializationTargetAccuracy();
    if (acc > 0)
      fail(path, "EQUIL item 9 = " + std::to_string(acc) +
                     ": a positive accuracy (tilted fault blocks) is not supported; 0 takes the value at each cell's centre, "
                     "-N the mean over 2N slices of it");
    ini.sublevels = -acc;
    return;
  }
  const auto& fp = es.fieldProps();
  if (!fp.has_double("PRESSURE") || !fp.has_double("SWAT"))
    fail(path, "SOLUTION needs EQUIL, or PRESSURE and SWAT for every cell");
  ini.pressure = fp.get_global_double("PRESSURE");
  for (double& p : ini.pressure) p = metric(Measure::pressure, p);
  ini.sw = fp.get_global_double("SWAT");
  for (std::size_t c = 0; c < ini.sw.size(); ++c)
    if (!in.grid.actnum[c]) ini.pressure[c] = ini.sw[c] = 0;
}

using PMode = Opm::Well::ProducerCMode;
using IMode = Opm::Well::InjectorCMode;

std::string at_step(const Opm::Schedule& s, std::size_t step) {
  std::ostringstream o;
  o << "at report step " << step << " (day " << s.seconds(step) / 86400.0 << ")";
  return o.str();
}

// A well's control at a report step in impes3d's terms: one target, one limit.
WellSetting setting_of(const Opm::Well& w, const Opm::SummaryState& st, const Opm::Schedule& s, std::size_t step,
                       const std::string& path) {
  WellSetting x;
  x.open = w.getStatus() == Opm::Well::Status::OPEN;
  const std::string who = "well " + w.name() + " " + at_step(s, step) + ": ";
  const auto rate = [](double si) { return metric(Measure::liquid_surface_rate, si); };
  if (w.isInjector()) {
    if (w.injectorType() != Opm::InjectorType::WATER) fail(path, who + "injects something other than water");
    const auto c = w.injectionControls(st);
    x.bhp = c.hasControl(IMode::BHP) ? metric(Measure::pressure, c.bhp_limit) : 6895;  // Eclipse's default limit, 1e5 psi
    if (c.cmode == IMode::RATE) {
      x.control = WellControl::Rate;
      x.rate = rate(c.surface_rate);
    } else if (c.cmode == IMode::BHP) {
      x.control = WellControl::Bhp;
      x.rate = c.hasControl(IMode::RATE) ? rate(c.surface_rate) : 0;
    } else {
      fail(path, who + "injector control " + Opm::Well::InjectorCMode2String(c.cmode) + " is not supported (RATE or BHP)");
    }
    // (GRUP is among every well's controls; only a group-controlled well is refused, above)
    for (IMode m : {IMode::RESV, IMode::THP})
      if (c.hasControl(m) && m != c.cmode)
        fail(path, who + "a " + Opm::Well::InjectorCMode2String(m) + " limit is not supported (a RATE and a BHP limit are)");
    return x;
  }
  const auto c = w.productionControls(st);
  x.bhp = c.hasControl(PMode::BHP) ? metric(Measure::pressure, c.bhp_limit) : 1.01325;  // Eclipse's default, 1 atm
  int rate_limits = 0;
  for (PMode m : {PMode::ORAT, PMode::WRAT, PMode::LRAT}) rate_limits += c.hasControl(m) ? 1 : 0;
  for (PMode m : {PMode::GRAT, PMode::RESV, PMode::THP, PMode::GRUP, PMode::CRAT})
    if ((m != PMode::GRUP && c.hasControl(m)) || c.cmode == m)
      fail(path, who + "producer control or limit " + Opm::Well::ProducerCMode2String(m) +
                     " is not supported (ORAT, WRAT, LRAT or BHP, with one rate and a BHP limit)");
  switch (c.cmode) {
    case PMode::ORAT: x.control = WellControl::Orat; x.rate = rate(c.oil_rate); break;
    case PMode::WRAT: x.control = WellControl::Wrat; x.rate = rate(c.water_rate); break;
    case PMode::LRAT: x.control = WellControl::Lrat; x.rate = rate(c.liquid_rate); break;
    case PMode::BHP:
      x.control = WellControl::Bhp;
      // under BHP control impes3d limits the liquid rate
      if (c.hasControl(PMode::ORAT) || c.hasControl(PMode::WRAT))
        fail(path, who + "under BHP control poreflow takes an LRAT limit only (ORAT/WRAT limits are not supported)");
      x.rate = c.hasControl(PMode::LRAT) ? rate(c.liquid_rate) : 0;
      return x;
    default: fail(path, who + "producer control " + Opm::Well::ProducerCMode2String(c.cmode) + " is not supported");
  }
  if (rate_limits > 1) fail(path, who + "more than one rate limit (ORAT/WRAT/LRAT); poreflow takes one rate and a BHP limit");
  return x;
}

struct Conn {
  long i, j, k;
  double cf;
  bool operator==(const Conn& o) const { return i == o.i && j == o.j && k == o.k && cf == o.cf; }
};

std::vector<Conn> open_connections(const Opm::Well& w, const Opm::Schedule& s, std::size_t step, const std::string& path) {
  std::vector<Conn> v;
  for (const auto& c : w.getConnections()) {
    if (c.state() != Opm::Connection::State::OPEN) continue;
    if (c.dir() != Opm::Connection::Direction::Z)
      fail(path, "well " + w.name() + " " + at_step(s, step) + ": a horizontal connection (COMPDAT direction " +
                     Opm::Connection::Direction2String(c.dir()) + ") is not supported; impes3d's wells are vertical");
    v.push_back({c.getI(), c.getJ(), c.getK(), c.CF()});
  }
  return v;
}

void read_wells(const Opm::Schedule& s, ImpesInput& in, const std::string& path) {
  const Opm::SummaryState st(Opm::TimeService::from_time_t(s.getStartTime()));
  std::map<std::string, std::size_t> index;
  std::map<std::string, std::vector<Conn>> conns;
  for (std::size_t step = 0; step < s.size(); ++step) {
    const double day = s.seconds(step) / 86400.0;
    for (const auto& w : s.getWells(step)) {
      const WellSetting x = setting_of(w, st, s, step, path);
      const auto cs = open_connections(w, s, step, path);
      auto it = index.find(w.name());
      if (it == index.end()) {
        ImpesWell nw;
        nw.name = w.name();
        nw.kind = w.isInjector() ? WellKind::Injector : WellKind::Producer;
        nw.ref_depth = metric(Measure::length, w.getRefDepth());
        for (const auto& c : cs) nw.completions.push_back({c.i, c.j, c.k, metric(Measure::transmissibility, c.cf), 0.2, 0});
        if (cs.empty()) fail(path, "well " + w.name() + " " + at_step(s, step) + " has no open connection (COMPDAT)");
        nw.initial = x;
        if (step > 0) {  // defined later: shut until then
          nw.initial.open = false;
          in.schedule.push_back({day, nw.name, x});
        }
        index[nw.name] = in.wells.size();
        conns[nw.name] = cs;
        in.wells.push_back(std::move(nw));
        continue;
      }
      ImpesWell& pw = in.wells[it->second];
      if ((pw.kind == WellKind::Injector) != w.isInjector())
        fail(path, "well " + w.name() + " " + at_step(s, step) + " changes between producer and injector; poreflow keeps a well's type");
      if (!(cs == conns[w.name()]))
        fail(path, "well " + w.name() + " " + at_step(s, step) +
                       ": its connections change (COMPDAT or WELOPEN on connections); poreflow keeps a well's completions");
      WellSetting last = pw.initial;
      for (const auto& e : in.schedule)
        if (e.well == pw.name) last = e.setting;
      const bool same = last.open == x.open && last.control == x.control && last.rate == x.rate && last.bhp == x.bhp;
      if (!same) in.schedule.push_back({day, pw.name, x});
    }
  }
  // the schedule's states start at 0 and at the end of every TSTEP/DATES step; the last one
  // (after the last step) has no length of its own
  for (std::size_t step = 1; step < s.size(); ++step) {
    const double t = s.seconds(step);
    if (t > 0 && (in.report_times.empty() || t / 86400.0 > in.report_times.back())) in.report_times.push_back(t / 86400.0);
  }
  if (in.report_times.empty()) fail(path, "the SCHEDULE has no time steps (TSTEP or DATES)");
}

// opm-common drops a COMPDAT connection in an inactive cell; poreflow refuses it, as its TOML route
// does, so a completion never disappears silently
void check_completions(const Opm::Deck& deck, const Opm::EclipseGrid& grid, const Opm::Schedule& s, const std::string& path) {
  for (const auto& kw : deck["COMPDAT"]) {
    const auto& loc = kw.location();
    for (const auto& rec : kw) {
      const std::string well = rec.getItem("WELL").get<std::string>(0);
      if (well.find_first_of("*?") != std::string::npos) continue;  // a pattern: checked through the schedule
      auto head = [&](bool i_axis) {
        const auto& w = s.getWell(well, s.size() - 1);
        return i_axis ? w.getHeadI() : w.getHeadJ();
      };
      const auto& ii = rec.getItem("I");
      const auto& jj = rec.getItem("J");
      const int i = ii.defaultApplied(0) || ii.get<int>(0) == 0 ? head(true) : ii.get<int>(0) - 1;
      const int j = jj.defaultApplied(0) || jj.get<int>(0) == 0 ? head(false) : jj.get<int>(0) - 1;
      const int k1 = rec.getItem("K1").get<int>(0) - 1, k2 = rec.getItem("K2").get<int>(0) - 1;
      for (int k = k1; k <= k2; ++k) {
        if (i < 0 || j < 0 || k < 0 || std::size_t(i) >= grid.getNX() || std::size_t(j) >= grid.getNY() || std::size_t(k) >= grid.getNZ())
          continue;  // opm-common reports cells outside the grid itself
        if (!grid.cellActive(i, j, k)) {
          std::ostringstream o;
          o << "COMPDAT (" << loc.filename << ":" << loc.lineno << "): well " << well << " is completed in cell (" << i + 1 << ", "
            << j + 1 << ", " << k + 1 << "), which is inactive (ACTNUM, MINPV or zero pore volume)";
          fail(path, o.str());
        }
      }
    }
  }
}

}  // namespace

std::shared_ptr<const Deck> read_deck(const std::string& path) {
  if (!std::filesystem::exists(path)) throw ConfigError("deck '" + path + "' does not exist");
  if (std::filesystem::is_directory(path)) throw ConfigError("deck '" + path + "' is a folder, not a .DATA file");
  auto d = std::make_shared<OpmDeck>();
  d->basename_ = std::filesystem::path(path).stem().string();
  d->input_.source = path;
  // OPM Flow's defaults (a missing EQLDIMS takes its default), but text that is not a keyword, a
  // stray slash or a missing INCLUDE is an error with its file and line
  Opm::ParseContext ctx;
  for (const char* key : {"PARSE_UNKNOWN_KEYWORD", "PARSE_RANDOM_TEXT", "PARSE_RANDOM_SLASH", "PARSE_MISSING_INCLUDE",
                          "PARSE_EXTRA_RECORDS", "PARSE_EXTRA_DATA", "PARSE_LONG_KEYWORD", "SUMMARY_UNKNOWN_WELL"})
    ctx.update(key, Opm::InputError::THROW_EXCEPTION);
  ctx.update("PARSE_MISSING_DIMS_KEYWORD", Opm::InputError::IGNORE);  // EQLDIMS and the like: their defaults
  Opm::ErrorGuard errors;
  try {
    check_deck_text(path);  // before opm-common words the deck's text into its messages
    Opm::Parser parser;
    const Opm::Deck deck = parser.parseFile(path, ctx, errors);
    for (const auto& note : check_keywords(deck)) spdlog::warn("{}", note);
    if (!deck.hasKeyword("OIL") || !deck.hasKeyword("WATER")) fail(path, "RUNSPEC must declare OIL and WATER (poreflow is oil-water)");
    try {
      check_deck_values(deck);  // before opm-common's own checks, which name no place
    } catch (const ConfigError& e) {
      fail(path, e.what());
    }
    d->state = std::make_unique<Opm::EclipseState>(deck);
    auto python = std::make_shared<Opm::Python>(Opm::Python::Enable::OFF);
    d->schedule = std::make_unique<Opm::Schedule>(deck, *d->state, ctx, errors, python);
    d->summary_config = std::make_unique<Opm::SummaryConfig>(deck, *d->schedule, d->state->fieldProps(), d->state->aquifer(), ctx, errors);
    if (errors) {
      std::ostringstream s;
      errors.dump();
      s << "opm-common reported errors reading it (listed above)";
      errors.clear();
      fail(path, s.str());
    }
    check_completions(deck, d->state->getInputGrid(), *d->schedule, path);
    read_grid(*d->state, d->input_.grid, path);
    read_fluid(*d->state, d->input_.fluid, path);
    read_initial(*d->state, d->input_, path);
    read_wells(*d->schedule, d->input_, path);
    // impes3d's own checks (tables, wells in inactive cells, ...), with the place of the keyword
    // a message names
    try {
      validate(d->input_);
    } catch (const ConfigError& e) {
      const std::string case_name = "case '" + path + "': ";
      std::string what = e.what();
      if (what.rfind(case_name, 0) == 0) what = what.substr(case_name.size());
      fail(path, with_keyword_place(what, deck));
    }
  } catch (const ConfigError&) {
    errors.clear();
    throw;
  } catch (const std::exception& e) {  // opm-common's OpmInputError and the rest
    errors.clear();
    throw ConfigError(std::string("deck '") + path + "': " + explain_opm_error(e, path));
  }
  return d;
}

}  // namespace poreflow::eclipse
