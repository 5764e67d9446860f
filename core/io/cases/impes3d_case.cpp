// The TOML route into an impes3d run (docs/impes3d.md lists every key and its unit): a Cartesian
// grid of uniform, per-axis or generated properties, tables, wells, a schedule, report times and
// the numerics. Fills the same ImpesInput an Eclipse deck fills.
#include <algorithm>
#include <climits>
#include <cmath>
#include <filesystem>
#include <sstream>
#include <set>
#include <string>
#include <vector>

#include <spdlog/spdlog.h>

#include "core/base/error.hpp"
#include "core/base/format.hpp"
#include "core/base/limits.hpp"
#include "core/io/case_file.hpp"
#include "core/io/eclipse/deck.hpp"
#include "core/io/cases/impes_input_wire.hpp"
#include "core/io/cases/cases.hpp"
#include "core/models/impes3d_fields.hpp"

namespace poreflow {
namespace {

std::string idx(const std::string& base, std::size_t i) { return base + "[" + std::to_string(i) + "]"; }

// a per-axis size: `key` as one number or nk values; or `extent` (lx, ly, lz) divided evenly
std::vector<double> axis_sizes(io::CaseFile& cf, const std::string& key, const std::string& extent, int n, double def) {
  auto v = cf.get_numbers("grid." + key);
  const double ext = cf.get_double("grid." + extent, 0);
  if (!v.empty() && ext > 0) cf.fail("grid." + extent, "and grid." + key + " are both given: use one");
  if (ext < 0) cf.fail("grid." + extent, "must be positive");
  if (ext > 0) return std::vector<double>(n, ext / n);
  if (v.empty()) return std::vector<double>(n, def);
  if (v.size() == 1) return std::vector<double>(n, v[0]);
  if (v.size() != static_cast<std::size_t>(n))
    cf.fail("grid." + key, "has " + std::to_string(v.size()) + " values: give one, or one per cell along its axis (" + std::to_string(n) + ")");
  for (double x : v)
    if (!(x > 0)) cf.fail("grid." + key, "must be positive");
  return v;
}

// a rock property: one number, or one per layer (nz values); fills every cell
std::vector<double> layered(io::CaseFile& cf, const std::string& key, const ImpesGrid& g, double def, bool* given = nullptr) {
  auto v = cf.get_numbers(key);
  if (given) *given = !v.empty();
  if (v.empty()) v = {def};
  if (v.size() != 1 && v.size() != static_cast<std::size_t>(g.nz))
    cf.fail(key, "has " + std::to_string(v.size()) + " values: give one, or one per layer (" + std::to_string(g.nz) + ")");
  std::vector<double> out(g.cells());
  const std::size_t plane = static_cast<std::size_t>(g.nx) * g.ny;
  for (std::size_t c = 0; c < out.size(); ++c) out[c] = v.size() == 1 ? v[0] : v[c / plane];
  return out;
}

// 1-based index from the case, negative counting from the end (-1: the last)
long cell_index(io::CaseFile& cf, const std::string& key, long n, long def) {
  const long v = cf.get_int(key, def);
  if (v == 0) cf.fail(key, "= 0: indices start at 1 (negative ones count from the end, -1 is the last)");
  return v > 0 ? v - 1 : n + v;
}

WellSetting read_setting(io::CaseFile& cf, const std::string& base, WellSetting s, WellKind kind) {
  s.open = cf.get_bool(base + ".open", s.open);
  if (cf.has(base + ".control")) s.control = cf.get_choice(base + ".control", "bhp", parse_well_control);
  else cf.get_string(base + ".control", "");
  s.rate = cf.get_double(base + ".rate", s.rate);
  s.bhp = cf.get_double(base + ".bhp", s.bhp);
  (void)kind;
  return s;
}

SwofTable read_swof(io::CaseFile& cf) {
  SwofTable t;
  auto rows = cf.get_rows("fluid.swof");
  if (rows.empty()) {
    // Corey curves when no table is given
    const double swc = cf.in_range("fluid.corey.swc", 0.2, 0, 1, false, true);
    const double sor = cf.in_range("fluid.corey.sor", 0.2, 0, 1, false, true);
    if (swc + sor >= 1) cf.fail("fluid.corey.swc", "+ fluid.corey.sor must be < 1");
    const double nw = cf.positive("fluid.corey.nw", 2), no = cf.positive("fluid.corey.no", 2);
    const double krw_max = cf.in_range("fluid.corey.krw_max", 1, 0, 1, true, false);
    const double kro_max = cf.in_range("fluid.corey.kro_max", 1, 0, 1, true, false);
    const double pc_max = cf.non_negative("fluid.corey.pc_max", 0);
    const long n = cf.int_at_least("fluid.corey.rows", 21, 2);
    for (long r = 0; r < n; ++r) {
      const double se = double(r) / double(n - 1);
      t.sw.push_back(swc + (1 - swc - sor) * se);
      t.krw.push_back(krw_max * std::pow(se, nw));
      t.krow.push_back(kro_max * std::pow(1 - se, no));
      t.pcow.push_back(pc_max * (1 - se));
    }
    if (sor > 0) {  // above 1 - S_or the oil is immobile and the water's k_rw stays
      t.sw.push_back(1.0);
      t.krw.push_back(krw_max);
      t.krow.push_back(0.0);
      t.pcow.push_back(0.0);
    }
    return t;
  }
  for (std::size_t r = 0; r < rows.size(); ++r) {
    if (rows[r].size() != 4) cf.fail("fluid.swof", "row " + std::to_string(r + 1) + " needs 4 values: S_w, k_rw, k_row, p_cow");
    t.sw.push_back(rows[r][0]);
    t.krw.push_back(rows[r][1]);
    t.krow.push_back(rows[r][2]);
    t.pcow.push_back(rows[r][3]);
  }
  return t;
}


// grid, rock, fluid, wells, schedule and report times from the case's own keys
void read_toml_input(io::CaseFile& cf, Backend& be, Precision prec, ImpesInput& in, int processes) {
  in.source = cf.source();
  ImpesGrid& g = in.grid;
  const std::string axis = "2^31 - 1: an axis is counted in 32 bits";
  g.nx = static_cast<int>(cf.int_in_range("grid.nx", 10, 1, INT_MAX, axis));
  g.ny = static_cast<int>(cf.int_in_range("grid.ny", 10, 1, INT_MAX, axis));
  g.nz = static_cast<int>(cf.int_in_range("grid.nz", 1, 1, INT_MAX, axis));
  if (!product_within({std::uint64_t(g.nx), std::uint64_t(g.ny), std::uint64_t(g.nz)}))
    cf.fail("grid.nx", "x grid.ny x grid.nz: the " + impes_grid_text(g) + " is past the limit of 2^48 cells (" +
                           std::to_string(kMaxArrayValues) + ", the most values of one array)");
  const std::size_t n = g.cells();
  check_impes3d_memory(g, 0, 0, prec, be, ReservoirSchemeKind::Impes, processes);  // before anything of the grid's size is built
  const auto dxs = axis_sizes(cf, "dx", "lx", g.nx, 10), dys = axis_sizes(cf, "dy", "ly", g.ny, 10),
             dzs = axis_sizes(cf, "dz", "lz", g.nz, 1);
  const double top = cf.get_double("grid.top", 1000);
  const double dip_x = cf.get_double("grid.dip_x", 0), dip_y = cf.get_double("grid.dip_y", 0);
  g.dx.resize(n);
  g.dy.resize(n);
  g.dz.resize(n);
  g.tops.resize(n);
  double above = 0;  // the thickness of the layers above layer k
  for (int k = 0; k < g.nz; above += dzs[k], ++k) {
    double x = 0;
    for (int i = 0; i < g.nx; ++i) {
      double y = 0;
      for (int j = 0; j < g.ny; ++j) {
        const std::size_t cc = g.index(i, j, k);
        g.dx[cc] = dxs[i];
        g.dy[cc] = dys[j];
        g.dz[cc] = dzs[k];
        // tilted layers: the depth of the top grows along x and y through the cells' centres
        g.tops[cc] = top + above + dip_x * (x + 0.5 * dxs[i]) + dip_y * (y + 0.5 * dys[j]);
        y += dys[j];
      }
      x += dxs[i];
    }
  }

  // rock: uniform or per layer, or generated
  if (cf.has("rock.generate")) {
    LayeredFieldSpec s;
    s.seed = static_cast<std::uint64_t>(cf.int_at_least("rock.generate.seed", 1, 0));
    auto range = [&](const char* key, double lo, double hi, double* a, double* b) {
      auto v = cf.get_numbers(std::string("rock.generate.") + key);
      if (v.empty()) v = {lo, hi};
      if (v.size() != 2 || !(v[0] > 0) || !(v[1] >= v[0]))
        cf.fail(std::string("rock.generate.") + key, "must be [min, max] with 0 < min <= max");
      *a = v[0];
      *b = v[1];
    };
    range("kh", 100, 1000, &s.kh_min, &s.kh_max);
    range("kv", 10, 100, &s.kv_min, &s.kv_max);
    range("poro", 0.15, 0.3, &s.poro_min, &s.poro_max);
    if (s.poro_max > 1) cf.fail("rock.generate.poro", "must lie in (0, 1]");
    s.correlation_length = cf.non_negative("rock.generate.correlation_length", 5);
    s.layer_correlation = cf.in_range("rock.generate.layer_correlation", 0.7, 0, 1, false, true);
    const auto f = generate_layered(g.nx, g.ny, g.nz, s);
    g.permx = f.kh;
    g.permy = f.kh;
    g.permz = f.kv;
    g.poro = f.poro;
  } else {
    bool has_y = false, has_z = false;
    g.permx = layered(cf, "rock.permx", g, 100);
    g.permy = layered(cf, "rock.permy", g, 0, &has_y);
    if (!has_y) g.permy = g.permx;
    g.permz = layered(cf, "rock.permz", g, 0, &has_z);
    if (!has_z) {
      const double kvkh = cf.non_negative("rock.kv_kh", 0.1);
      for (std::size_t cc = 0; cc < n; ++cc) g.permz[cc] = kvkh * g.permx[cc];
    }
    g.poro = layered(cf, "rock.poro", g, 0.2);
  }
  g.ntg = layered(cf, "rock.ntg", g, 1.0);
  // inactive cells: a list of [i, j, k] (1-based)
  for (const auto& r : cf.get_rows("grid.inactive")) {
    if (r.size() != 3) cf.fail("grid.inactive", "rows are [i, j, k] (1-based)");
    const long i = long(r[0]) - 1, j = long(r[1]) - 1, k = long(r[2]) - 1;
    if (i < 0 || j < 0 || k < 0 || i >= g.nx || j >= g.ny || k >= g.nz)
      cf.fail("grid.inactive", "cell [" + std::to_string(i + 1) + ", " + std::to_string(j + 1) + ", " + std::to_string(k + 1) +
                                   "] is outside the grid");
    if (g.actnum.empty()) g.actnum.assign(n, 1);
    g.actnum[g.index(i, j, k)] = 0;
  }
  in.fluid.rock.cr = cf.non_negative("rock.compressibility", 5e-5);
  in.fluid.rock.pref = cf.get_double("rock.p_ref", 1.01325);

  // fluid
  auto& f = in.fluid;
  f.rho_w = cf.positive("fluid.rho_water", 1000);
  f.rho_o = cf.positive("fluid.rho_oil", 850);
  f.gravity = cf.get_bool("fluid.gravity", true);
  if (auto w = cf.get_numbers("fluid.pvtw"); !w.empty()) {
    if (w.size() != 5) cf.fail("fluid.pvtw", "needs 5 values: p_ref (bar), B_w, c_w (1/bar), mu_w (cP), c_v (1/bar)");
    f.pvtw = {w[0], w[1], w[2], w[3], w[4]};
  }
  for (const auto& r : cf.get_rows("fluid.pvdo")) {
    if (r.size() != 3) cf.fail("fluid.pvdo", "rows are [p (bar), B_o, mu_o (cP)]");
    f.pvdo.p.push_back(r[0]);
    f.pvdo.bo.push_back(r[1]);
    f.pvdo.muo.push_back(r[2]);
  }
  if (f.pvdo.p.empty()) {
    // a slightly compressible oil when no table is given
    const double bo = cf.positive("fluid.bo", 1.1), mu = cf.positive("fluid.mu_oil", 2.0), co = cf.non_negative("fluid.c_oil", 1e-4);
    for (double p : {1.0, 100.0, 200.0, 400.0, 800.0}) {
      f.pvdo.p.push_back(p);
      f.pvdo.bo.push_back(bo / (1 + co * (p - 100.0)));
      f.pvdo.muo.push_back(mu);
    }
  }
  f.swof = read_swof(cf);

  // initial state: equilibrium from a datum
  auto& ini = in.initial;
  ini.datum_pressure = cf.positive("initial.pressure", 100);
  ini.datum_depth = cf.get_double("initial.datum_depth", g.tops[0]);
  ini.hydrostatic = cf.get_bool("initial.hydrostatic", true);
  ini.owc_depth = cf.get_double("initial.owc_depth", ini.owc_depth);
  ini.pc_owc = cf.get_double("initial.pc_owc", 0);
  {
    const long sub = cf.get_int("initial.sublevels", 0);
    if (sub < 0 || sub > 100) cf.fail("initial.sublevels", "= " + std::to_string(sub) + " is not in [0, 100]");
    ini.sublevels = static_cast<int>(sub);
  }
  if (cf.has("initial.sw")) {
    if (std::isfinite(ini.owc_depth)) cf.fail("initial.sw", "and initial.owc_depth are both given: a contact sets S_w");
    ini.sw_uniform = cf.in_range("initial.sw", 0.2, 0, 1, false, false);
  }

  // wells
  const std::size_t nw = cf.count("wells");
  for (std::size_t w = 0; w < nw; ++w) {
    const std::string b = idx("wells", w);
    ImpesWell well;
    well.name = cf.get_string(b + ".name", "");
    if (well.name.empty()) cf.fail(b + ".name", "is missing");
    const std::string type = cf.get_string(b + ".type", "producer");
    if (type == "producer") well.kind = WellKind::Producer;
    else if (type == "injector") well.kind = WellKind::Injector;
    else cf.fail(b + ".type", "= '" + type + "' is not producer or injector");
    const long i = cell_index(cf, b + ".i", g.nx, 1), j = cell_index(cf, b + ".j", g.ny, 1);
    auto ks = cf.get_numbers(b + ".k");
    if (ks.empty()) ks = {1, double(g.nz)};
    if (ks.size() == 1) ks.push_back(ks[0]);
    if (ks.size() != 2 || ks[0] != std::floor(ks[0]) || ks[1] != std::floor(ks[1]) || ks[0] == 0 || ks[1] == 0)
      cf.fail(b + ".k", "must be a layer or [first, last] (1-based; negative counts from the bottom)");
    long k0 = ks[0] > 0 ? long(ks[0]) - 1 : g.nz + long(ks[0]);
    long k1 = ks[1] > 0 ? long(ks[1]) - 1 : g.nz + long(ks[1]);
    if (k1 < k0)  // refused, not reordered: a reversed pair is more likely a typo than a wish
      cf.fail(b + ".k", "= [" + std::to_string(long(ks[0])) + ", " + std::to_string(long(ks[1])) + "] runs upward: layer " +
                            std::to_string(k0 + 1) + " is below layer " + std::to_string(k1 + 1) +
                            " (write [first, last] from the top down)");
    const double diameter = cf.positive(b + ".diameter", 0.2), skin = cf.get_double(b + ".skin", 0);
    const double wi = cf.non_negative(b + ".wi", 0);
    const bool skip_inactive = cf.get_bool(b + ".skip_inactive", false);
    for (long k = k0; k <= k1; ++k) {
      if (skip_inactive && i >= 0 && j >= 0 && i < g.nx && j < g.ny && k >= 0 && k < g.nz && !g.actnum.empty() &&
          g.actnum[g.index(i, j, k)] == 0)
        continue;
      well.completions.push_back({i, j, k, wi, diameter, skin});
    }
    well.ref_depth = cf.get_double(b + ".ref_depth", well.ref_depth);
    WellSetting s;
    s.control = well.kind == WellKind::Injector ? WellControl::Rate : WellControl::Lrat;
    s.bhp = well.kind == WellKind::Injector ? 1000 : 1.01325;  // no limit to speak of unless given
    well.initial = read_setting(cf, b, s, well.kind);
    in.wells.push_back(std::move(well));
  }
  // the schedule: from `time` on, the named well's keys that are given
  const std::size_t ne = cf.count("schedule");
  for (std::size_t e = 0; e < ne; ++e) {
    const std::string b = idx("schedule", e);
    ScheduleEvent ev;
    if (!cf.has(b + ".time")) cf.fail(b + ".time", "is missing (days from the start)");
    ev.time = cf.get_double(b + ".time", -1);
    ev.well = cf.get_string(b + ".well", "");
    const ImpesWell* w = nullptr;
    for (const auto& x : in.wells)
      if (x.name == ev.well) w = &x;
    if (!w) cf.fail(b + ".well", "= '" + ev.well + "' is not a well of this case");
    // settings build on the well's latest earlier setting
    WellSetting base = w->initial;
    for (const auto& prev : in.schedule)
      if (prev.well == ev.well) base = prev.setting;
    ev.setting = read_setting(cf, b, base, w->kind);
    in.schedule.push_back(ev);
  }

  // time
  const double end = cf.positive("time.end", 100);
  auto rt = cf.get_numbers("time.report_times");
  const long reports = cf.int_at_least("time.reports", 10, 1);
  if (!rt.empty()) {
    in.report_times = rt;
    if (rt.back() != end) in.report_times.push_back(end);
  } else {
    for (long r = 1; r <= reports; ++r) {
      const double t = end * double(r) / double(reports);  // near the largest double, end x r overflows
      in.report_times.push_back(std::isfinite(t) ? t : end * (double(r) / double(reports)));
    }
  }
}

// input.deck: an Eclipse deck, relative to the case file's folder
std::string deck_path(io::CaseFile& cf) {
  std::filesystem::path p = cf.get_string("input.deck", "");
  if (p.empty()) cf.fail("input.deck", "is empty (the path of a .DATA deck)");
  const std::filesystem::path src = cf.source();
  if (p.is_relative() && std::filesystem::is_regular_file(src)) p = src.parent_path() / p;
  return p.string();
}

// The keys of read_toml_input that a deck fills, with what sets them there (the most specific
// prefix first): on a deck they are refused, naming the deck, instead of "unknown key".
struct DeckKey {
  const char* prefix;
  const char* keywords;
};
constexpr DeckKey kDeckKeys[] = {
    {"grid.nx", "DIMENS"}, {"grid.ny", "DIMENS"}, {"grid.nz", "DIMENS"},
    {"grid.dx", "DX or DXV"}, {"grid.lx", "DX or DXV"}, {"grid.dy", "DY or DYV"}, {"grid.ly", "DY or DYV"},
    {"grid.dz", "DZ or DZV"}, {"grid.lz", "DZ or DZV"}, {"grid.top", "TOPS"}, {"grid.dip_x", "TOPS"},
    {"grid.dip_y", "TOPS"}, {"grid.inactive", "ACTNUM"}, {"grid", "its GRID section"},
    {"rock.permx", "PERMX"}, {"rock.permy", "PERMY"}, {"rock.permz", "PERMZ"}, {"rock.kv_kh", "PERMZ"},
    {"rock.poro", "PORO"}, {"rock.ntg", "NTG"}, {"rock.generate", "PERMX, PERMY, PERMZ and PORO"},
    {"rock.compressibility", "ROCK"}, {"rock.p_ref", "ROCK"}, {"rock", "its GRID and PROPS sections"},
    {"fluid.rho_water", "DENSITY"}, {"fluid.rho_oil", "DENSITY"}, {"fluid.pvtw", "PVTW"}, {"fluid.pvdo", "PVDO"},
    {"fluid.bo", "PVDO"}, {"fluid.mu_oil", "PVDO"}, {"fluid.c_oil", "PVDO"}, {"fluid.swof", "SWOF"},
    {"fluid.corey", "SWOF"}, {"fluid", "its PROPS section"},
    {"initial", "EQUIL, or PRESSURE and SWAT"},
    {"wells", "WELSPECS, COMPDAT, WCONPROD and WCONINJE"},
    {"schedule", "WCONPROD, WCONINJE and WELOPEN in its SCHEDULE"},
    {"time.reports", "TSTEP or DATES"}, {"time.report_times", "TSTEP or DATES"},
};

bool under(const std::string& key, const std::string& prefix) {
  return key.compare(0, prefix.size(), prefix) == 0 &&
         (key.size() == prefix.size() || key[prefix.size()] == '.' || key[prefix.size()] == '[');
}

void refuse_deck_keys(const io::CaseFile& cf, const std::string& deck) {
  const std::string name = std::filesystem::path(deck).filename().string();
  for (const auto& key : cf.keys())
    for (const auto& d : kDeckKeys)
      if (under(key, d.prefix)) {
        const bool reports = key.rfind("time.", 0) == 0;
        cf.fail(key, std::string("is set by the deck ") + name + " (" + d.keywords + "); change the deck" +
                         (reports ? " (time.end shortens its run, output.series_every thins its rows)" : ""));
      }
}

// time.end on a deck (days): the run ends there. The report times and schedule events after it
// are dropped and `end` becomes the last report time, so every step before the last report up to
// it is the full run's. A deck can only be shortened: an end past its last report is an error.
void shorten(ImpesInput& in, double end, const io::CaseFile& cf, const std::string& deck) {
  auto& rt = in.report_times;
  const double last = rt.back();
  // a report time this close to `end` is `end` (decks give days as seconds / 86400)
  auto same = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); };
  if (end > last && !same(end, last)) {
    std::ostringstream o;
    o.precision(12);
    o << "= " << end << " is past the end of the deck " << std::filesystem::path(deck).filename().string() << " (day " << last
      << "): time.end can only shorten a deck's run";
    cf.fail("time.end", o.str());
  }
  std::vector<double> kept;
  for (double t : rt) {
    if (same(t, end) || t > end) {
      kept.push_back(same(t, end) ? t : end);
      break;
    }
    kept.push_back(t);
  }
  rt = std::move(kept);
  std::erase_if(in.schedule, [&](const ScheduleEvent& e) { return e.time > rt.back(); });
}

}  // namespace

// `scheme` (decks default to the fully implicit scheme, as OPM Flow; TOML cases to paper 003's
// IMPES), the fully implicit scheme's [newton] and [linear] keys, and its time-step defaults: a
// first step of a day, up to a year, growing at most threefold, sized from the Newton iterations
// as OPM Flow's (or, with time.control = "changes", for S_w changes of 0.2 and pressure changes
// of 100 bar; the time keys override them)
static void read_scheme(io::CaseFile& cf, bool deck, ImpesNumerics& nm) {
  const std::string scheme = cf.get_string("scheme", deck ? "fim" : "impes");
  if (scheme == "fim") nm.scheme = ReservoirSchemeKind::Fim;
  else if (scheme == "impes") nm.scheme = ReservoirSchemeKind::Impes;
  else cf.fail("scheme", "= '" + scheme + "' is not one of impes (paper 003's IMPES) or fim (fully implicit)");
  const bool fim = nm.scheme == ReservoirSchemeKind::Fim;
  // each scheme's own keys (a key neither knows stays an unknown key)
  static const std::set<std::string> impes_keys = {"pressure.solver", "pressure.preconditioner", "pressure.omega",
                                                   "pressure.tolerance", "pressure.max_iterations", "pressure.check_every",
                                                   "pressure.design", "pressure.shape", "pressure.zline_lanes",
                                                   "pressure.initial_guess", "time.cfl", "time.sw_tolerance",
                                                   "pressure.amg_across", "pressure.cuda_graphs",
                                                   "pressure.amg_float", "pressure.amg_chebyshev",
                                                   "pressure.amg_tail_rows", "pressure.amg_strength",
                                                   "pressure.amg_fallback", "pressure.amg_reuse"};
  static const std::set<std::string> fim_keys = {
      "newton.max_iterations", "newton.cnv",        "newton.mb",           "newton.wells",           "newton.dp_max",
      "newton.cnv_relaxed",    "newton.relaxed_pv_fraction", "newton.stabilize", "newton.min_relaxation",
      "newton.ds_max",         "newton.dbhp_max",   "newton.max_switches", "newton.target_iterations", "linear.solver",
      "linear.tolerance",      "linear.max_iterations", "linear.coarse_size", "linear.amg_reuse",     "linear.amg_degree",
      "linear.amg_cycle",      "linear.amg_across", "linear.across_rows", "linear.cuda_graphs", "linear.batch",
      "linear.amg_float",      "linear.amg_tail_rows", "linear.amg_strength", "linear.amg_fallback"};
  for (const auto& key : cf.keys()) {
    if (!fim && fim_keys.count(key)) cf.fail(key, "applies to scheme = fim, not impes");
    if (fim && impes_keys.count(key)) cf.fail(key, "applies to scheme = impes, not fim (the fully implicit scheme's solver is set by linear.*)");
  }
  if (!fim) return;
  nm.dt_init = 1;
  nm.dt_max = 365;
  nm.growth = 3;
  nm.growth_after_cut = 2;  // OPM Flow's solver-growth-factor
  nm.control = StepControl::PidNewton;  // OPM Flow's default control (time.control)
  nm.ds_max = 0.2;  // for time.control = "changes"
  nm.dp_max = 100;
  FimNumerics& f = nm.fim;
  f.max_iterations = static_cast<int>(cf.int_in_range("newton.max_iterations", f.max_iterations, 1, 1000));
  f.cnv = cf.in_range("newton.cnv", f.cnv, 0, 1, true, false);
  f.cnv_relaxed = cf.in_range("newton.cnv_relaxed", f.cnv_relaxed, 0, 1e6, true, false);
  if (f.cnv_relaxed < f.cnv) cf.fail("newton.cnv_relaxed", "= " + std::to_string(f.cnv_relaxed) + " is below newton.cnv");
  f.relaxed_pv_fraction = cf.in_range("newton.relaxed_pv_fraction", f.relaxed_pv_fraction, 0, 1, false, false);
  f.mb = cf.in_range("newton.mb", f.mb, 0, 1, true, false);
  f.wells = cf.in_range("newton.wells", f.wells, 0, 1, true, false);
  f.dp_max = cf.positive("newton.dp_max", f.dp_max);
  f.ds_max = cf.in_range("newton.ds_max", f.ds_max, 0, 1, true, false);
  f.dbhp_max = cf.positive("newton.dbhp_max", f.dbhp_max);
  f.stabilize = cf.get_bool("newton.stabilize", f.stabilize);
  f.min_relaxation = cf.in_range("newton.min_relaxation", f.min_relaxation, 0, 1, true, false);
  if (!f.stabilize && cf.has("newton.min_relaxation")) cf.fail("newton.min_relaxation", "applies to newton.stabilize = true");
  f.max_switches = static_cast<int>(cf.int_in_range("newton.max_switches", f.max_switches, 0, 100));
  f.target_iterations = static_cast<int>(cf.int_in_range("newton.target_iterations", f.target_iterations, 1, 1000));
  const std::string solver = cf.get_string("linear.solver", "bicgstab");
  if (solver == "fgmres") f.fgmres = true;
  else if (solver != "bicgstab") cf.fail("linear.solver", "= '" + solver + "' is not one of bicgstab, fgmres");
  f.linear_tolerance = cf.in_range("linear.tolerance", f.linear_tolerance, 0, 1, true, true);
  f.linear_max_iterations = cf.int_in_range("linear.max_iterations", f.linear_max_iterations, 1, 100000);
  f.coarse_size = cf.int_in_range("linear.coarse_size", f.coarse_size, 1, 5000);
  f.amg_reuse = static_cast<int>(cf.int_in_range("linear.amg_reuse", f.amg_reuse, 1, 1000000));
  f.amg_degree = static_cast<int>(cf.int_in_range("linear.amg_degree", f.amg_degree, 1, 10));
  const std::string cycle = cf.get_string("linear.amg_cycle", f.amg_w_cycle ? "w" : "v");
  if (cycle != "v" && cycle != "w") cf.fail("linear.amg_cycle", "= '" + cycle + "' is not one of v, w");
  f.amg_w_cycle = cycle == "w";
  const std::string across = cf.get_string("linear.amg_across", "after");
  if (const auto a = linalg::amg_across_of(across)) f.amg_across = *a;
  else cf.fail("linear.amg_across", "= '" + across + "' is not one of " + linalg::kAmgAcrossNames);
  f.across_rows = cf.int_in_range("linear.across_rows", f.across_rows, 1, 4096);
  f.cuda_graphs = cf.get_bool("linear.cuda_graphs", f.cuda_graphs);
  f.amg_float = cf.get_bool("linear.amg_float", f.amg_float);
  f.amg_tail_rows = cf.int_in_range("linear.amg_tail_rows", f.amg_tail_rows, -1, 1 << 30);
  f.amg_strength = cf.in_range("linear.amg_strength", f.amg_strength, 0, 1, false, false);
  f.amg_fallback = cf.get_bool("linear.amg_fallback", f.amg_fallback);
  f.linear_batch = cf.int_in_range("linear.batch", f.linear_batch, 0, 1024);
}

ImpesCase read_impes3d_case(io::CaseFile& cf, Backend& be, Precision prec, const Communicator& comm) {
  ImpesCase r;
  Impes3DConfig& c = r.config;
  const int processes = comm.size();
  if (cf.has("input.deck")) {
    // grid, fluid, wells, schedule and report times from the deck; numerics and output from the case
    const std::string path = deck_path(cf);
    refuse_deck_keys(cf, path);
    c.input = io::share_impes_input(comm, [&] {
      r.deck = eclipse::read_deck(path);
      return r.deck->input();
    });
    if (!comm.single() && comm.rank() == 0)
      spdlog::info("deck {} read by process 0 alone and its input sent to the others ({} processes in all)",
                   std::filesystem::path(path).filename().string(), comm.size());
    if (cf.has("time.end")) shorten(c.input, cf.positive("time.end", 0), cf, path);
    std::size_t completions = 0;
    for (const auto& w : c.input.wells) completions += w.completions.size();
    check_impes3d_memory(c.input.grid, completions, c.input.wells.size(), prec, be, ReservoirSchemeKind::Impes, processes);
  } else {
    read_toml_input(cf, be, prec, c.input, processes);
  }
  const ImpesInput& in = c.input;
  const ImpesGrid& g = in.grid;
  auto& nm = c.numerics;
  read_scheme(cf, cf.has("input.deck"), nm);
  nm.dt_init = cf.positive("time.dt_init", nm.dt_init);
  nm.dt_min = cf.positive("time.dt_min", nm.dt_min);
  nm.dt_max = cf.positive("time.dt_max", nm.dt_max);
  if (nm.dt_min > nm.dt_max) cf.fail("time.dt_min", "must not exceed time.dt_max");
  nm.max_steps = cf.int_at_least("time.max_steps", nm.max_steps, 1);
  // even at its largest step the run must end within max_steps (time.end = 1e308 would step forever)
  if (const double end = in.report_times.empty() ? 0.0 : in.report_times.back(), least = std::ceil(end / nm.dt_max * (1 - 1e-12)); least > double(nm.max_steps))
    cf.fail("time.max_steps", "= " + std::to_string(nm.max_steps) + " is fewer than the " + count_text(least) +
                                  " steps of time.dt_max = " + num_text(nm.dt_max) + " days to the run's end at day " + num_text(end));
  nm.cfl = cf.in_range("time.cfl", nm.cfl, 0, 10, true, false);
  nm.ds_max = cf.in_range("time.ds_max", nm.ds_max, 0, 1, true, false);
  nm.dp_max = cf.positive("time.dp_max", nm.dp_max);
  nm.growth = cf.in_range("time.growth", nm.growth, 1, 100, false, false);
  nm.growth_after_cut = cf.in_range("time.growth_after_cut", nm.growth_after_cut, 0, 100, false, false);
  if (nm.growth_after_cut > 0 && nm.growth_after_cut < 1)
    cf.fail("time.growth_after_cut", "= " + num_text(nm.growth_after_cut) + " must be 0 (off) or at least 1");
  const char* control_default = nm.control == StepControl::PidNewton ? "pid+newton" : nm.control == StepControl::Newton ? "newton" : "changes";
  const std::string control = cf.get_string("time.control", control_default);
  if (control == "changes") nm.control = StepControl::Changes;
  else if (control == "newton") nm.control = StepControl::Newton;
  else if (control == "pid+newton") nm.control = StepControl::PidNewton;
  else
    cf.fail("time.control", "= '" + control + "' is not one of changes (the last step's S_w and pressure changes), newton (its "
                            "Newton iterations) or pid+newton (those and its relative change, OPM Flow's default)");
  if (newton_rule(nm.control)) {
    if (nm.scheme != ReservoirSchemeKind::Fim)
      cf.fail("time.control", "= '" + control + "' applies to scheme = fim: IMPES takes no Newton iterations");
    for (const char* key : {"time.ds_max", "time.dp_max"})
      if (cf.has(key)) cf.fail(key, "applies to time.control = 'changes'; with '" + control + "' the step follows its Newton iterations");
  }
  if (nm.control == StepControl::PidNewton) nm.pid_tolerance = cf.in_range("time.pid_tolerance", nm.pid_tolerance, 0, 10, true, false);
  else if (cf.has("time.pid_tolerance")) cf.fail("time.pid_tolerance", "applies to time.control = 'pid+newton'");
  nm.max_cuts = static_cast<int>(cf.int_at_least("time.max_cuts", nm.max_cuts, 0));
  nm.cut = cf.in_range("time.cut", newton_rule(nm.control) ? 0.33 : nm.cut, 0, 1, true, true);
  nm.sw_tolerance = cf.in_range("time.sw_tolerance", nm.sw_tolerance, 0, 0.1, false, false);

  const std::string solver = cf.get_string("pressure.solver", "sor");
  if (solver == "sor") nm.solver = PressureSolver::Sor;
  else if (solver == "cg") nm.solver = PressureSolver::Cg;
  else if (solver == "bicgstab") nm.solver = PressureSolver::Bicgstab;
  else cf.fail("pressure.solver", "= '" + solver + "' is not one of sor, cg, bicgstab");
  const std::string pre = cf.get_string("pressure.preconditioner", "amg");
  if (pre == "amg") nm.preconditioner = PressurePreconditioner::Amg;
  else if (pre == "ilu0") nm.preconditioner = PressurePreconditioner::Ilu0;
  else if (pre == "jacobi") nm.preconditioner = PressurePreconditioner::Jacobi;
  else cf.fail("pressure.preconditioner", "= '" + pre + "' is not one of amg, ilu0, jacobi");
  if (nm.solver == PressureSolver::Sor && cf.has("pressure.preconditioner"))
    cf.fail("pressure.preconditioner", "applies to pressure.solver = cg or bicgstab, not sor");
  const std::string across = cf.get_string("pressure.amg_across", "none");
  if (const auto a = linalg::amg_across_of(across)) nm.amg_across = *a;
  else cf.fail("pressure.amg_across", "= '" + across + "' is not one of " + linalg::kAmgAcrossNames);
  if (cf.has("pressure.amg_across") && (nm.solver == PressureSolver::Sor || nm.preconditioner != PressurePreconditioner::Amg))
    cf.fail("pressure.amg_across", "applies to pressure.preconditioner = amg with pressure.solver = cg or bicgstab");
  if (nm.solver == PressureSolver::Cg && nm.amg_across == linalg::AmgAcross::After)
    cf.fail("pressure.amg_across", "= 'after' is not symmetric, which CG needs (multiplicative or additive are; after is for bicgstab)");
  nm.cuda_graphs = cf.get_bool("pressure.cuda_graphs", nm.cuda_graphs);
  nm.amg_float = cf.get_bool("pressure.amg_float", nm.amg_float);
  if (cf.has("pressure.amg_float") && (nm.solver == PressureSolver::Sor || nm.preconditioner != PressurePreconditioner::Amg))
    cf.fail("pressure.amg_float", "applies to pressure.preconditioner = amg with pressure.solver = cg or bicgstab");
  nm.amg_tail_rows = cf.int_in_range("pressure.amg_tail_rows", nm.amg_tail_rows, -1, 1 << 30);
  if (cf.has("pressure.amg_tail_rows") && (nm.solver == PressureSolver::Sor || nm.preconditioner != PressurePreconditioner::Amg))
    cf.fail("pressure.amg_tail_rows", "applies to pressure.preconditioner = amg with pressure.solver = cg or bicgstab");
  nm.amg_strength = cf.in_range("pressure.amg_strength", nm.amg_strength, 0, 1, false, false);
  nm.amg_fallback = cf.get_bool("pressure.amg_fallback", nm.amg_fallback);
  nm.amg_reuse = cf.int_at_least("pressure.amg_reuse", nm.amg_reuse, 1);
  for (const char* k : {"pressure.amg_strength", "pressure.amg_fallback", "pressure.amg_reuse"})
    if (cf.has(k) && (nm.solver == PressureSolver::Sor || nm.preconditioner != PressurePreconditioner::Amg))
      cf.fail(k, "applies to pressure.preconditioner = amg with pressure.solver = cg or bicgstab");
  const std::string kind = cf.get_string("pressure.amg_chebyshev", "first");
  if (const auto k = linalg::chebyshev_of(kind)) nm.amg_chebyshev = *k;
  else cf.fail("pressure.amg_chebyshev", "= '" + kind + "' is not one of " + linalg::kChebyshevNames);
  if (cf.has("pressure.amg_chebyshev") && (nm.solver == PressureSolver::Sor || nm.preconditioner != PressurePreconditioner::Amg))
    cf.fail("pressure.amg_chebyshev", "applies to pressure.preconditioner = amg with pressure.solver = cg or bicgstab");
  if (nm.solver == PressureSolver::Sor && cf.has("pressure.cuda_graphs"))
    cf.fail("pressure.cuda_graphs", "applies to pressure.solver = cg or bicgstab, not sor");
  if (nm.solver != PressureSolver::Sor)
    for (const char* k : {"pressure.omega", "pressure.design", "pressure.shape", "pressure.zline_lanes", "pressure.check_every"})
      if (cf.has(k)) cf.fail(k, std::string("applies to pressure.solver = sor, not ") + solver);
  if (cf.has("pressure.omega")) {
    const std::string key = "pressure.omega";
    bool is_auto = false;
    try {
      is_auto = cf.get_string(key, "auto") == "auto";
    } catch (const ConfigError&) {
      nm.omega = cf.in_range(key, 1.5, 0, 2, true, true);
    }
    if (!is_auto && nm.omega == 0) cf.fail(key, "must be \"auto\" or a number in (0, 2)");
  }
  // 0: by precision (ImpesNumerics::tolerance_for)
  nm.tolerance = cf.get_double("pressure.tolerance", 0);
  if (cf.has("pressure.tolerance") && !(nm.tolerance > 0)) cf.fail("pressure.tolerance", "must be positive");
  nm.max_iterations = cf.int_at_least("pressure.max_iterations", nm.max_iterations, 1);
  nm.check_every = static_cast<int>(cf.int_at_least("pressure.check_every", nm.check_every, 1));
  const std::string design = cf.get_string("pressure.design", "auto");
  nm.design_auto = design == "auto";
  if (!nm.design_auto) nm.design = cf.get_choice("pressure.design", "auto", parse_sor_design);
  // the shape: per design unless given (zline and tiled take march shapes over columns)
  nm.sor_shape_given = cf.has("pressure.shape");
  if (nm.sor_shape_given) nm.sor_shape = cf.get_choice("pressure.shape", "", parse_box_shape);
  else cf.get_string("pressure.shape", "");
  nm.zline_lanes = static_cast<int>(cf.get_int("pressure.zline_lanes", 0));
  if (nm.zline_lanes != 0 && nm.zline_lanes != 1 && nm.zline_lanes != 32)
    cf.fail("pressure.zline_lanes", "= " + std::to_string(nm.zline_lanes) + " must be 0 (automatic), 1 (a thread per column) or 32 (a warp per column)");
  const std::string guess = cf.get_string("pressure.initial_guess", "extrapolate");
  if (guess != "extrapolate" && guess != "zero")
    cf.fail("pressure.initial_guess", "= '" + guess + "' is not extrapolate (the last increment, scaled by the steps) or zero");
  nm.extrapolate = guess == "extrapolate";
  nm.cell_shape = cf.get_choice("kernels.shape", "3d:32x4x2", parse_box_shape);
  nm.tables = cf.get_choice("kernels.tables", "auto", parse_table_space);

  c.map_layer = static_cast<int>(cell_index(cf, "output.layer", g.nz, 1));
  // the driver reads it too (the CSV's cadence); here for the deck's summary files
  if (c.map_layer < 0 || c.map_layer >= g.nz) cf.fail("output.layer", "is outside the grid's " + std::to_string(g.nz) + " layers");
  validate(in);
  return r;
}

}  // namespace poreflow
