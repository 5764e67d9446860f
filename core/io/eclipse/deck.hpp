#pragma once
// Eclipse decks (.DATA) for impes3d. opm-common parses the deck (INCLUDE, BOX, EQUALS, MULTIPLY,
// COPY, ADD and units resolved) into its EclipseState and Schedule; poreflow takes the resolved
// grid, properties, tables, wells and schedule from those into the ImpesInput a TOML case fills.
// Keywords that would change the physics and that poreflow does not model are errors naming the
// keyword, its file and line (core/io/eclipse/opm_keywords.cpp). Summary files (SMSPEC/UNSMRY) are
// written through opm-common's own writer, with the vectors the deck's SUMMARY section asks for.
// Without opm-common at build time, every entry point throws "built without Eclipse deck support".
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "core/io/eclipse/deck_path.hpp"
#include "core/models/impes3d_input.hpp"

namespace poreflow::eclipse {

// built with opm-common
bool available();

// One well's results over the step that just ended (METRIC: sm3/day, bar; production positive).
struct WellStep {
  double oil_rate = 0, water_rate = 0, water_injection = 0, bhp = 0;
  bool open = true;
  WellControl control = WellControl::Bhp;  // the setting's control
  bool bhp_controlled = false;             // running at its BHP (target or limit)
};

// The step that just ended, for the summary files.
struct SummaryStep {
  double time = 0;        // days since the start, at the step's end
  bool report = false;    // a report time (the end of a TSTEP/DATES step)
  bool ministep = false;  // written as a time step between reports (OPM Flow's and Eclipse's ministeps)
  std::vector<WellStep> wells;  // in the order of ImpesInput::wells
  double pressure = 0;    // pore-volume weighted, bar
  double oil_in_place = 0, water_in_place = 0;  // sm3
};

// What a checkpoint keeps of a summary writer: its running totals (with the rest of opm-common's
// summary state), by key (FOPT, WOPT:P1, GOPT:G1, ...).
struct SummaryTotals {
  std::vector<std::string> keys;
  std::vector<double> values;
};

class SummaryWriter {
 public:
  virtual ~SummaryWriter() = default;
  // the initial state (time 0; in a restarted run, the in-place volumes of time 0)
  virtual void start(const SummaryStep& s) = 0;
  virtual void step(const SummaryStep& s) = 0;
  virtual SummaryTotals totals() const = 0;
  // a restarted run's writer, before start(): continues the totals a checkpoint kept at `time` (days)
  virtual void resume(const SummaryTotals& t, double time) = 0;
};

class Deck {
 public:
  virtual ~Deck() = default;
  virtual const ImpesInput& input() const = 0;
  virtual std::string units() const = 0;     // METRIC, FIELD, LAB, PVT-M
  virtual std::string basename() const = 0;  // the deck's name without .DATA: the summary files' stem
  // opens dir/stem.SMSPEC and .UNSMRY for writing
  virtual std::unique_ptr<SummaryWriter> summary(const std::filesystem::path& dir, const std::string& stem) const = 0;
};

// Reads and checks a deck; throws ConfigError naming what is wrong and where.
std::shared_ptr<const Deck> read_deck(const std::string& path);

}  // namespace poreflow::eclipse
