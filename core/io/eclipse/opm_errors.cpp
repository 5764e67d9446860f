#include "core/io/eclipse/opm_errors.hpp"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>

namespace poreflow::eclipse {

namespace {

// one line of printable ASCII, at most `limit` characters: opm-common quotes the deck's text
std::string printable(const std::string& s, std::size_t limit = 240) {
  std::string out;
  for (char c : s) {
    if (out.size() >= limit) return out + "...";
    if (c == '\n' || c == '\r' || c == '\t') {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += (c >= 0x20 && c < 0x7f) ? c : '?';
    }
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

// opm-common reports an unknown keyword without its place ("<memory string> line 0"); find the
// first line of the deck file that starts with it
std::string with_place(const std::string& what, const std::string& path) {
  const std::string tag = "Unknown keyword: ";
  const auto at = what.find(tag);
  if (at == std::string::npos || what.find("<memory string> line 0") == std::string::npos) return what;
  std::string kw = what.substr(at + tag.size());
  kw = kw.substr(0, kw.find_first_of(" \n\r\t"));
  std::ifstream in(path);
  std::string line;
  for (long n = 1; std::getline(in, line); ++n) {
    std::istringstream ls(line);
    std::string first;
    ls >> first;
    if (first.size() > 8) first.resize(8);  // keywords are at most 8 characters
    for (char& c : first) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (first == kw) return "unknown keyword " + kw + " at " + path + " line " + std::to_string(n) + " (text where a keyword belongs)";
  }
  return what;
}

}  // namespace

std::string explain_opm_error(const std::exception& e, const std::string& path) {
  // opm-common words a problem with the deck's own text as the format string of its message: text
  // with braces breaks it (check_deck_text refuses braces before opm-common reads; this is for what
  // it cannot see)
  if (dynamic_cast<const fmt::format_error*>(&e))
    return "opm-common failed to word its message about a problem in the deck (fmt: " + printable(e.what()) +
           "): the deck or a file it includes holds text opm-common could not read, with '{' or '}'";
  const std::string what = e.what();
  static const std::regex problem(R"(^Problem with keyword (\S+)\s*\nIn (.*) line (\d+)\.?\s*\n([\s\S]*)$)");
  static const std::regex count(R"(^Fundamental error with keyword: (\S+) at: (.*), line: (\d+) got (\d+) elements - expected : (\d+)\s*$)");
  std::smatch m;
  if (std::regex_match(what, m, problem))
    return m[1].str() + " (" + m[2].str() + ":" + m[3].str() + "): " + printable(m[4].str());
  if (std::regex_match(what, m, count))
    return m[1].str() + " (" + m[2].str() + ":" + m[3].str() + "): " + m[4].str() + " values where the grid (or the BOX) has " +
           m[5].str() + " cells";
  return printable(with_place(what, path));
}

}  // namespace poreflow::eclipse
