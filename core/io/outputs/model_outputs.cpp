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

std::string fluids3d_snapshot(const Model& m, const std::filesystem::path& dir, const std::string& stem) {
  const auto g = m.grid();
  auto f = m.fields();  // density, u, v, w
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
  const std::string file = stem + ".vti";
  write_vti(dir / file, g.points, g.origin, g.spacing, fs, m.time());
  return file;
}

SnapshotWriter impes3d_snapshot() {
  auto hex = std::make_shared<std::unique_ptr<HexGrid>>();  // built at the first snapshot, then kept
  return [hex](const Model& m, const std::filesystem::path& dir, const std::string& stem) {
    const Reservoir& r = reservoir(m);
    const auto& g = r.config().input.grid;
    const auto& geo = r.geometry();
    if (!*hex) {
      std::vector<int> active(g.cells());
      for (long k = 0; k < g.nz; ++k)
        for (long j = 0; j < g.ny; ++j)
          for (long i = 0; i < g.nx; ++i) active[g.index(i, j, k)] = geo.pv0[geo.at(i, j, k)] > 0;
      *hex = std::make_unique<HexGrid>(hex_grid_cartesian(g.nx, g.ny, g.nz, g.dx, g.dy, g.dz, g.tops, active));
    }
    const auto p = r.pressure(), s = r.saturation();
    std::vector<double> pa, sa, pe, po;
    for (auto c : (*hex)->cell_index) {
      pa.push_back(p[c]);
      sa.push_back(s[c]);
      pe.push_back(g.permx[c]);
      po.push_back(g.poro[c]);
    }
    const std::string file = stem + ".vtu";
    write_vtu(dir / file, **hex, {{"pressure", pa}, {"sw", sa}, {"permx", pe}, {"poro", po}}, r.time());
    return file;
  };
}

namespace {

// The wells' history at the report times so far, for the plots: kept with a checkpoint, so a
// restarted run's plots show the whole run.
struct WellHistory {
  std::vector<double> time, fopr, fwpr, fwir, fwct;
  std::vector<std::vector<double>> bhp, wct;
};

void draw_impes3d(const Reservoir& r, const WellHistory& h, const std::filesystem::path& png) {
  const auto stem = (png.parent_path() / png.stem()).string();
  // rates, water cut and BHP against time
  if (!h.time.empty()) {
    std::vector<Panel> panels(3);
    panels[0] = {"field rates", "time (days)", "sm3/day", {}};
    panels[0].series.push_back(Series{"oil production", h.time, h.fopr, {20, 20, 20}});
    panels[0].series.push_back(Series{"water production", h.time, h.fwpr, {30, 100, 220}});
    panels[0].series.push_back(Series{"water injection", h.time, h.fwir, {30, 160, 60}, true});
    panels[1] = {"water cut", "time (days)", "", {}};
    panels[1].ymin = 0;
    panels[1].ymax = 1;
    panels[1].series.push_back(Series{"field", h.time, h.fwct, {0, 0, 0}});
    panels[2] = {"bottom-hole pressure", "time (days)", "bar", {}};
    static const std::array<std::array<unsigned char, 3>, 6> colors{
        {{200, 40, 40}, {40, 90, 200}, {30, 150, 60}, {180, 120, 20}, {130, 50, 170}, {20, 150, 150}}};
    for (std::size_t w = 0; w < r.wells().size(); ++w) {
      const auto col = colors[w % colors.size()];
      if (r.config().input.wells[w].kind == WellKind::Producer)
        panels[1].series.push_back(Series{r.config().input.wells[w].name, h.time, h.wct[w], col, true});
      panels[2].series.push_back(Series{r.config().input.wells[w].name, h.time, h.bhp[w], col});
    }
    write_plot_png(stem + "_wells.png", panels);
  }
}

class Impes3DPlots final : public Observer {
 public:
  explicit Impes3DPlots(std::filesystem::path dir) : dir_(std::move(dir)) {}

  void begin(const Model& m, bool) override {
    const auto& rt = reservoir(m).config().input.report_times;
    while (next_report_ < rt.size() && m.time() >= rt[next_report_] * (1 - 1e-12)) ++next_report_;
    const std::size_t nw = reservoir(m).wells().size();
    h_.bhp.resize(nw);
    h_.wct.resize(nw);
    if (resumed_) {
      const std::size_t nr = h_.time.size();
      if (bhp_.size() != nr * nw || wct_.size() != nr * nw) throw ConfigError("the checkpoint's well history does not fit this case");
      for (std::size_t i = 0; i < nw; ++i) {
        h_.bhp[i].assign(bhp_.begin() + std::ptrdiff_t(i * nr), bhp_.begin() + std::ptrdiff_t((i + 1) * nr));
        h_.wct[i].assign(wct_.begin() + std::ptrdiff_t(i * nr), wct_.begin() + std::ptrdiff_t((i + 1) * nr));
      }
    }
  }
  // a report time reached (the run stops at each): its row of the history
  void step(const Model& m) override {
    const Reservoir& r = reservoir(m);
    const auto& rt = r.config().input.report_times;
    if (next_report_ >= rt.size() || m.time() < rt[next_report_] * (1 - 1e-12)) return;
    while (next_report_ < rt.size() && m.time() >= rt[next_report_] * (1 - 1e-12)) ++next_report_;
    const auto& wells = r.wells();
    double fopr = 0, fwpr = 0, fwir = 0;
    for (std::size_t w = 0; w < wells.size(); ++w) {
      fopr += wells[w].oil_rate;
      fwpr += wells[w].water_rate;
      fwir += wells[w].water_injection;
      h_.bhp[w].push_back(wells[w].control == IMP_CTRL_SHUT ? NAN : wells[w].bhp);
      const double l = wells[w].oil_rate + wells[w].water_rate;
      h_.wct[w].push_back(r.config().input.wells[w].kind == WellKind::Producer && l > 0 ? wells[w].water_rate / l : NAN);
    }
    h_.time.push_back(r.time());
    h_.fopr.push_back(fopr);
    h_.fwpr.push_back(fwpr);
    h_.fwir.push_back(fwir);
    h_.fwct.push_back(fopr + fwpr > 0 ? fwpr / (fopr + fwpr) : 0.0);
  }
  void snapshot(const Model& m, int index) override {
    draw_impes3d(reservoir(m), h_, dir_ / (snapshot_stem(m.name(), index) + ".png"));
  }
  void save(ModelState& s) const override {
    s.put("history_time", h_.time);
    s.put("history_fopr", h_.fopr);
    s.put("history_fwpr", h_.fwpr);
    s.put("history_fwir", h_.fwir);
    s.put("history_fwct", h_.fwct);
    std::vector<double> bhp, wct;
    for (std::size_t i = 0; i < h_.bhp.size(); ++i) {
      bhp.insert(bhp.end(), h_.bhp[i].begin(), h_.bhp[i].end());
      wct.insert(wct.end(), h_.wct[i].begin(), h_.wct[i].end());
    }
    s.put("history_bhp", bhp);  // well after well, one value per report
    s.put("history_wct", wct);
  }
  void resume(const ModelState& s) override {
    if (!s.has("history_time")) return;  // written without plots: the history starts here
    const std::size_t nr = s.doubles("history_time").size();
    h_.time = s.doubles("history_time", nr);
    h_.fopr = s.doubles("history_fopr", nr);
    h_.fwpr = s.doubles("history_fwpr", nr);
    h_.fwir = s.doubles("history_fwir", nr);
    h_.fwct = s.doubles("history_fwct", nr);
    bhp_ = s.doubles("history_bhp");
    wct_ = s.doubles("history_wct");
    resumed_ = true;
  }

 private:
  std::filesystem::path dir_;
  std::size_t next_report_ = 0;
  WellHistory h_;
  bool resumed_ = false;
  std::vector<double> bhp_, wct_;  // as the checkpoint holds them, until begin() knows the wells
};

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
    if (s.report) fpr_ = r.mean_pressure();
    s.pressure = fpr_;  // the pressure of the last report (summary ministeps between reports repeat it)
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

std::unique_ptr<Observer> impes3d_plots(const std::filesystem::path& dir) { return std::make_unique<Impes3DPlots>(dir); }

std::unique_ptr<Observer> eclipse_summary(std::shared_ptr<const eclipse::Deck> deck, const std::filesystem::path& dir,
                                          long report_every) {
  return std::make_unique<EclipseSummary>(std::move(deck), dir, report_every);
}

}  // namespace poreflow::io
