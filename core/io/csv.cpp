#include "core/io/csv.hpp"

#include <cerrno>
#include <charconv>
#include <system_error>

#include "core/base/error.hpp"

namespace poreflow::io {

namespace {

// RFC 4180 quoting, only for the column names that need it.
std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\r\n") == std::string::npos) return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"') out += '"';
    out += c;
  }
  return out + "\"";
}

std::string header_line(const std::vector<std::string>& columns) {
  std::string h;
  for (std::size_t i = 0; i < columns.size(); ++i) {
    if (i) h += ',';
    h += csv_field(columns[i]);
  }
  return h;
}

}  // namespace

CsvWriter::CsvWriter(const std::filesystem::path& file, std::vector<std::string> columns)
    : file_(file), columns_(std::move(columns)) {
  if (columns_.empty()) throw Error("CsvWriter '" + file_.string() + "': no columns");
  out_.open(file_, std::ios::binary | std::ios::trunc);
  if (!out_) throw Error("cannot open '" + file_.string() + "' for writing: " + std::generic_category().message(errno));
  out_ << header_line(columns_) << '\n' << std::flush;
  if (!out_) throw Error("cannot write '" + file_.string() + "'");
}

CsvWriter::CsvWriter(const std::filesystem::path& file, std::vector<std::string> columns, std::size_t rows,
                     std::vector<double> last)
    : file_(file), columns_(std::move(columns)), rows_(rows), last_(std::move(last)) {
  out_.open(file_, std::ios::binary | std::ios::app);
  if (!out_) throw Error("cannot open '" + file_.string() + "' for writing: " + std::generic_category().message(errno));
}

CsvWriter CsvWriter::resume(const std::filesystem::path& file, std::vector<std::string> columns, std::size_t rows,
                            const std::vector<double>& last) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw ConfigError("cannot read '" + file.string() + "' to continue its series");
  auto bad = [&](const std::string& why) {
    throw ConfigError("cannot continue the series '" + file.string() + "': " + why +
                      "; restore the file of the run that wrote the checkpoint, or restart into another folder (--out)");
  };
  std::string line;
  std::size_t offset = 0, n = 0;
  if (!std::getline(in, line) || line != header_line(columns)) bad("its header is not the one this run writes");
  offset += line.size() + 1;
  std::string kept;
  while (n < rows && std::getline(in, line) && !in.eof()) {  // a last line without its line end is incomplete
    ++n;
    offset += line.size() + 1;
    kept = line;
  }
  if (n < rows)
    bad("it has " + std::to_string(n) + " complete rows, the checkpoint was written after row " + std::to_string(rows));
  if (rows > 0 && kept != format(last))
    bad("its row " + std::to_string(rows) + " is not the one the checkpoint recorded (another run wrote it)");
  in.close();
  std::error_code ec;
  std::filesystem::resize_file(file, offset, ec);  // rows written after the checkpoint
  if (ec) throw Error("cannot truncate '" + file.string() + "': " + ec.message());
  return CsvWriter(file, std::move(columns), rows, last);
}

std::string CsvWriter::format(const std::vector<double>& values) {
  std::string line;
  char buf[32];
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) line += ',';
    // std::to_chars without a format is the shortest round-trip representation.
    auto r = std::to_chars(buf, buf + sizeof buf, values[i]);
    line.append(buf, r.ptr);
  }
  return line;
}

void CsvWriter::row(const std::vector<double>& values, bool flush) {
  if (values.size() != columns_.size())
    throw Error("CsvWriter '" + file_.string() + "': row has " + std::to_string(values.size()) + " values for " +
                std::to_string(columns_.size()) + " columns");
  out_ << format(values) << '\n';
  if (flush) out_.flush();
  if (!out_) throw Error("cannot write '" + file_.string() + "'");
  ++rows_;
  last_ = values;
}

void CsvWriter::flush() {
  out_.flush();
  if (!out_) throw Error("cannot write '" + file_.string() + "'");
}

}  // namespace poreflow::io
