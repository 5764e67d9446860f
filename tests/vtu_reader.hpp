#pragma once
// An independent reader of the .vtu files core/io/vtu.cpp writes (appended raw data, UInt64
// block headers), for the tests: tests/test_vtu.cpp and the decomposed runs' pieces
// (tests/mpi/test_mpi_impes3d.cpp).
#include <doctest/doctest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace poreflow::test {

inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// The value of name="..." inside an XML tag.
inline std::string attr(const std::string& tag, const std::string& name) {
  auto p = tag.find(" " + name + "=\"");
  if (p == std::string::npos) return {};
  p += name.size() + 3;
  return tag.substr(p, tag.find('"', p) - p);
}

inline std::string unescape(std::string s) {
  const std::pair<std::string, std::string> entities[] = {
      {"&lt;", "<"}, {"&gt;", ">"}, {"&quot;", "\""}, {"&apos;", "'"}, {"&amp;", "&"}};
  for (const auto& [from, to] : entities)
    for (auto p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

// Every tag <name ...> or <name> in xml, as text.
inline std::vector<std::string> tags(const std::string& xml, const std::string& name) {
  std::vector<std::string> out;
  for (auto p = xml.find("<" + name); p != std::string::npos; p = xml.find("<" + name, p + 1)) {
    char next = xml[p + name.size() + 1];
    if (next == ' ' || next == '>' || next == '/') out.push_back(xml.substr(p, xml.find('>', p) - p + 1));
  }
  return out;
}

// The elements' nesting, checked as an XML parser would: every opened element is closed in order.
// Returns the path of each element, e.g. "VTKFile/UnstructuredGrid/Piece/Points/DataArray".
inline std::vector<std::string> element_paths(const std::string& xml) {
  std::vector<std::string> open, paths;
  for (auto p = xml.find('<'); p != std::string::npos; p = xml.find('<', p + 1)) {
    auto e = xml.find('>', p);
    REQUIRE(e != std::string::npos);
    std::string tag = xml.substr(p + 1, e - p - 1);
    if (tag.starts_with("?")) continue;
    if (tag.starts_with("/")) {
      REQUIRE_MESSAGE(!open.empty(), "unbalanced </" << tag << ">");
      CHECK(tag.substr(1) == open.back());
      open.pop_back();
      continue;
    }
    std::string name = tag.substr(0, tag.find_first_of(" /"));
    std::string path;
    for (const auto& o : open) path += o + "/";
    paths.push_back(path + name);
    if (!tag.ends_with("/")) open.push_back(name);
  }
  // the appended block is still open here: the reader stops at '_'
  CHECK(open == std::vector<std::string>{"VTKFile", "AppendedData"});
  return paths;
}

struct Array {
  std::string type;
  int components = 1;
  std::string bytes;
  template <class T>
  std::vector<T> as() const {
    REQUIRE(bytes.size() % sizeof(T) == 0);
    std::vector<T> v(bytes.size() / sizeof(T));
    if (!v.empty()) std::memcpy(v.data(), bytes.data(), bytes.size());  // an empty piece: no pointer to copy to
    return v;
  }
};

// A .vtu with appended raw data and UInt64 block headers, read the way VTK does: the offset of
// each array counts from the byte after '_', where a byte count precedes the values. Arrays are
// keyed by their section and name, e.g. "CellData/pressure", "Points/Points", "Cells/offsets".
struct Vtu {
  std::string xml;  // everything before the binary block
  std::map<std::string, Array> arrays;
};

inline Vtu read_vtu(const std::filesystem::path& p) {
  std::string s = slurp(p);
  Vtu v;
  auto app = s.find("<AppendedData encoding=\"raw\">");
  REQUIRE(app != std::string::npos);
  std::size_t base = s.find('_', app) + 1, end = base;
  v.xml = s.substr(0, base);
  element_paths(v.xml);
  const std::map<std::string, std::size_t> sizes = {{"Float64", 8}, {"Int64", 8}, {"UInt8", 1}};
  for (const char* section : {"CellData", "Points", "Cells"}) {
    auto from = v.xml.find(std::string("<") + section + ">"), to = v.xml.find(std::string("</") + section + ">");
    REQUIRE(from != std::string::npos);
    REQUIRE(to != std::string::npos);
    for (const auto& tag : tags(v.xml.substr(from, to - from), "DataArray")) {
      CHECK(attr(tag, "format") == "appended");
      Array a;
      a.type = attr(tag, "type");
      REQUIRE(sizes.count(a.type) == 1);
      if (!attr(tag, "NumberOfComponents").empty()) a.components = std::stoi(attr(tag, "NumberOfComponents"));
      std::size_t at = base + std::stoull(attr(tag, "offset"));
      CHECK(at == end);  // the blocks follow each other without gaps
      std::uint64_t bytes = 0;
      REQUIRE(at + sizeof bytes <= s.size());
      std::memcpy(&bytes, s.data() + at, sizeof bytes);
      REQUIRE(bytes % sizes.at(a.type) == 0);
      REQUIRE(at + sizeof bytes + bytes <= s.size());
      a.bytes = s.substr(at + sizeof bytes, bytes);
      v.arrays[std::string(section) + "/" + unescape(attr(tag, "Name"))] = a;
      end = at + sizeof bytes + bytes;
    }
  }
  CHECK(s.substr(end) == "\n  </AppendedData>\n</VTKFile>\n");  // nothing lost or extra
  return v;
}

}  // namespace poreflow::test
