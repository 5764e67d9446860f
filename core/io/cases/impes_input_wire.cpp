#include "core/io/cases/impes_input_wire.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>

#include "core/base/error.hpp"

namespace poreflow::io {

namespace {

// Values in native byte order (the processes of one run share a machine type); a vector or a
// string as its 64-bit size, then its elements.
class Writer {
 public:
  template <class T>
  void put(const T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    const char* p = reinterpret_cast<const char*>(&v);
    out.insert(out.end(), p, p + sizeof(T));
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put(std::uint64_t(v.size()));
    for (const auto& x : v) put(x);
  }
  void put(const std::string& s) {
    put(std::uint64_t(s.size()));
    out.insert(out.end(), s.begin(), s.end());
  }
  std::vector<char> out;
};

class Reader {
 public:
  explicit Reader(std::span<const char> b) : b_(b) {}
  template <class T>
  void get(T& v) {
    static_assert(std::is_trivially_copyable_v<T>);
    need(sizeof(T));
    std::memcpy(&v, b_.data() + at_, sizeof(T));
    at_ += sizeof(T);
  }
  template <class T>
  void get(std::vector<T>& v) {
    const std::uint64_t n = count(sizeof(T));
    v.resize(n);
    for (auto& x : v) get(x);
  }
  void get(std::string& s) {
    const std::uint64_t n = count(1);
    s.assign(b_.data() + at_, n);
    at_ += n;
  }
  bool done() const { return at_ == b_.size(); }
  // a size read from the bytes, checked against what is left (each element at least `least` bytes)
  std::uint64_t count(std::size_t least) {
    std::uint64_t n = 0;
    get(n);
    if (n > (b_.size() - at_) / std::max<std::size_t>(least, 1)) fail();
    return n;
  }
 private:
  void need(std::size_t n) const {
    if (n > b_.size() - at_) fail();
  }
  [[noreturn]] void fail() const {
    throw Error("a reservoir input received from another process is cut short at byte " + std::to_string(at_) + " of " +
                std::to_string(b_.size()));
  }
  std::span<const char> b_;
  std::size_t at_ = 0;
};


// Writer and Reader with one variadic entry point, so a struct's members are listed once
struct Packer : Writer {
  template <class... A>
  void put_or_get(const A&... a) {
    (put(a), ...);
  }
  // a count of elements of at least `least` bytes each, written as it is
  void count(std::uint64_t& n, std::size_t /*least*/) { put(n); }
};
struct Unpacker : Reader {
  using Reader::Reader;
  template <class... A>
  void put_or_get(A&... a) {
    (get(a), ...);
  }
  void count(std::uint64_t& n, std::size_t least) { n = Reader::count(least); }
};

// The members, listed once for both directions (io: a Packer with a const input, or an Unpacker)
template <class IO, class G>
void grid(IO& io, G& g) {
  io.put_or_get(g.nx, g.ny, g.nz, g.dx, g.dy, g.dz, g.tops, g.permx, g.permy, g.permz, g.poro, g.ntg, g.actnum, g.multx,
                g.multy, g.multz);
}

template <class IO, class F>
void fluid(IO& io, F& f) {
  io.put_or_get(f.rho_w, f.rho_o, f.gravity, f.pvtw.pref, f.pvtw.bw, f.pvtw.cw, f.pvtw.muw, f.pvtw.cvw, f.pvdo.p, f.pvdo.bo,
                f.pvdo.muo, f.swof.sw, f.swof.krw, f.swof.krow, f.swof.pcow, f.rock.pref, f.rock.cr);
}

template <class IO, class S>
void setting(IO& io, S& s) {
  io.put_or_get(s.open, s.control, s.rate, s.bhp);
}

template <class IO, class In>
void input(IO& io, In& in) {
  grid(io, in.grid);
  fluid(io, in.fluid);
  std::uint64_t nw = in.wells.size();
  io.count(nw, 8);  // a well holds at least its name's size
  if constexpr (!std::is_const_v<In>) in.wells.resize(nw);
  for (auto& w : in.wells) {
    io.put_or_get(w.name, w.kind, w.ref_depth, w.completions);
    setting(io, w.initial);
  }
  std::uint64_t ne = in.schedule.size();
  io.count(ne, 8);
  if constexpr (!std::is_const_v<In>) in.schedule.resize(ne);
  for (auto& e : in.schedule) {
    io.put_or_get(e.time, e.well);
    setting(io, e.setting);
  }
  auto& i = in.initial;
  io.put_or_get(in.report_times, i.pressure, i.sw, i.datum_depth, i.datum_pressure, i.owc_depth, i.pc_owc, i.sw_uniform,
                i.hydrostatic, i.sublevels, in.source);
}

}  // namespace

std::vector<char> pack_impes_input(const ImpesInput& in) {
  Packer p;
  input(p, in);
  return std::move(p.out);
}

ImpesInput unpack_impes_input(std::span<const char> bytes) {
  ImpesInput in;
  Unpacker u(bytes);
  input(u, in);
  if (!u.done()) throw Error("a reservoir input received from another process has " + std::to_string(bytes.size()) +
                             " bytes, more than it holds");
  return in;
}

ImpesInput share_impes_input(const Communicator& comm, const std::function<ImpesInput()>& read) {
  if (comm.single()) return read();
  std::vector<char> bytes;
  if (comm.rank() == 0) bytes = pack_impes_input(read());
  broadcast_bytes(comm, bytes, 0);
  // process 0 too runs on what the bytes hold: a member the wire lacked would be lacking everywhere
  return unpack_impes_input(bytes);
}

}  // namespace poreflow::io
