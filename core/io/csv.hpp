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
  // Continues a series a restarted run began: the file must have this header and at least `rows`
  // rows, the last of them `last` (what the checkpoint recorded); rows after it, written after the
  // checkpoint by a run that was then stopped, are dropped. ConfigError naming the file otherwise.
  static CsvWriter resume(const std::filesystem::path& file, std::vector<std::string> columns, std::size_t rows,
                          const std::vector<double>& last);
  // One value per column, else poreflow::Error. NaN and infinities are written as nan, inf, -inf.
  // flush false: the row waits in the stream's buffer for the next flush (many rows a step).
  void row(const std::vector<double>& values, bool flush = true);
  void flush();
  std::size_t columns() const { return columns_.size(); }
  std::size_t rows() const { return rows_; }  // data rows in the file
  const std::vector<double>& last_row() const { return last_; }
  const std::filesystem::path& path() const { return file_; }
  // a row as written, without its line end
  static std::string format(const std::vector<double>& values);

 private:
  CsvWriter(const std::filesystem::path& file, std::vector<std::string> columns, std::size_t rows, std::vector<double> last);
  std::filesystem::path file_;
  std::vector<std::string> columns_;
  std::ofstream out_;
  std::size_t rows_ = 0;
  std::vector<double> last_;
};

}  // namespace poreflow::io
