#pragma once
// What each model adds to the standard outputs (outputs.hpp): its plots (its colour maps: maps.hpp) and, where VTK ImageData
// of its fields is not the right snapshot, its own snapshot writer; the reservoir model's plots
// keep the wells' history over the report times, and a deck run writes Eclipse summary files.
#include <filesystem>
#include <memory>
#include <string>

#include "core/io/outputs/outputs.hpp"

namespace poreflow {
namespace eclipse {
class Deck;
}

namespace io {

// bl1d: the saturation against the analytic (Welge) profile, and the pressure; `label` names the
// curves ("poreflow omp")
PlotWriter bl1d_plot(const std::string& label);
// fluids3d: density and the velocity as one 3-component array (.vti)
std::string fluids3d_snapshot(const Model& m, const std::filesystem::path& dir, const std::string& stem);

// impes3d: the cells as hexahedra (.vtu) with pressure, S_w, PERMX and PORO
SnapshotWriter impes3d_snapshot();
// impes3d: the wells' rates, water cut and BHP over the report times so far (<stem>_wells.png); the
// history is kept for restarts (its colour map: maps.hpp)
std::unique_ptr<Observer> impes3d_plots(const std::filesystem::path& dir);
// a deck's summary files (<deck>.SMSPEC/.UNSMRY; a restarted run writes <deck>_R<step>): the
// initial state, then every step, a report step at every report_every-th report time and the last
std::unique_ptr<Observer> eclipse_summary(std::shared_ptr<const eclipse::Deck> deck, const std::filesystem::path& dir,
                                          long report_every = 1);

}  // namespace io
}  // namespace poreflow
