// The stand-in for a build without opm-common: a deck is recognised, and refused clearly.
#include "core/base/error.hpp"
#include "core/io/eclipse/deck.hpp"

namespace poreflow::eclipse {

bool available() { return false; }

std::shared_ptr<const Deck> read_deck(const std::string& path) {
  throw ConfigError("'" + path + "': poreflow was built without Eclipse deck support (opm-common; Debian: libopm-common-dev)");
}

}  // namespace poreflow::eclipse
