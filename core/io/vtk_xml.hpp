#pragma once
// Internal helpers shared by the VTK XML writers (vtk.cpp: ImageData and .pvd; vtu.cpp:
// UnstructuredGrid). Not part of the io interface.
#include <bit>
#include <cerrno>
#include <charconv>
#include <filesystem>
#include <fstream>
#include <string>
#include <system_error>

#include "core/base/error.hpp"

namespace poreflow::io::detail {

// Shortest text that parses back to the same double (attributes and the time value).
inline std::string num(double v) {
  char buf[32];
  auto r = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, r.ptr);
}

inline std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

inline std::ofstream open_for_write(const std::filesystem::path& p) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  if (!out) throw Error("cannot open '" + p.string() + "' for writing: " + std::generic_category().message(errno));
  return out;
}

inline void close_checked(std::ofstream& out, const std::filesystem::path& p) {
  out.close();
  if (!out) throw Error("cannot write '" + p.string() + "'");
}

inline const char* byte_order() { return std::endian::native == std::endian::little ? "LittleEndian" : "BigEndian"; }

}  // namespace poreflow::io::detail
