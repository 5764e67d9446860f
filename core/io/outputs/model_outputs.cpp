#include "core/io/outputs/model_outputs.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include "core/base/error.hpp"
#include "core/io/eclipse/deck.hpp"
#include "core/io/png_plot.hpp"
#include "core/io/vtk.hpp"
#include "core/io/vtu.hpp"
#include "core/models/impes3d.hpp"

namespace poreflow::io {

namespace {

// the reservoir model behind a Model (the observers of impes3d are made for it)
const Reservoir& reservoir(const Model& m) {
  const auto* r = dynamic_cast<const Reservoir*>(&m);
  if (!r) throw Error("an impes3d output was given a " + m.name() + " model");
  return *r;
}

// the file of piece `index` of a snapshot written in pieces (ext: ".vtu", ".vti")
std::string piece_file(const std::string& stem, int index, const char* ext) {
  return stem + "_piece" + std::to_string(index) + ext;
}

}  // namespace

PlotWriter bl1d_plot(const std::string& label) {
  return [label](const Model& m, const std::filesystem::path& png) {
    const auto f = m.fields();
    const auto g = m.grid();
    const std::size_t n = static_cast<std::size_t>(g.points[0]);
    std::vector<double> xs(n);
    for (std::size_t i = 0; i < n; ++i) xs[i] = g.spacing[0] * static_cast<double>(i);
    std::ostringstream title;
    title.precision(4);
    title << "Water saturation at t = " << m.time() << " (" << n << " points)";
    Panel sat{title.str(), "x", "S_w", {}, 0.0, 1.05};
    sat.series.push_back({"analytic (Welge)", xs, f[2].values, {200, 40, 40}, true, false});
    sat.series.push_back({label, xs, f[1].values, {30, 90, 200}, false, false});
    Panel pres{"Pressure", "x", "p", {}, std::nan(""), std::nan("")};
    pres.series.push_back({label, xs, f[0].values, {30, 140, 60}, false, false});
    write_plot_png(png, {sat, pres});
  };
}

// One process: the grid in one .vti. Decomposed (docs/mpi.md): every process writes its slab, with
// the first layer of the one above, as a piece, and process 0 the .pvti that ties them.
std::string fluids3d_snapshot(const Model& m, const std::filesystem::path& dir, const std::string& stem) {
  const auto g = m.grid();
  ImagePiece piece = m.image_piece();
  const bool pieces = piece.count > 1;
  auto f = pieces ? std::move(piece.fields) : m.fields();  // density, u, v, w
  const auto& u = f[1].values;
  const auto& v = f[2].values;
  const auto& w = f[3].values;
  std::vector<double> vel(3 * u.size());
  for (std::size_t c = 0; c < u.size(); ++c) {
    vel[3 * c] = u[c];
    vel[3 * c + 1] = v[c];
    vel[3 * c + 2] = w[c];
  }
  std::vector<VtkField> fs;
  fs.push_back({"density", std::move(f[0].values), 1});
  fs.push_back({"velocity", std::move(vel), 3});
  if (!pieces) {
    const std::string file = stem + ".vti";
    write_vti(dir / file, g.points, g.origin, g.spacing, fs, m.time());
    return file;
  }
  write_vti(dir / piece_file(stem, piece.index, ".vti"), piece.points, g.origin, g.spacing, fs, m.time(), piece.first);
  if (piece.index != 0) return std::string();
  std::vector<VtiPiece> all;
  for (int i = 0; i < piece.count; ++i) all.push_back({piece.extents[static_cast<std::size_t>(i)], piece_file(stem, i, ".vti")});
  for (auto& x : fs) x.values.clear();  // the .pvti names them only
  const std::string file = stem + ".pvti";
  write_pvti(dir / file, g.points, g.origin, g.spacing, fs, all);
  return file;
}

// One process: the whole grid's active cells in one .vtu. Decomposed (docs/mpi.md): every process
// writes its own cells as a piece from its own device, and process 0 the .pvtu that ties them.
SnapshotWriter impes3d_snapshot() {
  // built at the first snapshot, then kept: the hexahedra of this process's cells, and where each
  // one's values are in the piece (decomposed)
  struct Cache {
    std::unique_ptr<HexGrid> hex;
    std::vector<std::size_t> at;
  };
  auto cache = std::make_shared<Cache>();
  return [cache](const Model& m, const std::filesystem::path& dir, const std::string& stem) {
    const Reservoir& r = reservoir(m);
    const auto& g = r.config().input.grid;
    const auto& geo = r.geometry();
    const Reservoir::Piece piece = r.piece();
    const bool pieces = piece.count > 1;
    if (!cache->hex) {
      std::vector<int> active(g.cells(), 0), mine(pieces ? g.cells() : 0, -1);
      for (std::size_t n = 0; n < piece.cells.size(); ++n) mine[piece.cells[n]] = static_cast<int>(n);
      for (long k = 0; k < g.nz; ++k)
        for (long j = 0; j < g.ny; ++j)
          for (long i = 0; i < g.nx; ++i) {
            const std::size_t c = g.index(i, j, k);
            active[c] = geo.pv0[geo.at(i, j, k)] > 0 && (!pieces || mine[c] >= 0);
          }
      cache->hex = std::make_unique<HexGrid>(hex_grid_cartesian(g.nx, g.ny, g.nz, g.dx, g.dy, g.dz, g.tops, active));
      for (auto c : cache->hex->cell_index) cache->at.push_back(pieces ? static_cast<std::size_t>(mine[c]) : c);
    }
    const auto p = pieces ? piece.pressure : r.pressure(), s = pieces ? piece.saturation : r.saturation();
    std::vector<double> pa, sa, pe, po;
    for (std::size_t n = 0; n < cache->at.size(); ++n) {
      const auto c = static_cast<std::size_t>(cache->hex->cell_index[n]);
      pa.push_back(p[cache->at[n]]);
      sa.push_back(s[cache->at[n]]);
      pe.push_back(g.permx[c]);
      po.push_back(g.poro[c]);
    }
    std::vector<VtkField> fields = {{"pressure", pa}, {"sw", sa}, {"permx", pe}, {"poro", po}};
    if (!pieces) {
      const std::string file = stem + ".vtu";
      write_vtu(dir / file, *cache->hex, fields, r.time());
      return file;
    }
    write_vtu(dir / piece_file(stem, piece.index, ".vtu"), *cache->hex, fields, r.time());
    if (piece.index != 0) return std::string();
    std::vector<std::string> names;
    for (int i = 0; i < piece.count; ++i) names.push_back(piece_file(stem, i, ".vtu"));
    for (auto& f : fields) f.values.clear();  // the .pvtu names them only
    const std::string file = stem + ".pvtu";
    write_pvtu(dir / file, fields, names);
    return file;
  };
}

namespace {

class EclipseSummary final : public Observer {
 public:
  EclipseSummary(std::shared_ptr<const eclipse::Deck> deck, std::filesystem::path dir, long every)
      : deck_(std::move(deck)), dir_(std::move(dir)), every_(static_cast<std::size_t>(every)) {}

  void begin(const Model& m, bool) override {
    // a restarted run writes its own summary files (Eclipse's restart convention), so the first
    // run's files stay whole
    std::string stem = deck_->basename();
    if (m.steps() > 0) {
      stem += "_R" + std::to_string(m.steps());
      spdlog::info("restarted deck: summary files {} from t = {:g} days on ({} holds the run before)", stem, m.time(),
                   deck_->basename());
    }
    const auto& rt = reservoir(m).config().input.report_times;
    while (next_report_ < rt.size() && m.time() >= rt[next_report_] * (1 - 1e-12)) ++next_report_;
    summary_ = deck_->summary(dir_, stem);
    if (m.steps() > 0) {
      // the totals go on from the checkpoint's, as Eclipse's do in a restarted run's files
      if (!resumed_)
        spdlog::warn("the checkpoint holds no summary totals (its run wrote no summary files): {}'s totals start from 0 at "
                     "t = {:g} days", stem, m.time());
      summary_->resume(totals_, m.time());
    }
    write(m, true);
  }
  // a deck's summary totals, which a restarted run's summary files continue
  void save(ModelState& s) const override {
    const auto t = summary_->totals();
    std::string keys;
    for (const auto& k : t.keys) keys += k + '\n';
    s.set_text("summary_keys", keys);
    s.put("summary_values", t.values);
  }
  void resume(const ModelState& s) override {
    if (!s.has("summary_keys")) return;
    std::istringstream keys(s.text("summary_keys"));
    for (std::string k; std::getline(keys, k);) totals_.keys.push_back(k);
    totals_.values = s.doubles("summary_values", totals_.keys.size());
    resumed_ = true;
  }
  void step(const Model& m) override {
    const auto& rt = reservoir(m).config().input.report_times;
    while (next_report_ < rt.size() && m.time() >= rt[next_report_] * (1 - 1e-12)) ++next_report_;
    write(m, false);
  }

 private:
  // the step that just ended
  void write(const Model& m, bool start) {
    const Reservoir& r = reservoir(m);
    eclipse::SummaryStep s;
    const double t = r.time();
    s.time = t;
    const auto& rt = r.config().input.report_times;
    const bool at_report = next_report_ > 0 && std::abs(t - rt[next_report_ - 1]) <= 1e-12 * std::max(1.0, t);
    s.report = start || (at_report && (next_report_ % every_ == 0 || next_report_ == rt.size()));
    // the fully implicit scheme's time steps as ministeps, as OPM Flow writes them (a breakthrough
    // between reports is seen at the step it happens); IMPES takes far more steps (HETERO: 59 000)
    // and writes its reports alone, as does output.series_every > 1
    s.ministep = !start && !s.report && every_ == 1 && r.config().numerics.scheme == ReservoirSchemeKind::Fim;
    const auto& wells = r.wells();
    const auto& settings = r.step_settings();
    for (std::size_t w = 0; w < wells.size(); ++w) {
      const auto& x = wells[w];
      eclipse::WellStep y;
      y.oil_rate = x.oil_rate;
      y.water_rate = x.water_rate;
      y.water_injection = x.water_injection;
      y.bhp = x.bhp;
      y.open = settings[w].open && x.control != IMP_CTRL_SHUT;
      y.control = settings[w].control;
      y.bhp_controlled = x.control == IMP_CTRL_BHP;
      s.wells.push_back(y);
    }
    if (s.report || s.ministep) fpr_ = r.mean_pressure();
    s.pressure = fpr_;
    // start: the in-place volumes of time 0, also in a restarted run (opm's recovery factors)
    s.oil_in_place = start ? r.oil_in_place_initial() : r.oil_in_place();
    s.water_in_place = start ? r.water_in_place_initial() : r.water_in_place();
    if (start) summary_->start(s);
    else summary_->step(s);
  }

  std::shared_ptr<const eclipse::Deck> deck_;
  std::filesystem::path dir_;
  std::size_t every_ = 1;
  std::unique_ptr<eclipse::SummaryWriter> summary_;
  std::size_t next_report_ = 0;
  double fpr_ = 0;
  bool resumed_ = false;
  eclipse::SummaryTotals totals_;  // a checkpoint's, for a restarted run
};

}  // namespace

std::unique_ptr<Observer> eclipse_summary(std::shared_ptr<const eclipse::Deck> deck, const std::filesystem::path& dir,
                                          long report_every) {
  return std::make_unique<EclipseSummary>(std::move(deck), dir, report_every);
}

}  // namespace poreflow::io
