#include "core/io/checkpoint.hpp"

#include <string>

namespace poreflow::io {

std::filesystem::path process_file(const std::filesystem::path& base, int rank, int processes) {
  if (processes <= 1) return base;
  std::filesystem::path f = base;
  f.replace_filename(base.stem().string() + ".p" + std::to_string(rank) + "of" + std::to_string(processes) + base.extension().string());
  return f;
}

std::string process_count_hint(const std::filesystem::path& base, int processes) {
  std::error_code ec;
  if (processes > 1 && std::filesystem::is_regular_file(base, ec))
    return base.string() + " was written by a run of one process: restart it with one process";
  const std::string prefix = base.stem().string() + ".p0of", ext = base.extension().string();
  const auto dir = base.has_parent_path() ? base.parent_path() : std::filesystem::path(".");
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) {
    const std::string name = e.path().filename().string();
    if (name.size() <= prefix.size() + ext.size() || name.compare(0, prefix.size(), prefix) != 0 ||
        name.compare(name.size() - ext.size(), ext.size(), ext) != 0)
      continue;
    const std::string n = name.substr(prefix.size(), name.size() - prefix.size() - ext.size());
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos || std::stoi(n) == processes) continue;
    return base.string() + " was written by a run over " + n + " processes (" + name + " and the others): restart with mpirun -n " + n;
  }
  return "";
}

const char* checkpoint_format_change(int format) {
  if (format == 1) return " (format 1 kept positional arrays such as 'counters' and 'dt', format 2 names every record)";
  return "";
}

}  // namespace poreflow::io
