#include "core/io/outputs/well_plots.hpp"

#include <array>
#include <cmath>

#include "core/base/error.hpp"
#include "core/io/outputs/model_outputs.hpp"

namespace poreflow::io {

void WellHistory::start(double, std::size_t wells) {
  nw_ = wells;
  oil_.resize(wells);
  water_.resize(wells);
  inj_.resize(wells);
  bhp_.resize(wells);
}

// a row at each report time: the rates and BHP of its last step
void WellHistory::step(double t, const std::vector<ImpesWellResult>& wells, const std::vector<WellSetting>&, bool report) {
  if (!report) return;
  time_.push_back(t);
  for (std::size_t w = 0; w < nw_; ++w) {
    oil_[w].push_back(wells[w].oil_rate);
    water_[w].push_back(wells[w].water_rate);
    inj_[w].push_back(wells[w].water_injection);
    bhp_[w].push_back(wells[w].control == IMP_CTRL_SHUT ? NAN : wells[w].bhp);
  }
}

// [rows, time..., then per well oil..., water..., inj..., bhp...]
std::vector<double> WellHistory::save() const {
  std::vector<double> v{static_cast<double>(time_.size())};
  v.insert(v.end(), time_.begin(), time_.end());
  for (std::size_t w = 0; w < nw_; ++w)
    for (const auto* a : {&oil_[w], &water_[w], &inj_[w], &bhp_[w]}) v.insert(v.end(), a->begin(), a->end());
  return v;
}

void WellHistory::load(const std::vector<double>& v, std::size_t wells) {
  start(0, wells);
  const std::size_t n = v.empty() ? 0 : static_cast<std::size_t>(v[0]);
  if (v.empty() || v.size() != 1 + n * (1 + 4 * wells)) throw ConfigError("the checkpoint's well history does not fit this case");
  auto at = v.begin() + 1;
  auto take = [&](std::vector<double>& a) {
    a.assign(at, at + static_cast<std::ptrdiff_t>(n));
    at += static_cast<std::ptrdiff_t>(n);
  };
  take(time_);
  for (std::size_t w = 0; w < wells; ++w)
    for (auto* a : {&oil_[w], &water_[w], &inj_[w], &bhp_[w]}) take(*a);
}

std::vector<Panel> well_panels(const WellHistory& h, const std::vector<ImpesWell>& wells) {
  const std::size_t n = h.time_.size();
  std::vector<double> fopr(n), fwpr(n), fwir(n), fwct(n);
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t w = 0; w < h.nw_; ++w) {
      fopr[i] += h.oil_[w][i];
      fwpr[i] += h.water_[w][i];
      fwir[i] += h.inj_[w][i];
    }
    fwct[i] = fopr[i] + fwpr[i] > 0 ? fwpr[i] / (fopr[i] + fwpr[i]) : 0.0;
  }
  std::vector<Panel> panels(3);
  panels[0] = {"field rates", "time (days)", "sm3/day", {}};
  panels[0].series.push_back(Series{"oil production", h.time_, fopr, {20, 20, 20}});
  panels[0].series.push_back(Series{"water production", h.time_, fwpr, {30, 100, 220}});
  panels[0].series.push_back(Series{"water injection", h.time_, fwir, {30, 160, 60}, true});
  panels[1] = {"water cut", "time (days)", "", {}};
  panels[1].ymin = 0;
  panels[1].ymax = 1;
  panels[1].series.push_back(Series{"field", h.time_, fwct, {0, 0, 0}});
  panels[2] = {"bottom-hole pressure", "time (days)", "bar", {}};
  static const std::array<std::array<unsigned char, 3>, 6> colors{
      {{200, 40, 40}, {40, 90, 200}, {30, 150, 60}, {180, 120, 20}, {130, 50, 170}, {20, 150, 150}}};
  for (std::size_t w = 0; w < h.nw_ && w < wells.size(); ++w) {
    const auto col = colors[w % colors.size()];
    if (wells[w].kind == WellKind::Producer) {
      std::vector<double> wct(n);
      for (std::size_t i = 0; i < n; ++i) {
        const double l = h.oil_[w][i] + h.water_[w][i];
        wct[i] = l > 0 ? h.water_[w][i] / l : NAN;
      }
      panels[1].series.push_back(Series{wells[w].name, h.time_, wct, col, true});
    }
    panels[2].series.push_back(Series{wells[w].name, h.time_, h.bhp_[w], col});
  }
  return panels;
}

namespace {

class Impes3DPlots final : public Observer {
 public:
  explicit Impes3DPlots(std::filesystem::path dir) : dir_(std::move(dir)) {}

  void begin(const Model& m, bool) override {
    const Reservoir& r = reservoir(m);
    const auto& rt = r.config().input.report_times;
    while (next_report_ < rt.size() && m.time() >= rt[next_report_] * (1 - 1e-12)) ++next_report_;
    if (resumed_) h_.load(saved_, r.wells().size());
    else h_.start(m.time(), r.wells().size());
  }
  void step(const Model& m) override {
    const Reservoir& r = reservoir(m);
    const auto& rt = r.config().input.report_times;
    const bool report = next_report_ < rt.size() && m.time() >= rt[next_report_] * (1 - 1e-12);
    while (next_report_ < rt.size() && m.time() >= rt[next_report_] * (1 - 1e-12)) ++next_report_;
    h_.step(m.time(), r.wells(), r.step_settings(), report);
  }
  void snapshot(const Model& m, int index) override {
    if (h_.empty()) return;
    write_plot_png(dir_ / (snapshot_stem(m.name(), index) + "_wells.png"), well_panels(h_, reservoir(m).config().input.wells));
  }
  void save(ModelState& s) const override { s.put("well_history", h_.save()); }
  void resume(const ModelState& s) override {
    if (!s.has("well_history")) return;  // written without plots: the history starts here
    saved_ = s.doubles("well_history");
    resumed_ = true;
  }

 private:
  static const Reservoir& reservoir(const Model& m) {
    const auto* r = dynamic_cast<const Reservoir*>(&m);
    if (!r) throw Error("an impes3d output was given a " + m.name() + " model");
    return *r;
  }

  std::filesystem::path dir_;
  std::size_t next_report_ = 0;
  WellHistory h_;
  bool resumed_ = false;
  std::vector<double> saved_;  // the checkpoint's, until begin() knows the wells
};

}  // namespace

std::unique_ptr<Observer> impes3d_plots(const std::filesystem::path& dir) { return std::make_unique<Impes3DPlots>(dir); }

}  // namespace poreflow::io
