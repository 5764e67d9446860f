#include "core/io/outputs/well_plots.hpp"

#include <array>
#include <cmath>

#include "core/base/error.hpp"
#include "core/io/outputs/model_outputs.hpp"

namespace poreflow::io {

void WellHistory::start(double t, std::size_t wells) {
  nw_ = wells;
  time_ = {t};
  t_ = t;
  for (auto* a : {&oil_, &water_, &inj_, &bhp_, &shut_}) a->assign(wells, {});
  sums_.assign(wells * kSums, 0.0);
  sig_.clear();
}

void WellHistory::close(double t) {
  const double span = t - time_.back();
  if (!(span > 0)) return;
  for (std::size_t w = 0; w < nw_; ++w) {
    const double* s = &sums_[w * kSums];
    oil_[w].push_back(s[0] / span);
    water_[w].push_back(s[1] / span);
    inj_[w].push_back(s[2] / span);
    bhp_[w].push_back(s[4] > 0 ? s[3] / s[4] : NAN);
    shut_[w].push_back(s[5] > s[4] ? 1.0 : 0.0);
  }
  time_.push_back(t);
  std::fill(sums_.begin(), sums_.end(), 0.0);
}

void WellHistory::step(double t, const std::vector<ImpesWellResult>& wells, const std::vector<WellSetting>& settings,
                       bool report) {
  std::vector<double> sig;
  for (std::size_t w = 0; w < nw_; ++w) {
    const auto& st = settings[w];
    sig.insert(sig.end(), {st.open ? 1.0 : 0.0, static_cast<double>(st.control), st.rate, st.bhp,
                           static_cast<double>(wells[w].control)});
  }
  if (!sig_.empty() && sig != sig_) close(t_);  // the control changed when this step began
  sig_ = std::move(sig);
  const double dt = t - t_;
  for (std::size_t w = 0; w < nw_; ++w) {
    double* s = &sums_[w * kSums];
    const bool shut = !settings[w].open || wells[w].control == IMP_CTRL_SHUT;
    s[0] += wells[w].oil_rate * dt;
    s[1] += wells[w].water_rate * dt;
    s[2] += wells[w].water_injection * dt;
    if (!shut) s[3] += wells[w].bhp * dt;
    (shut ? s[5] : s[4]) += dt;
  }
  t_ = t;
  if (report) close(t);
}

// [intervals, wells, time (intervals + 1), per well its five per-interval arrays, t, the sums,
// then the last step's control if any]
std::vector<double> WellHistory::save() const {
  const std::size_t n = time_.size() - 1;
  std::vector<double> v{static_cast<double>(n), static_cast<double>(nw_)};
  v.insert(v.end(), time_.begin(), time_.end());
  for (std::size_t w = 0; w < nw_; ++w)
    for (const auto* a : {&oil_[w], &water_[w], &inj_[w], &bhp_[w], &shut_[w]}) v.insert(v.end(), a->begin(), a->end());
  v.push_back(t_);
  v.insert(v.end(), sums_.begin(), sums_.end());
  v.insert(v.end(), sig_.begin(), sig_.end());
  return v;
}

void WellHistory::load(const std::vector<double>& v, std::size_t wells) {
  const auto bad = [] { return ConfigError("the checkpoint's well history does not fit this case"); };
  if (v.size() < 2 || v[1] != static_cast<double>(wells) || !(v[0] >= 0 && v[0] < 1e9)) throw bad();
  const std::size_t n = static_cast<std::size_t>(v[0]);
  const std::size_t fixed = 2 + (n + 1) + wells * 5 * n + 1 + wells * kSums;
  if (v.size() != fixed && v.size() != fixed + wells * kSig) throw bad();
  start(0, wells);
  auto at = v.begin() + 2;
  auto take = [&](std::vector<double>& a, std::size_t k) {
    a.assign(at, at + static_cast<std::ptrdiff_t>(k));
    at += static_cast<std::ptrdiff_t>(k);
  };
  take(time_, n + 1);
  for (std::size_t w = 0; w < wells; ++w)
    for (auto* a : {&oil_[w], &water_[w], &inj_[w], &bhp_[w], &shut_[w]}) take(*a, n);
  t_ = *at++;
  take(sums_, wells * kSums);
  take(sig_, static_cast<std::size_t>(v.end() - at));
}

namespace {

using Rgb = std::array<unsigned char, 3>;

// a value per interval as a step: held from the interval's start to its end
Series steps(const std::vector<double>& t, const std::vector<double>& v, std::string label, Rgb color, bool dashed = false) {
  Series s{std::move(label), {}, {}, color, dashed};
  for (std::size_t k = 0; k < v.size(); ++k) {
    s.x.insert(s.x.end(), {t[k], t[k + 1]});
    s.y.insert(s.y.end(), {v[k], v[k]});
  }
  return s;
}

}  // namespace

std::vector<Panel> well_panels(const WellHistory& h, const std::vector<ImpesWell>& wells) {
  const auto& t = h.time_;
  const std::size_t n = t.size() - 1;
  std::vector<double> fopr(n), fwpr(n), fwir(n), fwct(n);
  for (std::size_t k = 0; k < n; ++k) {
    for (std::size_t w = 0; w < h.nw_; ++w) {
      fopr[k] += h.oil_[w][k];
      fwpr[k] += h.water_[w][k];
      fwir[k] += h.inj_[w][k];
    }
    fwct[k] = fopr[k] + fwpr[k] > 0 ? fwpr[k] / (fopr[k] + fwpr[k]) : NAN;  // no liquid: a gap
  }
  std::vector<Panel> panels(3);
  panels[0] = {"field rates (means between reports and control changes)", "time (days)", "sm3/day", {}};
  panels[0].series.push_back(steps(t, fopr, "oil production", {20, 20, 20}));
  panels[0].series.push_back(steps(t, fwpr, "water production", {30, 100, 220}));
  panels[0].series.push_back(steps(t, fwir, "water injection", {30, 160, 60}, true));
  panels[1] = {"water cut", "time (days)", "", {}, 0, 1};
  panels[1].series.push_back(steps(t, fwct, "field", {0, 0, 0}));
  panels[2] = {"bottom-hole pressure (shut wells marked)", "time (days)", "bar", {}};
  static const std::array<Rgb, 6> colors{
      {{200, 40, 40}, {40, 90, 200}, {30, 150, 60}, {180, 120, 20}, {130, 50, 170}, {20, 150, 150}}};
  for (std::size_t w = 0; w < h.nw_ && w < wells.size(); ++w) {
    const auto col = colors[w % colors.size()];
    if (wells[w].kind == WellKind::Producer) {
      std::vector<double> wct(n);
      for (std::size_t k = 0; k < n; ++k) {
        const double l = h.oil_[w][k] + h.water_[w][k];
        wct[k] = l > 0 ? h.water_[w][k] / l : NAN;
      }
      panels[1].series.push_back(steps(t, wct, wells[w].name, col, true));
    }
    panels[2].series.push_back(steps(t, h.bhp_[w], wells[w].name, col));
    // its shut stretches, each as one span
    for (std::size_t k = 0; k < n; ++k) {
      if (h.shut_[w][k] == 0) continue;
      std::size_t e = k;
      while (e + 1 < n && h.shut_[w][e + 1] != 0) ++e;
      panels[2].spans.push_back({t[k], t[e + 1], wells[w].name + " shut", col});
      k = e;
    }
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
