#pragma once
// opm-common's exceptions in poreflow's words: one line, the keyword with its file and line where
// opm-common knows them, no bytes that are not printable text.
#include <exception>
#include <string>

namespace poreflow::eclipse {

// The message of an exception opm-common threw while reading the deck at `path` (the part after
// "deck 'PATH': ").
std::string explain_opm_error(const std::exception& e, const std::string& path);

}  // namespace poreflow::eclipse
