#include "core/io/case_file.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <sstream>
#include <vector>

#include "core/base/error.hpp"
#include "core/io/eclipse/deck_path.hpp"

namespace poreflow::io {

struct CaseFile::Impl {
  toml::table table;
};

namespace {

std::string fmt_num(double v) {
  std::ostringstream s;
  s << v;
  return s.str();
}

bool subnormal(double v) { return v != 0 && std::isfinite(v) && std::fabs(v) < std::numeric_limits<double>::min(); }

std::vector<std::string> split_key(std::string_view key) {
  std::vector<std::string> parts;
  std::string cur;
  for (char c : key) {
    if (c == '.') {
      parts.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  parts.push_back(cur);
  return parts;
}

const toml::node* find(const toml::table& t, std::string_view key) {
  return t.at_path(key).node();
}

// every leaf key ("a.b.c") of a table with its value
using Leaf = std::pair<std::string, const toml::node*>;
void leaves(const toml::table& t, const std::string& prefix, std::vector<Leaf>& out) {
  for (const auto& [k, v] : t) {
    std::string name = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    if (const auto* sub = v.as_table()) {
      leaves(*sub, name, out);
    } else if (const auto* arr = v.as_array(); arr && !arr->empty() && arr->is_array_of_tables()) {
      for (std::size_t i = 0; i < arr->size(); ++i) leaves(*arr->get(i)->as_table(), name + "[" + std::to_string(i) + "]", out);
    } else {
      out.emplace_back(name, &v);
    }
  }
}

// a value in TOML on one line (toml++ breaks long arrays over several)
void one_line(std::ostream& o, const toml::node& v) {
  if (const auto* arr = v.as_array()) {
    o << '[';
    for (std::size_t i = 0; i < arr->size(); ++i) {
      if (i) o << ", ";
      one_line(o, *arr->get(i));
    }
    o << ']';
  } else if (const auto* t = v.as_table()) {
    o << '{';
    bool first = true;
    for (const auto& [k, x] : *t) {
      o << (first ? "" : ", ") << k.str() << " = ";
      one_line(o, x);
      first = false;
    }
    o << '}';
  } else {
    v.visit([&](const auto& x) { o << x; });
  }
}

}  // namespace

CaseFile::CaseFile(std::unique_ptr<Impl> impl, std::string source) : impl_(std::move(impl)), source_(std::move(source)) {}
CaseFile::CaseFile(CaseFile&&) noexcept = default;
CaseFile& CaseFile::operator=(CaseFile&&) noexcept = default;
CaseFile::~CaseFile() = default;

namespace {
std::string toml_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '\\' || c == '"') o += '\\';
    o += c;
  }
  return o + "\"";
}
}  // namespace

CaseFile CaseFile::load(const std::filesystem::path& path) {
  // an Eclipse deck is an impes3d case whose input is the deck; --set reaches the numerics and
  // output keys as in a TOML case
  if (eclipse::is_deck_path(path.string())) {
    if (!std::filesystem::is_regular_file(path)) throw ConfigError("deck '" + path.string() + "' does not exist");
    const std::string text = "model = \"impes3d\"\n[input]\ndeck = " + toml_string(std::filesystem::absolute(path).string()) +
                             "\n[output]\ndir = " + toml_string("out/" + path.stem().string()) + "\n";
    return parse(text, path.string());
  }
  std::ifstream in(path);
  if (!in) throw ConfigError("case file '" + path.string() + "' does not exist or cannot be read");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse(ss.str(), path.string());
}

CaseFile CaseFile::parse(std::string_view text, std::string source) {
  try {
    auto impl = std::make_unique<Impl>();
    impl->table = toml::parse(text, source);
    return CaseFile(std::move(impl), std::move(source));
  } catch (const toml::parse_error& e) {
    const auto& b = e.source().begin;
    throw ConfigError("case file '" + source + "' line " + std::to_string(b.line) + ", column " +
                      std::to_string(b.column) + ": " + std::string(e.description()));
  }
}

void CaseFile::set(std::string_view assignment) {
  auto eq = assignment.find('=');
  if (eq == std::string_view::npos || eq == 0)
    throw ConfigError("--set '" + std::string(assignment) + "': expected key=value, e.g. --set grid.points=400");
  std::string key(assignment.substr(0, eq));
  std::string value(assignment.substr(eq + 1));
  while (!key.empty() && key.back() == ' ') key.pop_back();
  // parse the value as TOML; a bare word that is not TOML is taken as a string
  toml::table parsed;
  try {
    parsed = toml::parse("v = " + value);
  } catch (const toml::parse_error&) {
    parsed = toml::table{{"v", value}};
  }
  auto parts = split_key(key);
  toml::table* t = &impl_->table;
  for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
    if (parts[i].empty()) throw ConfigError("--set '" + std::string(assignment) + "': empty key part");
    // "wells[1]": an entry of an array of tables, which must exist
    if (const auto open = parts[i].find('['); open != std::string::npos && parts[i].back() == ']') {
      const std::string name = parts[i].substr(0, open), index = parts[i].substr(open + 1, parts[i].size() - open - 2);
      auto* arr = t->get(name) ? t->get(name)->as_array() : nullptr;
      // an index too long for a number is no table either (std::stoul would throw out_of_range)
      std::size_t k = 0;
      const auto [end, ec] = std::from_chars(index.data(), index.data() + index.size(), k);
      const bool number = !index.empty() && ec == std::errc() && end == index.data() + index.size();
      if (!arr || !number || k >= arr->size() || !arr->get(k)->as_table())
        throw ConfigError("--set '" + std::string(assignment) + "': there is no table " + parts[i]);
      t = arr->get(k)->as_table();
      continue;
    }
    auto* node = t->get(parts[i]);
    if (!node) {
      t->insert(parts[i], toml::table{});
      node = t->get(parts[i]);
    }
    t = node->as_table();
    if (!t) throw ConfigError("--set '" + std::string(assignment) + "': '" + parts[i] + "' is not a table");
  }
  t->insert_or_assign(parts.back(), *parsed.get("v"));
}

bool CaseFile::has(std::string_view key) const { return find(impl_->table, key) != nullptr; }

void CaseFile::fail(std::string_view key, const std::string& why) const {
  throw ConfigError("case '" + source_ + "': " + std::string(key) + " " + why);
}

double CaseFile::get_double(std::string_view key, double def) {
  used_.insert(std::string(key));
  const auto* n = find(impl_->table, key);
  if (!n) return def;
  if (auto v = n->value<double>()) {  // integers convert too
    check_normal(key, *v);
    return *v;
  }
  fail(key, "must be a number");
}

void CaseFile::check_normal(std::string_view key, double v) const {
  if (subnormal(v))
    fail(key, "= " + fmt_num(v) + " is below the smallest normal number (" + fmt_num(std::numeric_limits<double>::min()) +
                  " in magnitude): such a value has lost its precision (use 0 or a value of at least that size)");
}

long CaseFile::get_int(std::string_view key, long def) {
  used_.insert(std::string(key));
  const auto* n = find(impl_->table, key);
  if (!n) return def;
  if (auto v = n->as_integer()) return static_cast<long>(v->get());
  if (auto d = n->as_floating_point()) {
    double x = d->get();
    if (x == std::floor(x) && std::fabs(x) < 9e18) return static_cast<long>(x);
  }
  fail(key, "must be an integer");
}

bool CaseFile::get_bool(std::string_view key, bool def) {
  used_.insert(std::string(key));
  const auto* n = find(impl_->table, key);
  if (!n) return def;
  if (auto v = n->as_boolean()) return v->get();
  fail(key, "must be true or false");
}

std::string CaseFile::get_string(std::string_view key, std::string def) {
  used_.insert(std::string(key));
  const auto* n = find(impl_->table, key);
  if (!n) return def;
  if (auto v = n->as_string()) return v->get();
  fail(key, "must be a string");
}

std::vector<double> CaseFile::get_numbers(std::string_view key) {
  used_.insert(std::string(key));
  const auto* n = find(impl_->table, key);
  if (!n) return {};
  if (auto v = n->value<double>()) {
    check_normal(key, *v);
    return {*v};
  }
  const auto* arr = n->as_array();
  if (!arr) fail(key, "must be a number or an array of numbers");
  std::vector<double> out;
  for (const auto& e : *arr) {
    auto v = e.value<double>();
    if (!v) fail(key, "must be an array of numbers");
    check_normal(key, *v);
    out.push_back(*v);
  }
  return out;
}

std::vector<std::vector<double>> CaseFile::get_rows(std::string_view key) {
  used_.insert(std::string(key));
  const auto* n = find(impl_->table, key);
  if (!n) return {};
  const auto* arr = n->as_array();
  if (!arr) fail(key, "must be an array of rows, e.g. [[0.2, 0.0, 1.0, 0.0], [0.8, 0.6, 0.0, 0.0]]");
  std::vector<std::vector<double>> rows;
  for (const auto& r : *arr) {
    const auto* row = r.as_array();
    if (!row) fail(key, "must be an array of rows (arrays of numbers)");
    std::vector<double> v;
    for (const auto& e : *row) {
      auto x = e.value<double>();
      if (!x) fail(key, "row " + std::to_string(rows.size() + 1) + " holds something that is not a number");
      check_normal(key, *x);
      v.push_back(*x);
    }
    rows.push_back(std::move(v));
  }
  return rows;
}

std::size_t CaseFile::count(std::string_view key) {
  used_.insert(std::string(key));  // an empty array is a leaf
  const auto* n = find(impl_->table, key);
  if (!n) return 0;
  const auto* arr = n->as_array();
  if (!arr || (!arr->empty() && !arr->is_array_of_tables())) fail(key, "must be an array of tables ([[" + std::string(key) + "]])");
  return arr->size();
}

double CaseFile::positive(std::string_view key, double def) {
  double v = get_double(key, def);
  if (!(v > 0) || !std::isfinite(v)) fail(key, "= " + fmt_num(v) + " must be a finite number > 0");
  return v;
}

double CaseFile::non_negative(std::string_view key, double def) {
  double v = get_double(key, def);
  if (!(v >= 0) || !std::isfinite(v)) fail(key, "= " + fmt_num(v) + " must be a finite number >= 0");
  return v;
}

double CaseFile::in_range(std::string_view key, double def, double lo, double hi, bool lo_open, bool hi_open) {
  double v = get_double(key, def);
  bool ok = std::isfinite(v) && (lo_open ? v > lo : v >= lo) && (hi_open ? v < hi : v <= hi);
  if (!ok)
    fail(key, "= " + fmt_num(v) + " must be in " + (lo_open ? "(" : "[") + fmt_num(lo) + ", " + fmt_num(hi) +
                  (hi_open ? ")" : "]"));
  return v;
}

long CaseFile::int_at_least(std::string_view key, long def, long lo) {
  long v = get_int(key, def);
  if (v < lo) fail(key, "= " + std::to_string(v) + " must be an integer >= " + std::to_string(lo));
  return v;
}

long CaseFile::int_in_range(std::string_view key, long def, long lo, long hi, const std::string& limit) {
  long v = get_int(key, def);
  if (v < lo || v > hi)
    fail(key, "= " + std::to_string(v) + " must be an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]" +
                  (limit.empty() ? "" : " (" + limit + ")"));
  return v;
}

std::string CaseFile::canonical_text() const {
  std::vector<Leaf> all;
  leaves(impl_->table, "", all);
  std::sort(all.begin(), all.end(), [](const Leaf& a, const Leaf& b) { return a.first < b.first; });
  std::ostringstream o;
  for (const auto& [k, v] : all) {
    o << k << " = ";
    one_line(o, *v);
    o << '\n';
  }
  return o.str();
}

std::vector<std::string> CaseFile::keys() const {
  std::vector<Leaf> all;
  leaves(impl_->table, "", all);
  std::vector<std::string> out;
  for (const auto& [k, v] : all) out.push_back(k);
  std::sort(out.begin(), out.end());
  return out;
}

void CaseFile::check_all_used() const {
  std::vector<Leaf> all;
  leaves(impl_->table, "", all);
  std::string unknown;
  for (const auto& [k, v] : all)
    if (!used_.count(k)) unknown += (unknown.empty() ? "'" : ", '") + k + "'";
  if (!unknown.empty()) throw ConfigError("case '" + source_ + "': unknown key " + unknown);
}

}  // namespace poreflow::io
