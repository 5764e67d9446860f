#pragma once
// The keywords poreflow reads from a deck, checked on opm-common's parsed Deck before opm-common
// builds its EclipseState and Schedule from them. opm-common's own checks there say "DX size
// mismatch" for DIMENS 0 10 3, "Incorrect ordering of values in column: SW" with no place, or a
// TSTEP in seconds; these say which keyword, where, and the values in the deck's units.
#include <string>

namespace Opm {
class Deck;
class DeckKeyword;
}  // namespace Opm

namespace poreflow::eclipse {

// "KEYWORD (file:line)"
std::string keyword_place(const Opm::DeckKeyword& kw);

// Throws ConfigError "KEYWORD (file:line): what" on the first bad value of DIMENS/SPECGRID,
// START/DATES, TSTEP, SWOF or PVDO.
void check_deck_values(const Opm::Deck& deck);

// impes3d's checks of what the deck gave (validate(), core/models/impes3d_input.hpp) name a table
// or keyword; `what` (its message without the case's name) with that keyword's place in the deck,
// or `what` unchanged when it names none.
std::string with_keyword_place(const std::string& what, const Opm::Deck& deck);

}  // namespace poreflow::eclipse
