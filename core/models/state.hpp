#pragma once
// A model's whole state for a checkpoint (core/io/checkpoint.hpp): named arrays kept in their own
// type, the device buffers as raw float or double bytes, so that a restart continues bit for bit,
// and named scalars (time, counters, the next step's size, cumulative totals). Everything the next
// steps read must be in it; tests/test_checkpoint.cpp checks that a restart ends bit-identical.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/kernels/field.hpp"

namespace poreflow {

enum class StateType : int { Float = 0, Double = 1, Int64 = 2, Text = 3 };
const char* to_string(StateType t);
std::size_t size_of(StateType t);

struct StateArray {
  StateType type = StateType::Double;
  std::vector<unsigned char> bytes;
  std::size_t count() const { return bytes.size() / size_of(type); }
};

class ModelState {
 public:
  // a device field, bit for bit in its own precision
  template <class T>
  void put(const std::string& name, const Field<T>& f) {
    StateArray& a = add(name, type_of<T>(), f.size() * sizeof(T));
    if (f.size() > 0) f.backend().download(f.buffer(), a.bytes.data(), a.bytes.size());
  }
  // into a field of the same type and size, else ConfigError naming the entry
  template <class T>
  void get(const std::string& name, Field<T>& f) const {
    const StateArray& a = find(name, type_of<T>(), f.size());
    if (f.size() > 0) f.backend().upload(f.buffer(), a.bytes.data(), a.bytes.size());
  }

  void put(const std::string& name, const std::vector<double>& v);
  void put(const std::string& name, const std::vector<long>& v);
  void set(const std::string& name, double v) { put(name, std::vector<double>{v}); }
  void set_int(const std::string& name, long v) { put(name, std::vector<long>{v}); }
  void set_text(const std::string& name, const std::string& text);

  // n: the count the reader expects (npos: any)
  std::vector<double> doubles(const std::string& name, std::size_t n = npos) const;
  std::vector<long> ints(const std::string& name, std::size_t n = npos) const;
  double scalar(const std::string& name) const { return doubles(name, 1)[0]; }
  long integer(const std::string& name) const { return ints(name, 1)[0]; }
  std::string text(const std::string& name) const;
  bool has(const std::string& name) const { return arrays_.count(name) != 0; }

  // for the file format: every entry by name
  const std::map<std::string, StateArray>& arrays() const { return arrays_; }
  void insert(const std::string& name, StateArray a) { arrays_[name] = std::move(a); }
  std::size_t bytes() const;

  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

 private:
  template <class T>
  static constexpr StateType type_of() {
    return sizeof(T) == 4 ? StateType::Float : StateType::Double;
  }
  StateArray& add(const std::string& name, StateType type, std::size_t bytes);
  const StateArray& find(const std::string& name, StateType type, std::size_t n) const;

  std::map<std::string, StateArray> arrays_;
};

// A model's state as named records, each bound once to the member that holds it (State::field,
// State::value, ...). save() writes every record into a ModelState and load() reads every one back,
// so saving and loading cannot drift apart; load() first compares the records it is given with its
// own and refuses, naming each difference (a record missing, one it does not know, another type or
// length), before it changes anything. The models' parts (steps, time control, wells) each bind
// their own records into the model's State.
class State {
 public:
  // a device field, bit for bit in its own precision; a checkpoint's field must have its size
  template <class T>
  void field(const std::string& name, Field<T>& f) {
    add(name, type_of<T>(), [&f] { return f.size(); }, [&f, name](ModelState& s) { s.put(name, f); },
        [&f, name](const ModelState& s) { s.get(name, f); });
  }
  // host scalars
  void value(const std::string& name, double& v);
  void value(const std::string& name, long& v);
  void value(const std::string& name, int& v);
  void value(const std::string& name, bool& v);
  void value(const std::string& name, std::size_t& v);
  // host arrays of any length (histories)
  void values(const std::string& name, std::vector<double>& v);
  void values(const std::string& name, std::vector<long>& v);
  // host arrays of a fixed length n (one value per well, ...)
  void values(const std::string& name, std::vector<double>& v, std::size_t n);
  // A record kept in some other form (a column of a host structure): get() gives its values to
  // save, set() takes them back on load; n: its length (npos: any).
  void doubles(const std::string& name, std::size_t n, std::function<std::vector<double>()> get,
               std::function<void(const std::vector<double>&)> set);
  void longs(const std::string& name, std::size_t n, std::function<std::vector<long>()> get,
             std::function<void(const std::vector<long>&)> set);
  // Runs on load after every record is in place: derives what is not stored (the wells' settings
  // from the schedule's position) and checks what must fit the case; returns an empty string, or
  // what does not fit.
  void after_load(std::function<std::string()> f) { after_load_.push_back(std::move(f)); }

  void save(ModelState& out) const;
  // ConfigError naming the differences, before anything is changed
  void load(const ModelState& in) const;
  // the records' names in the order they were bound
  std::vector<std::string> names() const;

 private:
  struct Record {
    std::string name;
    StateType type;
    std::function<std::size_t()> count;  // the length the record must have; npos: any
    std::function<void(ModelState&)> save;
    std::function<void(const ModelState&)> load;
  };
  template <class T>
  static constexpr StateType type_of() {
    return sizeof(T) == 4 ? StateType::Float : StateType::Double;
  }
  void add(const std::string& name, StateType type, std::function<std::size_t()> count, std::function<void(ModelState&)> save,
           std::function<void(const ModelState&)> load);

  std::vector<Record> records_;
  std::vector<std::function<std::string()>> after_load_;
};

}  // namespace poreflow
