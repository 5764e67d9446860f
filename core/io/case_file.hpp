#pragma once
// A case file (TOML) read strictly: every key a model reads is validated, and any key left
// unread is an error naming it, so a typo never silently falls back to a default.
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace poreflow::io {

class CaseFile {
 public:
  static CaseFile load(const std::filesystem::path& path);            // ConfigError: missing file, bad TOML
  static CaseFile parse(std::string_view text, std::string source);  // for tests and built-in cases
  CaseFile(CaseFile&&) noexcept;
  CaseFile& operator=(CaseFile&&) noexcept;
  ~CaseFile();

  // --set key=value: the value is read as TOML (number, bool, string, array), else as a string.
  void set(std::string_view assignment);

  const std::string& source() const { return source_; }
  bool has(std::string_view key) const;

  // Typed reads with defaults; a value of the wrong type is a ConfigError naming the key. A
  // number of magnitude below the smallest normal double (a subnormal, e.g. 1e-320) is refused
  // wherever it is read: it has lost its precision, and dividing by it overflows.
  double get_double(std::string_view key, double def);
  long get_int(std::string_view key, long def);
  bool get_bool(std::string_view key, bool def);
  std::string get_string(std::string_view key, std::string def);

  // Validated reads. lo/hi bounds: open means strict.
  double positive(std::string_view key, double def);      // > 0
  double non_negative(std::string_view key, double def);  // >= 0
  double in_range(std::string_view key, double def, double lo, double hi, bool lo_open, bool hi_open);
  long int_at_least(std::string_view key, long def, long lo);
  // an integer in [lo, hi]; `limit` says what the upper bound protects ("2^48 values an array")
  long int_in_range(std::string_view key, long def, long lo, long hi, const std::string& limit = "");

  // Arrays. get_numbers: an array of numbers, or one number as one value; empty when absent.
  // get_rows: an array of arrays of numbers (a table's rows). count: the entries of an array of
  // tables ([[wells]]), whose keys are then read as "wells[0].name"; 0 when absent.
  std::vector<double> get_numbers(std::string_view key);
  std::vector<std::vector<double>> get_rows(std::string_view key);
  std::size_t count(std::string_view key);

  // A string key turned into a value by `parse` (e.g. parse_tridiag_algo); its ConfigError is
  // reported with the key's name.
  template <class F>
  auto get_choice(std::string_view key, std::string def, F&& parse) {
    auto v = get_string(key, std::move(def));
    try {
      return parse(v);
    } catch (const std::exception& e) {
      fail(key, "= '" + v + "': " + e.what());
    }
  }

  // The whole case as it stands after the --set overrides: one "key = value" line per key, sorted,
  // values in TOML. Two cases that read the same give the same text (checkpoints compare it).
  std::string canonical_text() const;

  // Every key present ("a.b", "wells[0].name"), sorted.
  std::vector<std::string> keys() const;

  // Throws ConfigError naming every key present in the file that no reader asked for.
  void check_all_used() const;

  [[noreturn]] void fail(std::string_view key, const std::string& why) const;

 private:
  void check_normal(std::string_view key, double v) const;  // refuses a subnormal
  struct Impl;  // holds the toml::table (keeps toml++ out of this header)
  explicit CaseFile(std::unique_ptr<Impl> impl, std::string source);
  std::unique_ptr<Impl> impl_;
  std::string source_;
  std::set<std::string> used_;
};

}  // namespace poreflow::io
