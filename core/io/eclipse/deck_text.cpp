#include "core/io/eclipse/deck_text.hpp"

#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "core/base/error.hpp"

namespace poreflow::eclipse {

namespace {

namespace fs = std::filesystem;

struct Scan {
  std::string deck;  // the deck as it was named
  fs::path root;     // its folder: INCLUDE paths are relative to it
  std::set<fs::path> seen;
};

[[noreturn]] void refuse(const Scan& s, const fs::path& file, long line, std::size_t column, const std::string& what) {
  const std::string where = file.string() == s.deck ? "deck '" + s.deck + "' line "
                                                    : "deck '" + s.deck + "': its INCLUDE file '" + file.string() + "' line ";
  throw ConfigError(where + std::to_string(line) + ", column " + std::to_string(column) + ": " + what);
}

std::string hex(unsigned char c) {
  char b[8];
  std::snprintf(b, sizeof b, "0x%02X", c);
  return b;
}

bool control(unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f') || c == 0x7f; }

// the first word of `code`, upper case, at most 8 characters (a keyword's length), and where it ends
std::string first_word(const std::string& code, std::size_t& end) {
  std::size_t a = 0;
  while (a < code.size() && std::isspace(static_cast<unsigned char>(code[a]))) ++a;
  end = a;
  while (end < code.size() && !std::isspace(static_cast<unsigned char>(code[end]))) ++end;
  std::string w = code.substr(a, std::min<std::size_t>(end - a, 8));
  for (char& c : w) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return w;
}

// a file name at the start of `code` (quoted, or up to a blank); empty when there is none
std::string path_word(const std::string& code, std::size_t from) {
  while (from < code.size() && std::isspace(static_cast<unsigned char>(code[from]))) ++from;
  if (from >= code.size()) return {};
  const char q = code[from];
  if (q == '\'' || q == '"') {
    const auto close = code.find(q, from + 1);
    return close == std::string::npos ? std::string() : code.substr(from + 1, close - from - 1);
  }
  std::size_t end = from;
  while (end < code.size() && !std::isspace(static_cast<unsigned char>(code[end]))) ++end;
  return code.substr(from, end - from);
}

void scan(Scan& s, const fs::path& file, int depth);

void include(Scan& s, const std::string& name, int depth) {
  if (name.empty() || name.find('$') != std::string::npos) return;  // a PATHS alias: opm-common resolves it
  fs::path p(name);
  if (p.is_relative()) p = s.root / p;
  scan(s, p, depth + 1);
}

void scan(Scan& s, const fs::path& file, int depth) {
  std::error_code ec;
  const fs::path key = fs::weakly_canonical(file, ec);
  if (depth > 32 || !s.seen.insert(ec ? file : key).second) return;
  std::ifstream in(file, std::ios::binary);
  if (!in) return;  // opm-common reports a missing INCLUDE with its place
  std::string line;
  bool title_next = false, include_next = false;
  for (long n = 1; std::getline(in, line); ++n) {
    for (std::size_t i = 0; i < line.size(); ++i)
      if (control(static_cast<unsigned char>(line[i])))
        refuse(s, file, n, i + 1, "byte " + hex(static_cast<unsigned char>(line[i])) +
                                      " is not text: a deck is a text file of keywords, numbers and quoted strings");
    if (title_next) {  // TITLE's line is free text
      title_next = false;
      continue;
    }
    // what opm-common reads: up to a "--" comment or the slash that ends a record, outside quotes
    char quote = 0;
    std::size_t end = line.size();
    bool slash = false;
    for (std::size_t i = 0; i < line.size() && end == line.size(); ++i) {
      const char c = line[i];
      if (quote) {
        if (c == quote) quote = 0;
      } else if (c == '\'' || c == '"') {
        quote = c;
      } else if (c == '/' || (c == '-' && i + 1 < line.size() && line[i + 1] == '-')) {
        end = i;
        slash = c == '/';
      } else if (c == '{' || c == '}') {
        refuse(s, file, n, i + 1, std::string("'") + c + "' is not deck syntax (outside quotes only a '--' comment may hold it)");
      } else if (static_cast<unsigned char>(c) >= 0x80) {
        refuse(s, file, n, i + 1, "byte " + hex(static_cast<unsigned char>(c)) +
                                      " is not ASCII, where a keyword or value belongs (outside quotes only a '--' comment may hold it)");
      }
    }
    const std::string code = line.substr(0, end);
    std::size_t after = 0;
    const std::string word = first_word(code, after);
    if (include_next) {  // INCLUDE's file name on a line of its own
      const std::string name = path_word(code, 0);
      include_next = name.empty() && !slash;
      include(s, name, depth);
    } else if (word == "INCLUDE") {
      const std::string name = path_word(code, after);
      include_next = name.empty() && !slash;
      include(s, name, depth);
    } else if (word == "TITLE") {
      title_next = true;
    }
  }
}

}  // namespace

void check_deck_text(const std::string& path) {
  Scan s;
  s.deck = path;
  s.root = fs::path(path).parent_path();
  scan(s, path, 0);
}

}  // namespace poreflow::eclipse
