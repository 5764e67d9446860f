#include "core/base/error.hpp"

#include <string>

namespace poreflow {

std::string where(const char* what, const char* file, int line) {
  std::string f(file);
  // keep the path from the project root only
  for (const char* root : {"/core/", "/backends/", "/apps/", "/tests/"}) {
    auto pos = f.rfind(root);
    if (pos != std::string::npos) {
      f = f.substr(pos + 1);
      break;
    }
  }
  return std::string(what) + " (at " + f + ":" + std::to_string(line) + ")";
}

}  // namespace poreflow
