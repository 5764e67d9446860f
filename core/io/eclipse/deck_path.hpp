#pragma once
#include <string>

namespace poreflow::eclipse {

// a path that names an Eclipse deck: ends in .DATA (any case)
bool is_deck_path(const std::string& path);

}  // namespace poreflow::eclipse
