#pragma once
// impes3d's wells plot (<stem>_wells.png): the field's rates, the producers' water cuts and each
// well's bottom-hole pressure against time. WellHistory is what the plot shows, kept as the run
// goes (and with a checkpoint, so a restarted run's plot shows the whole run); well_panels() turns
// it into the plot's panels.
//
// The history is a sequence of intervals from the run's start: one ends at each report time and
// wherever a well's control changes (the schedule's events, a switch between rate and BHP
// control, a well shut or opened). Each interval holds the wells' mean rates over its steps and
// their mean BHP while open, drawn as a step: a value held over its interval, so a control change
// is a jump at its time and the area under a rate is the volume produced.
#include <cstddef>
#include <string>
#include <vector>

#include "core/io/png_plot.hpp"
#include "core/models/impes3d.hpp"

namespace poreflow::io {

class WellHistory {
 public:
  // the run's start (t = 0, or where a restart continues)
  void start(double t, std::size_t wells);
  // after each accepted step ending at t: the wells' results and their settings during the step;
  // report: t is a report time
  void step(double t, const std::vector<ImpesWellResult>& wells, const std::vector<WellSetting>& settings, bool report);
  bool empty() const { return time_.size() < 2; }

  // as one record of a checkpoint, and back (ConfigError when it does not fit `wells` wells)
  std::vector<double> save() const;
  void load(const std::vector<double>& v, std::size_t wells);

 private:
  friend std::vector<Panel> well_panels(const WellHistory& h, const std::vector<ImpesWell>& wells);
  void close(double t);
  // per well: what a step adds to the open interval, and what makes a control
  static constexpr std::size_t kSums = 6;  // oil dt, water dt, injection dt, BHP dt while open, open dt, shut dt
  static constexpr std::size_t kSig = 5;   // open, the setting's control, rate, BHP, the control the step ran under

  std::size_t nw_ = 0;
  std::vector<double> time_;  // the intervals' ends, after the start
  // per well, per interval: mean oil, water and injection rates, BHP while open (NaN: shut), shut
  std::vector<std::vector<double>> oil_, water_, inj_, bhp_, shut_;
  double t_ = 0;              // the end of the last step
  std::vector<double> sums_;  // the open interval's, kSums per well
  std::vector<double> sig_;   // the last step's control, kSig per well (empty before the first step)
};

// the three panels: field rates, water cuts, BHP
std::vector<Panel> well_panels(const WellHistory& h, const std::vector<ImpesWell>& wells);

}  // namespace poreflow::io
