#include <algorithm>
#include <cctype>

#include "core/io/eclipse/deck_path.hpp"

namespace poreflow::eclipse {

bool is_deck_path(const std::string& path) {
  if (path.size() < 5) return false;
  std::string ext = path.substr(path.size() - 5);
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return char(std::toupper(c)); });
  return ext == ".DATA";
}

}  // namespace poreflow::eclipse
