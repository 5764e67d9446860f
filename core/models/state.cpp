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

namespace poreflow {

void State::add(const std::string& name, StateType type, std::function<std::size_t()> count, std::function<void(ModelState&)> save,
                std::function<void(const ModelState&)> load) {
  for (const Record& r : records_)
    if (r.name == name) throw Error("State: the record '" + name + "' is bound twice");
  records_.push_back({name, type, std::move(count), std::move(save), std::move(load)});
}

namespace {
constexpr std::size_t kAny = ModelState::npos;
std::size_t one() { return 1; }
}  // namespace

void State::value(const std::string& name, double& v) {
  add(name, StateType::Double, one, [&v, name](ModelState& s) { s.set(name, v); },
      [&v, name](const ModelState& s) { v = s.scalar(name); });
}
void State::value(const std::string& name, long& v) {
  add(name, StateType::Int64, one, [&v, name](ModelState& s) { s.set_int(name, v); },
      [&v, name](const ModelState& s) { v = s.integer(name); });
}
void State::value(const std::string& name, int& v) {
  add(name, StateType::Int64, one, [&v, name](ModelState& s) { s.set_int(name, v); },
      [&v, name](const ModelState& s) { v = static_cast<int>(s.integer(name)); });
}
void State::value(const std::string& name, bool& v) {
  add(name, StateType::Int64, one, [&v, name](ModelState& s) { s.set_int(name, v ? 1 : 0); },
      [&v, name](const ModelState& s) { v = s.integer(name) != 0; });
}
void State::value(const std::string& name, std::size_t& v) {
  add(name, StateType::Int64, one, [&v, name](ModelState& s) { s.set_int(name, static_cast<long>(v)); },
      [&v, name](const ModelState& s) {
        const long x = s.integer(name);
        if (x < 0) throw ConfigError("the checkpoint's '" + name + "' is negative");
        v = static_cast<std::size_t>(x);
      });
}
void State::values(const std::string& name, std::vector<double>& v) {
  add(name, StateType::Double, [] { return kAny; }, [&v, name](ModelState& s) { s.put(name, v); },
      [&v, name](const ModelState& s) { v = s.doubles(name); });
}
void State::values(const std::string& name, std::vector<long>& v) {
  add(name, StateType::Int64, [] { return kAny; }, [&v, name](ModelState& s) { s.put(name, v); },
      [&v, name](const ModelState& s) { v = s.ints(name); });
}
void State::values(const std::string& name, std::vector<double>& v, std::size_t n) {
  add(name, StateType::Double, [n] { return n; }, [&v, name](ModelState& s) { s.put(name, v); },
      [&v, name, n](const ModelState& s) { v = s.doubles(name, n); });
}
void State::doubles(const std::string& name, std::size_t n, std::function<std::vector<double>()> get,
                    std::function<void(const std::vector<double>&)> set) {
  add(name, StateType::Double, [n] { return n; }, [get, name](ModelState& s) { s.put(name, get()); },
      [set, name, n](const ModelState& s) { set(s.doubles(name, n)); });
}

void State::longs(const std::string& name, std::size_t n, std::function<std::vector<long>()> get,
                  std::function<void(const std::vector<long>&)> set) {
  add(name, StateType::Int64, [n] { return n; }, [get, name](ModelState& s) { s.put(name, get()); },
      [set, name, n](const ModelState& s) { set(s.ints(name, n)); });
}

void State::save(ModelState& out) const {
  for (const Record& r : records_) r.save(out);
}

void State::load(const ModelState& in) const {
  std::vector<std::string> diffs;
  for (const Record& r : records_) {
    auto it = in.arrays().find(r.name);
    if (it == in.arrays().end()) {
      diffs.push_back("'" + r.name + "' is missing");
      continue;
    }
    const StateArray& a = it->second;
    if (a.type != r.type) {
      diffs.push_back("'" + r.name + "' holds " + std::string(to_string(a.type)) + " values, this run keeps " + to_string(r.type));
      continue;
    }
    const std::size_t n = r.count();
    if (n != kAny && a.count() != n)
      diffs.push_back("'" + r.name + "' has " + std::to_string(a.count()) + " values, this run has " + std::to_string(n));
  }
  for (const auto& [name, a] : in.arrays()) {
    bool known = false;
    for (const Record& r : records_) known = known || r.name == name;
    if (!known) diffs.push_back("'" + name + "' is not a record of this model");
  }
  if (!diffs.empty()) {
    std::string msg = "the checkpoint's state does not fit this run: ";
    const std::size_t shown = std::min<std::size_t>(diffs.size(), 4);
    for (std::size_t i = 0; i < shown; ++i) msg += (i ? "; " : "") + diffs[i];
    if (diffs.size() > shown) msg += "; and " + std::to_string(diffs.size() - shown) + " more";
    throw ConfigError(msg);
  }
  for (const Record& r : records_) r.load(in);
  for (const auto& c : after_load_)
    if (const std::string why = c(); !why.empty()) throw ConfigError("the checkpoint does not fit this case: " + why);
}

std::vector<std::string> State::names() const {
  std::vector<std::string> n;
  for (const Record& r : records_) n.push_back(r.name);
  return n;
}

}  // namespace poreflow
