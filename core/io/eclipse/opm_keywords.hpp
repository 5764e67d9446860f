#pragma once
// Which deck keywords poreflow takes: an allow-list per section. A keyword outside it that would
// change the physics is an error naming it, its file and line; output-only ones are accepted.
#include <string>
#include <vector>

namespace Opm {
class Deck;
}

namespace poreflow::eclipse {

// Throws ConfigError on the first keyword poreflow cannot honour; returns notes for the log
// about accepted keywords whose effect poreflow does not reproduce (e.g. TUNING).
std::vector<std::string> check_keywords(const Opm::Deck& deck);

}  // namespace poreflow::eclipse
