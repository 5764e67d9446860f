// core/comm/mpi.hpp with MPI: every process of MPI_COMM_WORLD, errors returned (not fatal) and
// reported as BackendError with MPI's own message.
#include <mpi.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/base/error.hpp"
#include "core/comm/mpi.hpp"
#include "core/comm/staged_combine.hpp"

namespace poreflow::mpi {
namespace {

void check(int rc, const char* what) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  MPI_Error_string(rc, msg, &len);
  throw BackendError(std::string("MPI ") + what + ": " + std::string(msg, static_cast<std::size_t>(len)));
}

int count_of(std::size_t bytes, const char* what) {
  if (bytes > static_cast<std::size_t>(INT_MAX))
    throw BackendError(std::string("MPI ") + what + ": " + std::to_string(bytes) + " bytes in one message (at most 2^31 - 1)");
  return static_cast<int>(bytes);
}

class MpiWorld final : public Communicator {
 public:
  explicit MpiWorld(Backend& be) : combine_(*this, be) {
    check(MPI_Comm_rank(MPI_COMM_WORLD, &rank_), "rank");
    check(MPI_Comm_size(MPI_COMM_WORLD, &size_), "size");
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  // Floating-point sums are gathered and added in rank order on every process: MPI_Allreduce may
  // round differently on different processes, and a decision taken from a sum (a solve's stop)
  // must be the same everywhere, or the processes fall out of step.
  double sum(double v) const override {
    std::span<double> one(&v, 1);
    sum(one);
    return v;
  }
  // Maxima and minima of doubles likewise, with a NaN on any process the result on every one (as
  // a device's reduction of one process keeps it): MPI_MAX may drop a NaN, depending on the order
  // it meets it in, and a step that one process found non-finite would pass on the others.
  double max(double v) const override {
    extreme(std::span<double>(&v, 1), true);
    return v;
  }
  double min(double v) const override {
    extreme(std::span<double>(&v, 1), false);
    return v;
  }
  long sum(long v) const override { return all(v, MPI_LONG, MPI_SUM); }
  long max(long v) const override { return all(v, MPI_LONG, MPI_MAX); }
  void sum(std::span<double> v) const override {
    const auto all = gathered(v);
    for (std::size_t i = 0; i < v.size(); ++i) {
      double s = 0;
      for (int r = 0; r < size_; ++r) s += all[static_cast<std::size_t>(r) * v.size() + i];
      v[i] = s;
    }
  }
  void max(std::span<double> v) const override { extreme(v, true); }
  void max(std::span<std::uint64_t> v) const override { all_in_place(v.data(), v.size(), MPI_UINT64_T, MPI_MAX); }
  // every process's values, in rank order
  std::vector<double> gathered(std::span<const double> v) const {
    std::vector<double> all(v.size() * static_cast<std::size_t>(size_));
    if (v.empty()) return all;
    check(MPI_Allgather(v.data(), count_of(v.size(), "allgather"), MPI_DOUBLE, all.data(), count_of(v.size(), "allgather"),
                        MPI_DOUBLE, MPI_COMM_WORLD),
          "allgather");
    return all;
  }
  void extreme(std::span<double> v, bool largest) const {
    const auto all = gathered(v);
    for (std::size_t i = 0; i < v.size(); ++i) {
      double e = v[i];
      for (int r = 0; r < size_; ++r) {
        const double x = all[static_cast<std::size_t>(r) * v.size() + i];
        if (std::isnan(x) || std::isnan(e)) e = std::numeric_limits<double>::quiet_NaN();
        else e = largest ? std::max(e, x) : std::min(e, x);
      }
      v[i] = e;
    }
  }
  bool any(bool v) const override {
    int x = v ? 1 : 0;
    check(MPI_Allreduce(MPI_IN_PLACE, &x, 1, MPI_INT, MPI_LOR, MPI_COMM_WORLD), "allreduce");
    return x != 0;
  }
  void exchange(std::span<const Transfer> t) const override {
    std::vector<MPI_Request> req;
    req.reserve(2 * t.size());
    for (const Transfer& x : t) {
      req.emplace_back();
      check(MPI_Irecv(x.recv, count_of(x.bytes, "receive"), MPI_BYTE, x.peer, x.recv_tag, MPI_COMM_WORLD, &req.back()), "receive");
    }
    for (const Transfer& x : t) {
      req.emplace_back();
      check(MPI_Isend(x.send, count_of(x.bytes, "send"), MPI_BYTE, x.peer, x.send_tag, MPI_COMM_WORLD, &req.back()), "send");
    }
    check(MPI_Waitall(static_cast<int>(req.size()), req.data(), MPI_STATUSES_IGNORE), "wait");
  }
  void broadcast(void* data, std::size_t bytes, int root) const override {
    check(MPI_Bcast(data, count_of(bytes, "broadcast"), MPI_BYTE, root, MPI_COMM_WORLD), "broadcast");
  }
  // point to point in pieces of at most 1 GiB (MPI counts are int)
  void gather(const void* send, std::size_t bytes, void* recv, std::span<const std::size_t> counts, int root) const override {
    constexpr std::size_t piece = std::size_t(1) << 30;
    constexpr int tag = 0x6a7;
    if (rank_ != root) {
      for (std::size_t at = 0; at < bytes; at += piece)
        check(MPI_Send(static_cast<const char*>(send) + at, static_cast<int>(std::min(piece, bytes - at)), MPI_BYTE, root, tag,
                       MPI_COMM_WORLD),
              "send");
      return;
    }
    if (counts.size() != static_cast<std::size_t>(size_)) throw BackendError("MPI gather: counts for " + std::to_string(counts.size()) + " processes");
    char* out = static_cast<char*>(recv);
    for (int r = 0; r < size_; ++r) {
      const std::size_t n = counts[static_cast<std::size_t>(r)];
      if (r == rank_) {
        if (n != bytes) throw BackendError("MPI gather: the root sends " + std::to_string(bytes) + " bytes, counted " + std::to_string(n));
        if (n) std::memmove(out, send, n);
      } else {
        for (std::size_t at = 0; at < n; at += piece)
          check(MPI_Recv(out + at, static_cast<int>(std::min(piece, n - at)), MPI_BYTE, r, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE),
                "receive");
      }
      out += n;
    }
  }
  const DeviceCombine* device_combine() const override { return size_ > 1 ? &combine_ : nullptr; }

 private:
  template <class V>
  V all(V v, MPI_Datatype t, MPI_Op op) const {
    check(MPI_Allreduce(MPI_IN_PLACE, &v, 1, t, op, MPI_COMM_WORLD), "allreduce");
    return v;
  }
  void all_in_place(void* v, std::size_t n, MPI_Datatype t, MPI_Op op) const {
    if (n == 0) return;
    check(MPI_Allreduce(MPI_IN_PLACE, v, count_of(n, "allreduce"), t, op, MPI_COMM_WORLD), "allreduce");
  }

  int rank_ = 0, size_ = 1;
  StagedCombine combine_;
};

}  // namespace

bool compiled() { return true; }

std::string library() {
  char v[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(v, &len);
  std::string s(v, static_cast<std::size_t>(len));
  if (auto nl = s.find_first_of(",\n"); nl != std::string::npos) s.resize(nl);
  return s;
}

namespace {
const Session* g_current = nullptr;
}
const Session* Session::current() { return g_current; }

Session::Session(int& argc, char**& argv) {
  g_current = this;
  if (launched().size <= 1) return;  // alone: no MPI at all
  int provided = 0;
  check(MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided), "init");
  check(MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN), "error handler");
  active_ = true;
}

Session::~Session() {
  if (g_current == this) g_current = nullptr;
  if (active_) MPI_Finalize();
}

int Session::rank() const {
  int r = 0;
  if (active_) MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}

int Session::size() const {
  int s = 1;
  if (active_) MPI_Comm_size(MPI_COMM_WORLD, &s);
  return s;
}

void Session::abort(int code) const {
  if (active_ && size() > 1) MPI_Abort(MPI_COMM_WORLD, code);
}

std::unique_ptr<Communicator> Session::world(Backend& be) const {
  if (!active_) return make_self_communicator();
  return std::make_unique<MpiWorld>(be);
}

}  // namespace poreflow::mpi
