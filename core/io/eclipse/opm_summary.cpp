// Summary files (SMSPEC/UNSMRY) through opm-common's writer: the deck's SUMMARY vectors, evaluated by
// opm-common from the well rates and pressures of every impes3d step (totals accumulate over the
// steps, as OPM Flow's do over its time steps), and written at every report time and, where the
// caller asks (the fully implicit scheme), at every time step between as ministeps, unless the
// deck's RPTONLY or SUMTHIN says otherwise. IMPES takes many more steps than an implicit simulator
// (case HETERO: 65 000), so its steps are not written as ministeps: the file would grow to tens of
// MB. A restarted run's files continue the totals its checkpoint kept.
#include <opm/common/utility/TimeService.hpp>
#include <opm/input/eclipse/EclipseState/SummaryConfig/SummaryConfig.hpp>
#include <opm/input/eclipse/Schedule/Schedule.hpp>
#include <opm/input/eclipse/Schedule/SummaryState.hpp>
#include <opm/input/eclipse/Schedule/Well/PAvgCalculatorCollection.hpp>
#include <opm/input/eclipse/Units/UnitSystem.hpp>
#include <opm/output/data/Groups.hpp>
#include <opm/output/data/Wells.hpp>
#include <opm/output/eclipse/Inplace.hpp>
#include <opm/output/eclipse/Summary.hpp>

#include "core/base/error.hpp"
#include "core/io/eclipse/opm_deck.hpp"

namespace poreflow::eclipse {
namespace {

using Measure = Opm::UnitSystem::measure;
const Opm::UnitSystem kMetric = Opm::UnitSystem::newMETRIC();
double si(Measure m, double metric) { return kMetric.to_si(m, metric); }

class OpmSummaryWriter final : public SummaryWriter {
 public:
  OpmSummaryWriter(const OpmDeck& d, const std::filesystem::path& dir, const std::string& stem)
      : d_(d), state_(Opm::TimeService::from_time_t(d.schedule->getStartTime())) {
    d.state->getIOConfig().setOutputDir(dir.string());
    d.state->getIOConfig().setBaseName(stem);
    out_ = std::make_unique<Opm::out::Summary>(*d.state, *d.summary_config, d.state->getInputGrid(), *d.schedule, stem);
  }

  // the initial in-place volumes; no row at time 0 (OPM Flow writes none either: rates and BHPs
  // are only defined once a step has run)
  void start(const SummaryStep& s) override { initial_ = inplace(s); }

  SummaryTotals totals() const override {
    SummaryTotals t;
    for (const auto& kv : state_) {
      t.keys.push_back(kv.first);
      t.values.push_back(kv.second);
    }
    return t;
  }

  // opm adds each step's rates times the time since the state's elapsed time, and its totals to
  // what the state holds: a fresh state would restart them at 0 and take the first step as
  // lasting from time 0
  void resume(const SummaryTotals& t, double time) override {
    state_.update_elapsed(time * 86400.0 - state_.get_elapsed());
    last_written_ = time;
    for (std::size_t i = 0; i < t.keys.size() && i < t.values.size(); ++i) {
      const std::string& key = t.keys[i];
      const auto colon = key.find(':');
      const std::string var = key.substr(0, colon);
      // a well's and a group's values are kept twice in the state (by key and by entity)
      const auto cat = colon == std::string::npos ? Opm::SummaryConfigNode::Category::Miscellaneous : Opm::parseKeywordCategory(var);
      if (cat == Opm::SummaryConfigNode::Category::Well) state_.update_well_var(key.substr(colon + 1), var, t.values[i]);
      else if (cat == Opm::SummaryConfigNode::Category::Group) state_.update_group_var(key.substr(colon + 1), var, t.values[i]);
      else state_.update(key, t.values[i]);
    }
  }

  void step(const SummaryStep& s) override {
    // the report step this step belongs to: (T_{r-1}, T_r], 1-based
    const auto& rt = d_.input().report_times;
    int r = 1;
    while (r < static_cast<int>(rt.size()) && rt[r - 1] < s.time - 1e-9 * std::max(1.0, s.time)) ++r;
    eval(s, r);  // every step: the totals add each step's rates
    if (!s.report && !(s.ministep && want_ministep(s.time, r))) return;
    out_->add_timestep(state_, r, !s.report);
    out_->write();  // at every written step, as OPM Flow does: a run stopped between reports keeps them
    last_written_ = s.time;
  }

 private:
  Opm::Inplace inplace(const SummaryStep& s) const {
    Opm::Inplace ip;
    ip.add(Opm::Inplace::Phase::OIL, si(Measure::liquid_surface_volume, s.oil_in_place));
    ip.add(Opm::Inplace::Phase::WATER, si(Measure::liquid_surface_volume, s.water_in_place));
    return ip;
  }

  void eval(const SummaryStep& s, int report_step) {
    Opm::data::Wells wells;
    const auto& in = d_.input();
    for (std::size_t i = 0; i < in.wells.size() && i < s.wells.size(); ++i) {
      const auto& w = s.wells[i];
      Opm::data::Well x;
      using opt = Opm::data::Rates::opt;
      const double q = si(Measure::liquid_surface_rate, 1.0);
      // opm's sign convention: injection positive, production negative
      x.rates.set(opt::oil, -w.oil_rate * q);
      x.rates.set(opt::wat, (w.water_injection - w.water_rate) * q);
      x.rates.set(opt::gas, 0.0);
      x.bhp = si(Measure::pressure, w.bhp);
      x.dynamicStatus = w.open ? Opm::Well::Status::OPEN : Opm::Well::Status::SHUT;
      x.current_control.isProducer = in.wells[i].kind == WellKind::Producer;
      if (x.current_control.isProducer) x.current_control.prod = w.bhp_controlled ? Opm::Well::ProducerCMode::BHP : producer_mode(w.control);
      else x.current_control.inj = w.bhp_controlled ? Opm::Well::InjectorCMode::BHP : Opm::Well::InjectorCMode::RATE;
      wells[in.wells[i].name] = x;
    }
    Opm::out::Summary::GlobalProcessParameters single = {{"FPR", si(Measure::pressure, s.pressure)}};
    const Opm::Inplace now = inplace(s);
    out_->eval(state_, report_step, s.time * 86400.0, wells, Opm::data::GroupAndNetworkValues{}, single, initial_, now,
               Opm::PAvgCalculatorCollection{});
  }

  static Opm::Well::ProducerCMode producer_mode(WellControl c) {
    using M = Opm::Well::ProducerCMode;
    return c == WellControl::Orat ? M::ORAT : c == WellControl::Wrat ? M::WRAT : c == WellControl::Bhp ? M::BHP : M::LRAT;
  }

  const OpmDeck& d_;
  Opm::SummaryState state_;
  // the deck's RPTONLY (reports alone) and SUMTHIN (ministeps at least that far apart), in force
  // in report step r as in OPM Flow
  bool want_ministep(double time, int r) const {
    const auto& st = (*d_.schedule)[static_cast<std::size_t>(r - 1)];
    if (st.rptonly()) return false;
    const auto& thin = st.sumthin();  // seconds
    return !thin || (time - last_written_) * 86400.0 >= *thin * (1 - 1e-12);
  }

  Opm::Inplace initial_;
  double last_written_ = 0;  // days: the last step written
  std::unique_ptr<Opm::out::Summary> out_;
};

}  // namespace

std::unique_ptr<SummaryWriter> OpmDeck::summary(const std::filesystem::path& dir, const std::string& stem) const {
  std::filesystem::create_directories(dir);
  return std::make_unique<OpmSummaryWriter>(*this, dir, stem);
}

}  // namespace poreflow::eclipse
