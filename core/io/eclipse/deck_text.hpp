#pragma once
// A deck's text, checked before opm-common parses it: opm-common words a problem with the deck's
// own text as its message's format string, so a file that is not text, or a brace where a keyword
// or value belongs, ends in fmt's "argument not found" with no place. The deck and the files it
// INCLUDEs (paths relative to the deck's folder, as opm-common takes them) are read once.
#include <string>

namespace poreflow::eclipse {

// Throws ConfigError naming the file, line and column of the first byte that is not text
// (a control character other than tab, CR, LF and form feed: anywhere, comments included), and of
// the first '{', '}' or non-ASCII byte where opm-common reads (outside quotes, before a "--"
// comment or the slash that ends a record, and not on a TITLE's line).
void check_deck_text(const std::string& path);

}  // namespace poreflow::eclipse
