#include "core/io/csv.hpp"

#include <cerrno>
#include <charconv>
#include <system_error>

#include "core/error.hpp"

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

}  // namespace

CsvWriter::CsvWriter(const std::filesystem::path& file, std::vector<std::string> columns)
    : file_(file), columns_(std::move(columns)) {
  if (columns_.empty()) throw Error("CsvWriter '" + file_.string() + "': no columns");
  out_.open(file_, std::ios::binary | std::ios::trunc);
  if (!out_) throw Error("cannot open '" + file_.string() + "' for writing: " + std::generic_category().message(errno));
  std::string header;
  for (std::size_t i = 0; i < columns_.size(); ++i) {
    if (i) header += ',';
    header += csv_field(columns_[i]);
  }
  out_ << header << '\n' << std::flush;
  if (!out_) throw Error("cannot write '" + file_.string() + "'");
}

void CsvWriter::row(const std::vector<double>& values) {
  if (values.size() != columns_.size())
    throw Error("CsvWriter '" + file_.string() + "': row has " + std::to_string(values.size()) + " values for " +
                std::to_string(columns_.size()) + " columns");
  std::string line;
  char buf[32];
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) line += ',';
    // std::to_chars without a format is the shortest round-trip representation.
    auto r = std::to_chars(buf, buf + sizeof buf, values[i]);
    line.append(buf, r.ptr);
  }
  out_ << line << '\n' << std::flush;
  if (!out_) throw Error("cannot write '" + file_.string() + "'");
}

}  // namespace poreflow::io
