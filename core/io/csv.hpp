#pragma once
// Time series and profiles as CSV: a header line, then one line per row, every value written with
// the shortest text that parses back to the same double, and flushed so a crashed run keeps its
// rows.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace poreflow::io {

class CsvWriter {
 public:
  // Creates (truncates) the file and writes the header. Throws poreflow::Error naming the path.
  CsvWriter(const std::filesystem::path& file, std::vector<std::string> columns);
  // One value per column, else poreflow::Error. NaN and infinities are written as nan, inf, -inf.
  void row(const std::vector<double>& values);
  std::size_t columns() const { return columns_.size(); }
  const std::filesystem::path& path() const { return file_; }

 private:
  std::filesystem::path file_;
  std::vector<std::string> columns_;
  std::ofstream out_;
};

}  // namespace poreflow::io
