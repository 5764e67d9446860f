#pragma once
// Name tables of enums: one table per enum gives to_string and parse with one error message.
#include <array>
#include <string>
#include <string_view>
#include <utility>

#include "core/base/error.hpp"

namespace poreflow {

template <class E, std::size_t N>
using EnumNames = std::array<std::pair<const char*, E>, N>;

// The value named s, else ConfigError "unknown <what> 's' (expected one of: ...)".
template <class E, std::size_t N>
E parse_enum(std::string_view s, const EnumNames<E, N>& table, const char* what) {
  for (const auto& [name, value] : table)
    if (s == name) return value;
  std::string names;
  for (const auto& [name, value] : table) names += std::string(names.empty() ? "" : ", ") + name;
  throw ConfigError("unknown " + std::string(what) + " '" + std::string(s) + "' (expected one of: " + names + ")");
}

template <class E, std::size_t N>
const char* enum_name(E e, const EnumNames<E, N>& table) {
  for (const auto& [name, value] : table)
    if (value == e) return name;
  return "?";
}

}  // namespace poreflow
