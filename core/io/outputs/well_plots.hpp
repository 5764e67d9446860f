#pragma once
// impes3d's wells plot (<stem>_wells.png): the field's rates, the producers' water cuts and each
// well's bottom-hole pressure against time. WellHistory is what the plot shows, kept as the run
// goes (and with a checkpoint, so a restarted run's plot shows the whole run); well_panels() turns
// it into the plot's panels.
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
  bool empty() const { return time_.empty(); }

  // as one record of a checkpoint, and back (ConfigError when it does not fit `wells` wells)
  std::vector<double> save() const;
  void load(const std::vector<double>& v, std::size_t wells);

 private:
  friend std::vector<Panel> well_panels(const WellHistory& h, const std::vector<ImpesWell>& wells);
  std::size_t nw_ = 0;
  std::vector<double> time_;
  std::vector<std::vector<double>> oil_, water_, inj_, bhp_;  // per well, per row
};

// the three panels: field rates, water cuts, BHP
std::vector<Panel> well_panels(const WellHistory& h, const std::vector<ImpesWell>& wells);

}  // namespace poreflow::io
