#pragma once
// Grid property arrays written as Eclipse INCLUDE files, for a deck's GRID section
// (INCLUDE 'PERMX.INC' /): the keyword, the values in the deck's order (i fastest, then j, then k
// from the top), six to a line with 7 significant digits, and the closing slash.
#include <cstdint>
#include <string>
#include <vector>

#include "core/models/spe10_fields.hpp"

namespace poreflow::io {

// `dir`/`file`: `header` as comment lines ("-- ..."), then keyword and values. ConfigError naming
// the path when it cannot be written.
void write_eclipse_include(const std::string& dir, const std::string& file, const std::string& keyword,
                           const std::vector<double>& values, const std::string& header);

// PERMX.INC, PERMY.INC, PERMZ.INC (mD) and PORO.INC of a generated SPE10-like field, each headed by
// the grid, the seed and the field's fingerprint; returns the paths written.
std::vector<std::string> write_spe10_includes(const std::string& dir, const Spe10Fields& f, std::uint64_t seed);

}  // namespace poreflow::io
