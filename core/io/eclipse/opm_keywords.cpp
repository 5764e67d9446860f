#include "core/io/eclipse/opm_keywords.hpp"

#include <map>
#include <set>

#include <opm/input/eclipse/Deck/Deck.hpp>
#include <opm/input/eclipse/Deck/DeckKeyword.hpp>

#include "core/base/error.hpp"

namespace poreflow::eclipse {
namespace {

// keywords every section may hold without effect on the physics (messages, echo, reports)
const std::set<std::string> kAnywhere = {"ECHO", "NOECHO", "MESSAGES", "INCLUDE", "PATHS", "SKIP", "SKIP100", "SKIP300", "ENDSKIP"};

const std::map<std::string, std::set<std::string>> kAllowed = {
    {"RUNSPEC",
     {"RUNSPEC", "TITLE", "DIMENS", "OIL", "WATER", "METRIC", "FIELD", "LAB", "TABDIMS", "WELLDIMS", "EQLDIMS", "REGDIMS",
      "START", "UNIFOUT", "UNIFIN", "FMTOUT", "FMTIN", "NSTACK", "MONITOR", "NOMONITO", "RPTRUNSP", "SMRYDIMS", "ENDSCALE_NONE",
      "NOINSPEC", "NORSSPEC", "NUPCOL", "UNIFSAVE", "SAVE"}},
    {"GRID",
     {"GRID", "DX", "DY", "DZ", "DXV", "DYV", "DZV", "TOPS", "PERMX", "PERMY", "PERMZ", "PORO", "NTG", "ACTNUM", "MULTX",
      "MULTY", "MULTZ", "EQUALS", "COPY", "MULTIPLY", "ADD", "BOX", "ENDBOX", "INIT", "GRIDFILE", "RPTGRID", "SPECGRID",
      "COORD", "ZCORN", "MINPV", "NEWTRAN", "OLDTRAN", "MAPUNITS", "MAPAXES", "GRIDUNIT", "COORDSYS"}},
    {"EDIT", {"EDIT"}},
    {"PROPS", {"PROPS", "SWOF", "PVTW", "PVDO", "DENSITY", "ROCK", "RPTPROPS", "GRAVITY"}},
    {"REGIONS", {"REGIONS", "FIPNUM", "SATNUM", "PVTNUM", "EQLNUM", "EQUALS", "COPY", "BOX", "ENDBOX"}},
    {"SOLUTION", {"SOLUTION", "EQUIL", "PRESSURE", "SWAT", "RPTSOL", "RPTRST"}},
    {"SCHEDULE",
     {"SCHEDULE", "WELSPECS", "COMPDAT", "WCONPROD", "WCONINJE", "WELOPEN", "TSTEP", "DATES", "RPTSCHED", "RPTRST", "TUNING",
      "NEXTSTEP", "END", "WRFTPLT", "WRFT",
      "RPTONLY", "RPTONLYO", "SUMTHIN"}},  // summary output: written as OPM Flow writes it (opm_summary.cpp)
};

// why a known keyword is refused (the most common ones; others get the generic reason)
const std::map<std::string, std::string> kReasons = {
    {"GAS", "a gas phase (poreflow models oil and water)"},
    {"DISGAS", "dissolved gas (poreflow's oil is dead oil, PVDO)"},
    {"VAPOIL", "vaporised oil (poreflow models oil and water)"},
    {"FAULTS", "faults (transmissibility across them)"},
    {"MULTFLT", "fault multipliers"},
    {"NNC", "non-neighbour connections"},
    {"EDITNNC", "non-neighbour connections"},
    {"AQUCT", "aquifers"},
    {"AQUFETP", "aquifers"},
    {"AQUANCON", "aquifers"},
    {"AQUNUM", "aquifers"},
    {"PVTO", "live oil (use PVDO)"},
    {"SGOF", "a gas phase"},
    {"SWFN", "SWFN/SOF2 saturation functions (use SWOF)"},
    {"SWATINIT", "capillary pressure scaled to an initial saturation"},
    {"MULTPV", "pore volume multipliers"},
    {"THPRES", "threshold pressures"},
    {"WCONHIST", "history-matching controls"},
    {"WCONINJH", "history-matching controls"},
    {"GCONPROD", "group controls"},
    {"GCONINJE", "group controls"},
    {"WECON", "economic limits"},
    {"COMPSEGS", "multi-segment wells"},
    {"WELSEGS", "multi-segment wells"},
    {"WPIMULT", "well productivity multipliers"},
    {"WTEST", "well testing"},
    {"GRUPTREE", "group trees"},
};

}  // namespace

std::vector<std::string> check_keywords(const Opm::Deck& deck) {
  std::vector<std::string> notes;
  std::string section = "RUNSPEC";
  for (std::size_t n = 0; n < deck.size(); ++n) {
    const auto& kw = deck[n];
    const std::string& name = kw.name();
    if (kAllowed.count(name) || name == "SUMMARY") section = name;  // a section keyword
    if (section == "SUMMARY" || kAnywhere.count(name)) continue;  // output requests only
    const auto& ok = kAllowed.at(section);
    const auto& loc = kw.location();
    const std::string where = loc.filename + ":" + std::to_string(loc.lineno);
    if (!ok.count(name)) {
      auto r = kReasons.find(name);
      throw ConfigError("deck keyword " + name + " (" + where + ", section " + section + ") is not supported by poreflow: " +
                        (r != kReasons.end() ? r->second : "it would change the model, and poreflow does not model it") +
                        " (docs/decks.md lists the keywords taken)");
    }
    if (name == "TUNING" || name == "NEXTSTEP")
      notes.push_back("deck keyword " + name + " (" + where + ") is ignored: poreflow chooses its own time steps");
  }
  return notes;
}

}  // namespace poreflow::eclipse
