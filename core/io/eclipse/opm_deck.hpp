#pragma once
// The opm-common objects behind a deck, shared by the reader (opm_deck.cpp) and the summary
// writer (opm_summary.cpp).
#include <cctype>
#include <memory>
#include <string>

#include <opm/input/eclipse/Deck/Deck.hpp>
#include <opm/input/eclipse/EclipseState/EclipseState.hpp>
#include <opm/input/eclipse/EclipseState/SummaryConfig/SummaryConfig.hpp>
#include <opm/input/eclipse/Schedule/Schedule.hpp>

#include "core/io/eclipse/deck.hpp"

namespace poreflow::eclipse {

class OpmDeck final : public Deck {
 public:
  const ImpesInput& input() const override { return input_; }
  std::string units() const override {
    std::string u = state->getDeckUnitSystem().getName();
    for (char& c : u) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return u;
  }
  std::string basename() const override { return basename_; }
  std::unique_ptr<SummaryWriter> summary(const std::filesystem::path& dir, const std::string& stem) const override;

  ImpesInput input_;
  std::string basename_;
  std::unique_ptr<Opm::EclipseState> state;  // the summary writer sets its output folder
  std::unique_ptr<Opm::Schedule> schedule;
  std::unique_ptr<Opm::SummaryConfig> summary_config;
};

}  // namespace poreflow::eclipse
