#include "core/models/state.hpp"

#include <cstring>

#include "core/base/error.hpp"

namespace poreflow {

const char* to_string(StateType t) {
  switch (t) {
    case StateType::Float: return "float";
    case StateType::Double: return "double";
    case StateType::Int64: return "int64";
    case StateType::Text: return "text";
  }
  return "?";
}

std::size_t size_of(StateType t) {
  switch (t) {
    case StateType::Float: return 4;
    case StateType::Double:
    case StateType::Int64: return 8;
    case StateType::Text: return 1;
  }
  return 1;
}

StateArray& ModelState::add(const std::string& name, StateType type, std::size_t bytes) {
  if (name.empty() || name.find('/') != std::string::npos) throw Error("ModelState: bad entry name '" + name + "'");
  StateArray& a = arrays_[name];
  a.type = type;
  a.bytes.assign(bytes, 0);
  return a;
}

const StateArray& ModelState::find(const std::string& name, StateType type, std::size_t n) const {
  auto it = arrays_.find(name);
  // a checkpoint of this model from a poreflow whose state differs lacks or reshapes an entry
  if (it == arrays_.end()) throw ConfigError("the checkpoint has no state entry '" + name + "'");
  const StateArray& a = it->second;
  if (a.type != type)
    throw ConfigError("the checkpoint's state entry '" + name + "' holds " + to_string(a.type) + " values, this run needs " +
                      to_string(type));
  if (n != npos && a.count() != n)
    throw ConfigError("the checkpoint's state entry '" + name + "' has " + std::to_string(a.count()) + " values, this run needs " +
                      std::to_string(n));
  return a;
}

void ModelState::put(const std::string& name, const std::vector<double>& v) {
  StateArray& a = add(name, StateType::Double, v.size() * 8);
  if (!v.empty()) std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
}

void ModelState::put(const std::string& name, const std::vector<long>& v) {
  static_assert(sizeof(long) == 8, "Int64 entries are stored from long");
  StateArray& a = add(name, StateType::Int64, v.size() * 8);
  if (!v.empty()) std::memcpy(a.bytes.data(), v.data(), a.bytes.size());
}

void ModelState::set_text(const std::string& name, const std::string& text) {
  StateArray& a = add(name, StateType::Text, text.size());
  if (!text.empty()) std::memcpy(a.bytes.data(), text.data(), text.size());
}

std::vector<double> ModelState::doubles(const std::string& name, std::size_t n) const {
  const StateArray& a = find(name, StateType::Double, n);
  std::vector<double> v(a.count());
  if (!v.empty()) std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
  return v;
}

std::vector<long> ModelState::ints(const std::string& name, std::size_t n) const {
  const StateArray& a = find(name, StateType::Int64, n);
  std::vector<long> v(a.count());
  if (!v.empty()) std::memcpy(v.data(), a.bytes.data(), a.bytes.size());
  return v;
}

std::string ModelState::text(const std::string& name) const {
  const StateArray& a = find(name, StateType::Text, npos);
  return std::string(a.bytes.begin(), a.bytes.end());
}

std::size_t ModelState::bytes() const {
  std::size_t n = 0;
  for (const auto& [k, a] : arrays_) n += a.bytes.size();
  return n;
}

}  // namespace poreflow
