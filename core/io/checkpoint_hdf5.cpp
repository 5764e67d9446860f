// Checkpoints in HDF5 (the C API of HDF5 >= 1.10). Layout:
//   /                 attributes: format ("poreflow checkpoint"), format_version, poreflow_version,
//                     model, backend, device, precision, case_source, time, steps
//   /case_text        the effective case (string)
//   /model/<entry>    the model's state: 1D datasets of float, double or int64, or a string
//   /driver/<entry>   the driver's output cadence, the same way
// Arrays are chunked with HDF5's Fletcher-32 checksum, so a damaged file is refused on reading.
#include <fcntl.h>
#include <hdf5.h>
#include <unistd.h>

#include <algorithm>
#include <cstring>
#include <system_error>

#include "core/base/error.hpp"
#include "core/io/checkpoint.hpp"

namespace poreflow::io {

namespace {

constexpr const char* kFormatName = "poreflow checkpoint";

// An HDF5 handle closed by its own close function.
class Hid {
 public:
  Hid(hid_t id, herr_t (*close)(hid_t)) : id_(id), close_(close) {}
  Hid(Hid&& o) noexcept : id_(o.id_), close_(o.close_) { o.id_ = -1; }
  Hid(const Hid&) = delete;
  Hid& operator=(const Hid&) = delete;
  ~Hid() {
    if (id_ >= 0) close_(id_);
  }
  operator hid_t() const { return id_; }
  bool ok() const { return id_ >= 0; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

// HDF5 prints its error stack by default; poreflow reports its own one-line messages instead.
void quiet_hdf5() { H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr); }

hid_t file_type(StateType t) {
  switch (t) {
    case StateType::Float: return H5T_IEEE_F32LE;
    case StateType::Double: return H5T_IEEE_F64LE;
    case StateType::Int64: return H5T_STD_I64LE;
    case StateType::Text: break;
  }
  return H5T_STD_U8LE;
}

hid_t memory_type(StateType t) {
  switch (t) {
    case StateType::Float: return H5T_NATIVE_FLOAT;
    case StateType::Double: return H5T_NATIVE_DOUBLE;
    case StateType::Int64: return H5T_NATIVE_INT64;
    case StateType::Text: break;
  }
  return H5T_NATIVE_UCHAR;
}

// a fixed-length, NUL-terminated string type of n characters
Hid string_type(std::size_t n) {
  Hid t(H5Tcopy(H5T_C_S1), H5Tclose);
  H5Tset_size(t, std::max<std::size_t>(n, 1));
  H5Tset_strpad(t, H5T_STR_NULLTERM);
  return t;
}

class Writer {
 public:
  explicit Writer(std::filesystem::path file) : file_(std::move(file)) {}

  void check(herr_t r, const std::string& what) const {
    if (r < 0) throw Error("cannot write checkpoint '" + file_.string() + "': " + what + " failed");
  }
  void check(const Hid& h, const std::string& what) const { check(h.ok() ? 0 : -1, what); }

  void attr(hid_t loc, const char* name, const std::string& v) const {
    Hid t = string_type(v.size() + 1);
    Hid sp(H5Screate(H5S_SCALAR), H5Sclose);
    Hid a(H5Acreate2(loc, name, t, sp, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a, std::string("attribute ") + name);
    check(H5Awrite(a, t, v.c_str()), std::string("attribute ") + name);
  }
  template <class V>
  void attr(hid_t loc, const char* name, hid_t ftype, hid_t mtype, V v) const {
    Hid sp(H5Screate(H5S_SCALAR), H5Sclose);
    Hid a(H5Acreate2(loc, name, ftype, sp, H5P_DEFAULT, H5P_DEFAULT), H5Aclose);
    check(a, std::string("attribute ") + name);
    check(H5Awrite(a, mtype, &v), std::string("attribute ") + name);
  }

  void text(hid_t loc, const std::string& name, const std::string& v) const {
    Hid t = string_type(v.size() + 1);
    Hid sp(H5Screate(H5S_SCALAR), H5Sclose);
    Hid d(H5Dcreate2(loc, name.c_str(), t, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Dclose);
    check(d, "'" + name + "'");
    check(H5Dwrite(d, t, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.c_str()), "'" + name + "'");
  }

  void group(hid_t file, const char* name, const ModelState& s) const {
    Hid g(H5Gcreate2(file, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose);
    check(g, std::string("group ") + name);
    for (const auto& [key, a] : s.arrays()) {
      const std::string what = std::string(name) + "/" + key;
      if (a.type == StateType::Text) {
        text(g, key, std::string(a.bytes.begin(), a.bytes.end()));
        continue;
      }
      const hsize_t n = a.count();
      Hid sp(H5Screate_simple(1, &n, nullptr), H5Sclose);
      Hid dcpl(H5Pcreate(H5P_DATASET_CREATE), H5Pclose);
      if (n > 0) {  // chunks of at most 1 MiB, each with its checksum
        const hsize_t chunk = std::min<hsize_t>(n, (1u << 20) / size_of(a.type));
        check(H5Pset_chunk(dcpl, 1, &chunk), what + " chunks");
        check(H5Pset_fletcher32(dcpl), what + " checksum");
      }
      Hid d(H5Dcreate2(g, key.c_str(), file_type(a.type), sp, H5P_DEFAULT, dcpl, H5P_DEFAULT), H5Dclose);
      check(d, "'" + what + "'");
      if (n > 0) check(H5Dwrite(d, memory_type(a.type), H5S_ALL, H5S_ALL, H5P_DEFAULT, a.bytes.data()), "'" + what + "'");
    }
  }

 private:
  std::filesystem::path file_;
};

class Reader {
 public:
  explicit Reader(std::filesystem::path file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& why) const {
    throw ConfigError("checkpoint '" + file_.string() + "' " + why);
  }

  std::string attr_text(hid_t loc, const char* name) const {
    Hid a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
    if (!a.ok()) fail(std::string("has no attribute '") + name + "': not a poreflow checkpoint or written by another version");
    Hid ft(H5Aget_type(a), H5Tclose);
    if (H5Tget_class(ft) != H5T_STRING) fail(std::string("attribute '") + name + "' is not a string");
    const std::size_t n = H5Tget_size(ft);
    Hid mt = string_type(n);
    std::string v(n, '\0');
    if (H5Aread(a, mt, v.data()) < 0) fail(std::string("is damaged: cannot read attribute '") + name + "'");
    v.resize(std::strlen(v.c_str()));
    return v;
  }
  template <class V>
  V attr_value(hid_t loc, const char* name, hid_t mtype) const {
    Hid a(H5Aopen(loc, name, H5P_DEFAULT), H5Aclose);
    if (!a.ok()) fail(std::string("has no attribute '") + name + "'");
    V v{};
    if (H5Aread(a, mtype, &v) < 0) fail(std::string("is damaged: cannot read attribute '") + name + "'");
    return v;
  }

  std::string text(hid_t d, const std::string& what) const {
    Hid ft(H5Dget_type(d), H5Tclose);
    const std::size_t n = H5Tget_size(ft);
    Hid mt = string_type(n);
    std::string v(n, '\0');
    if (H5Dread(d, mt, H5S_ALL, H5S_ALL, H5P_DEFAULT, v.data()) < 0) fail("is damaged: cannot read '" + what + "'");
    v.resize(std::strlen(v.c_str()));
    return v;
  }

  ModelState group(hid_t file, const char* name) const {
    Hid g(H5Gopen2(file, name, H5P_DEFAULT), H5Gclose);
    if (!g.ok()) fail(std::string("has no group '") + name + "': not a poreflow checkpoint or damaged");
    H5G_info_t info;
    if (H5Gget_info(g, &info) < 0) fail(std::string("is damaged: cannot list '") + name + "'");
    ModelState s;
    for (hsize_t i = 0; i < info.nlinks; ++i) {
      char key[256];
      if (H5Lget_name_by_idx(g, ".", H5_INDEX_NAME, H5_ITER_INC, i, key, sizeof key, H5P_DEFAULT) < 0)
        fail(std::string("is damaged: cannot list '") + name + "'");
      const std::string what = std::string(name) + "/" + key;
      Hid d(H5Dopen2(g, key, H5P_DEFAULT), H5Dclose);
      if (!d.ok()) fail("is damaged: cannot open '" + what + "'");
      Hid ft(H5Dget_type(d), H5Tclose);
      const H5T_class_t cls = H5Tget_class(ft);
      const std::size_t size = H5Tget_size(ft);
      StateArray a;
      if (cls == H5T_STRING) {
        const std::string v = text(d, what);
        a.type = StateType::Text;
        a.bytes.assign(v.begin(), v.end());
        s.insert(key, std::move(a));
        continue;
      }
      if (cls == H5T_FLOAT && size == 4) a.type = StateType::Float;
      else if (cls == H5T_FLOAT && size == 8) a.type = StateType::Double;
      else if (cls == H5T_INTEGER && size == 8) a.type = StateType::Int64;
      else fail("entry '" + what + "' has a type poreflow does not write");
      Hid sp(H5Dget_space(d), H5Sclose);
      if (H5Sget_simple_extent_ndims(sp) != 1) fail("entry '" + what + "' is not one-dimensional");
      hsize_t n = 0;
      H5Sget_simple_extent_dims(sp, &n, nullptr);
      a.bytes.resize(n * size_of(a.type));
      // a checksum that does not match fails the read
      if (n > 0 && H5Dread(d, memory_type(a.type), H5S_ALL, H5S_ALL, H5P_DEFAULT, a.bytes.data()) < 0)
        fail("is damaged: '" + what + "' cannot be read (checksum or storage error)");
      s.insert(key, std::move(a));
    }
    return s;
  }

 private:
  std::filesystem::path file_;
};

}  // namespace

bool checkpoints_supported() { return true; }

std::string checkpoint_library() {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  return "HDF5 " + std::to_string(major) + "." + std::to_string(minor) + "." + std::to_string(release);
}

std::size_t write_checkpoint(const std::filesystem::path& file, const Checkpoint& c) {
  quiet_hdf5();
  std::filesystem::path tmp = file;
  tmp += ".tmp";
  if (file.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(file.parent_path(), ec);
    if (ec) throw Error("cannot create the folder of checkpoint '" + file.string() + "': " + ec.message());
  }
  {
    Writer w(file);
    Hid f(H5Fcreate(tmp.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT), H5Fclose);
    if (!f.ok()) throw Error("cannot create checkpoint '" + tmp.string() + "' (is the folder writable?)");
    w.attr(f, "format", kFormatName);
    w.attr(f, "format_version", H5T_STD_I32LE, H5T_NATIVE_INT, c.format);
    w.attr(f, "poreflow_version", c.poreflow_version);
    w.attr(f, "model", c.model);
    w.attr(f, "backend", c.backend);
    w.attr(f, "device", c.device);
    w.attr(f, "precision", c.precision);
    w.attr(f, "case_source", c.case_source);
    w.attr(f, "time", H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, c.time);
    w.attr(f, "steps", H5T_STD_I64LE, H5T_NATIVE_INT64, static_cast<long long>(c.steps));
    w.attr(f, "processes", H5T_STD_I32LE, H5T_NATIVE_INT, c.processes);
    w.attr(f, "rank", H5T_STD_I32LE, H5T_NATIVE_INT, c.rank);
    w.text(f, "case_text", c.case_text);
    w.group(f, "model", c.model_state);
    w.group(f, "driver", c.driver_state);
    w.check(H5Fflush(f, H5F_SCOPE_GLOBAL), "flush");
  }
  // on disk before it replaces the last checkpoint
  if (int fd = ::open(tmp.c_str(), O_RDONLY); fd >= 0) {
    ::fsync(fd);
    ::close(fd);
  }
  std::error_code ec;
  std::filesystem::rename(tmp, file, ec);
  if (ec) throw Error("cannot rename '" + tmp.string() + "' to '" + file.string() + "': " + ec.message());
  return static_cast<std::size_t>(std::filesystem::file_size(file, ec));
}

Checkpoint read_checkpoint(const std::filesystem::path& file) {
  quiet_hdf5();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw ConfigError("checkpoint '" + file.string() + "' does not exist or is not a file");
  Reader r(file);
  const htri_t is = H5Fis_hdf5(file.c_str());
  if (is <= 0) r.fail("is not an HDF5 file (damaged, or not a checkpoint)");
  Hid f(H5Fopen(file.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose);
  if (!f.ok()) r.fail("cannot be opened: the file is damaged or truncated");
  if (!H5Aexists(f, "format") || r.attr_text(f, "format") != kFormatName) r.fail("is an HDF5 file but not a poreflow checkpoint");
  Checkpoint c;
  c.format = r.attr_value<int>(f, "format_version", H5T_NATIVE_INT);
  c.poreflow_version = r.attr_text(f, "poreflow_version");
  if (c.format != kCheckpointFormat)
    r.fail("has format " + std::to_string(c.format) + " (written by poreflow " + c.poreflow_version + "); this poreflow " +
           POREFLOW_VERSION + " reads format " + std::to_string(kCheckpointFormat) + checkpoint_format_change(c.format) +
           "; rerun the case from its start (or finish it with the poreflow that wrote the checkpoint)");
  c.model = r.attr_text(f, "model");
  c.backend = r.attr_text(f, "backend");
  c.device = r.attr_text(f, "device");
  c.precision = r.attr_text(f, "precision");
  c.case_source = r.attr_text(f, "case_source");
  c.time = r.attr_value<double>(f, "time", H5T_NATIVE_DOUBLE);
  c.steps = static_cast<long>(r.attr_value<long long>(f, "steps", H5T_NATIVE_INT64));
  // (a checkpoint without them was written by a run of one process)
  if (H5Aexists(f, "processes") > 0) c.processes = r.attr_value<int>(f, "processes", H5T_NATIVE_INT);
  if (H5Aexists(f, "rank") > 0) c.rank = r.attr_value<int>(f, "rank", H5T_NATIVE_INT);
  {
    Hid d(H5Dopen2(f, "case_text", H5P_DEFAULT), H5Dclose);
    if (!d.ok()) r.fail("has no case text: damaged");
    c.case_text = r.text(d, "case_text");
  }
  c.model_state = r.group(f, "model");
  c.driver_state = r.group(f, "driver");
  return c;
}

}  // namespace poreflow::io
