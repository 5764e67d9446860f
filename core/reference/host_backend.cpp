#include "core/reference/host_backend.hpp"

#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <new>
#include <thread>

#include "core/error.hpp"
#include "core/kernels/jacobi_ctrl.h"
#include "core/physics/bl1d.h"
#include "core/reference/thomas_lockstep.hpp"
#include "core/reference/tridiag_host.hpp"

namespace poreflow {

// Loops shorter than this run on one thread even on omp: the fork/join would cost more.
constexpr std::size_t kMinParallelPoints = 8192;

// ---- memory ---------------------------------------------------------------------------------

HostBuffer::HostBuffer(std::size_t bytes) : Buffer(bytes) {
  // 64-byte alignment for vector loads; at least one byte so that empty fields are valid
  std::size_t rounded = ((std::max<std::size_t>(bytes, 1) + 63) / 64) * 64;
  data_ = std::aligned_alloc(64, rounded);
  if (!data_) throw BackendError("host allocation of " + std::to_string(bytes) + " bytes failed");
}

HostBuffer::~HostBuffer() { std::free(data_); }

HostBackend::HostBackend(bool parallel, int threads) : parallel_(parallel) {
  threads_ = parallel ? (threads > 0 ? threads : omp_get_max_threads()) : 1;
}

std::string HostBackend::device_name() const {
  unsigned hw = std::thread::hardware_concurrency();
  if (!parallel_) return "CPU, 1 thread";
  return "CPU, " + std::to_string(threads_) + " OpenMP threads (" + std::to_string(hw) + " hardware)";
}

std::vector<ReduceVariant> HostBackend::reduce_variants() const { return {ReduceVariant::Serial}; }

std::unique_ptr<Buffer> HostBackend::alloc(std::size_t bytes) { return std::make_unique<HostBuffer>(bytes); }

void HostBackend::upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) {
  check_range(dst, bytes, offset, "upload");
  std::memcpy(static_cast<char*>(static_cast<HostBuffer&>(dst).data()) + offset, src, bytes);
}

void HostBackend::download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset) {
  check_range(src, bytes, offset, "download");
  std::memcpy(dst, static_cast<const char*>(static_cast<const HostBuffer&>(src).data()) + offset, bytes);
}

void HostBackend::copy(const Buffer& src, Buffer& dst, std::size_t bytes) {
  check_range(src, bytes, 0, "copy");
  check_range(dst, bytes, 0, "copy");
  const char* s = host_ptr<char>(src);
  char* d = host_ptr<char>(dst);
  // split into page-sized chunks per thread so that omp copies with every core
  const std::size_t chunk = 1 << 20;
  const long nchunks = static_cast<long>((bytes + chunk - 1) / chunk);
#pragma omp parallel for schedule(static) num_threads(threads_) if (parallel_)
  for (long c = 0; c < nchunks; ++c) {
    std::size_t off = static_cast<std::size_t>(c) * chunk;
    std::memcpy(d + off, s + off, std::min(chunk, bytes - off));
  }
}

template <class T>
static void fill_t(Buffer& dst, double value, std::size_t n, bool parallel, int threads) {
  T* d = host_ptr<T>(dst);
  const T v = static_cast<T>(value);
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel)
  for (std::size_t i = 0; i < n; ++i) d[i] = v;
}

void HostBackend::fill(Buffer& dst, Precision prec, double value, std::size_t n) {
  check_range(dst, n * size_of(prec), 0, "fill");
  if (prec == Precision::Float)
    fill_t<float>(dst, value, n, parallel_, threads_);
  else
    fill_t<double>(dst, value, n, parallel_, threads_);
}

template <class T>
static void axpy_t(std::size_t n, double alpha, const Buffer& x, Buffer& y, bool parallel, int threads) {
  const T* xs = host_ptr<T>(x);
  T* ys = host_ptr<T>(y);
  const T a = static_cast<T>(alpha);
#pragma omp parallel for schedule(static) num_threads(threads) if (parallel && n >= kMinParallelPoints)
  for (std::size_t i = 0; i < n; ++i) ys[i] += a * xs[i];
}

void HostBackend::axpy(Precision prec, std::size_t n, double alpha, const Buffer& x, Buffer& y) {
  check_range(x, n * size_of(prec), 0, "axpy");
  check_range(y, n * size_of(prec), 0, "axpy");
  if (prec == Precision::Float)
    axpy_t<float>(n, alpha, x, y, parallel_, threads_);
  else
    axpy_t<double>(n, alpha, x, y, parallel_, threads_);
}

// ---- reduce (serial reference) ----------------------------------------------------------------

template <class T>
double HostBackend::reduce_t(const ReduceArgs& args) const {
  const T* a = host_ptr<T>(*args.a);
  const T* b = args.b ? host_ptr<T>(*args.b) : nullptr;
  const std::size_t n = args.n;
  // accumulate in double: this is the reference every backend is compared with
  switch (args.op) {
    case ReduceOp::Sum: {
      double s = 0;
      for (std::size_t i = 0; i < n; ++i) s += a[i];
      return s;
    }
    case ReduceOp::Min: {
      double m = std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < n; ++i) m = std::min<double>(m, a[i]);
      return m;
    }
    case ReduceOp::Max: {
      double m = -std::numeric_limits<double>::infinity();
      for (std::size_t i = 0; i < n; ++i) m = std::max<double>(m, a[i]);
      return m;
    }
    case ReduceOp::MaxAbs: {
      double m = 0;
      for (std::size_t i = 0; i < n; ++i) m = std::max<double>(m, std::fabs(a[i]));
      return m;
    }
    case ReduceOp::MaxAbsDiff: {
      double m = 0;
      for (std::size_t i = 0; i < n; ++i) m = std::max<double>(m, std::fabs(static_cast<double>(a[i]) - b[i]));
      return m;
    }
  }
  return 0;
}

void HostBackend::reduce_enqueue(const ReduceArgs& args) {
  if (args.op == ReduceOp::MaxAbsDiff && !args.b) throw Error("max_abs_diff needs two inputs");
  last_reduce_ = args.prec == Precision::Float ? reduce_t<float>(args) : reduce_t<double>(args);
}

// ---- jacobi1d ---------------------------------------------------------------------------------

namespace {

template <class T>
std::uint64_t metric_bits(T v) {
  if constexpr (sizeof(T) == 4) {
    std::uint32_t b;
    std::memcpy(&b, &v, 4);
    return b;
  } else {
    std::uint64_t b;
    std::memcpy(&b, &v, 8);
    return b;
  }
}

template <class T>
T metric_value(std::uint64_t bits) {
  T v;
  if constexpr (sizeof(T) == 4) {
    std::uint32_t b = static_cast<std::uint32_t>(bits);
    std::memcpy(&v, &b, 4);
  } else {
    std::memcpy(&v, &bits, 8);
  }
  return v;
}

}  // namespace

template <class T>
void HostBackend::jacobi_t(const Jacobi1DArgs& args, long first, long count) const {
  // a fork/join costs microseconds: below this many points one thread is faster
  const bool par = parallel_ && args.n >= kMinParallelPoints;
  std::uint64_t* ctrl = host_ptr<std::uint64_t>(*args.ctrl);
  const T* mf = host_ptr<T>(*args.mface);
  const long n = static_cast<long>(args.n);
  const long k = args.check_every;
  const T thr = static_cast<T>(args.threshold);
  const int residual = args.metric == JacobiMetric::Residual;
  for (long it = first; it < first + count; ++it) {
    if (ctrl[PF_JCTRL_CONVERGED]) return;
    if (it >= k && it % k == 0) {  // the previous iteration was a check: decide
      T last = metric_value<T>(ctrl[PF_JCTRL_SLOT0 + (it / k - 1) % PF_JCTRL_NSLOTS]);
      if (last < thr) {
        ctrl[PF_JCTRL_CONVERGED] = 1;
        ctrl[PF_JCTRL_ITERATIONS] = static_cast<std::uint64_t>(it);
        return;
      }
    }
    const T* p = host_ptr<T>(*args.p[it % 2]);
    T* q = host_ptr<T>(*args.p[(it + 1) % 2]);
    q[0] = static_cast<T>(args.p_left);
    q[n - 1] = static_cast<T>(args.p_right);
    const bool check = (it + 1) % k == 0;
    if (check) {
      T m = 0;
      bool nan = false;
#pragma omp parallel for schedule(static) num_threads(threads_) if (par) reduction(max : m) reduction(|| : nan)
      for (long i = 1; i < n - 1; ++i) {
        T v = phys::bl_jacobi_point<T>(p[i - 1], p[i + 1], mf[i - 1], mf[i]);
        q[i] = v;
        T d = phys::bl_jacobi_metric<T>(v, p[i], mf[i - 1], mf[i], residual);
        m = d > m ? d : m;
        nan = nan || std::isnan(d);
      }
      if (nan) m = std::numeric_limits<T>::quiet_NaN();  // like the GPU bit-pattern max: NaN wins
      long c = (it + 1) / k - 1;
      ctrl[PF_JCTRL_SLOT0 + c % PF_JCTRL_NSLOTS] = metric_bits<T>(m);
      ctrl[PF_JCTRL_SLOT0 + (c + 1) % PF_JCTRL_NSLOTS] = 0;
    } else {
#pragma omp parallel for schedule(static) num_threads(threads_) if (par)
      for (long i = 1; i < n - 1; ++i) q[i] = phys::bl_jacobi_point<T>(p[i - 1], p[i + 1], mf[i - 1], mf[i]);
    }
  }
}

void HostBackend::jacobi1d_iterate(const Jacobi1DArgs& args, long first, long count) {
  if (args.n < 3) throw Error("jacobi1d needs at least 3 points");
  if (args.prec == Precision::Float)
    jacobi_t<float>(args, first, count);
  else
    jacobi_t<double>(args, first, count);
}

// ---- tridiag ------------------------------------------------------------------------------------

template <class T>
void HostBackend::tridiag_t(const TridiagArgs& args) const {
  const T* a = host_ptr<T>(*args.a);
  const T* b = host_ptr<T>(*args.b);
  const T* c = host_ptr<T>(*args.c);
  const T* d = host_ptr<T>(*args.d);
  T* x = host_ptr<T>(*args.x);
  const std::size_t n = args.n, batch = args.batch;
  const bool inter = args.layout == TridiagLayout::Interleaved;
  const bool par = parallel_ && n * batch >= kMinParallelPoints;
  const TridiagAlgo algo = args.algo == TridiagAlgo::Auto ? resolve_tridiag_algo(args) : args.algo;
  // system s starts at base(s) with stride `stride`
  const std::size_t stride = inter ? batch : 1;
  auto base = [&](std::size_t s) { return inter ? s : s * n; };

  if (algo == TridiagAlgo::Thomas && inter) {
    // W neighbouring systems swept together: each row of the chunk is one contiguous run, so the
    // loads stream and the inner loop vectorises across systems
    constexpr std::size_t W = 16;
    const long chunks = static_cast<long>((batch + W - 1) / W);
#pragma omp parallel num_threads(threads_) if (par)
    {
      std::vector<T> cp(n * W), bet(W);
#pragma omp for schedule(static)
      for (long ch = 0; ch < chunks; ++ch) {
        const std::size_t s0 = static_cast<std::size_t>(ch) * W, w = std::min(W, batch - s0);
        for (std::size_t k = 0; k < w; ++k) {
          bet[k] = b[s0 + k];
          cp[k] = n > 1 ? c[s0 + k] / bet[k] : T(0);
          x[s0 + k] = d[s0 + k] / bet[k];
        }
        for (std::size_t i = 1; i < n; ++i) {
          const std::size_t r = i * batch + s0, rp = (i - 1) * batch + s0;
          const bool last = i + 1 == n;
          for (std::size_t k = 0; k < w; ++k) {
            const T ai = a[r + k];
            const T bt = b[r + k] - ai * cp[(i - 1) * W + k];
            cp[i * W + k] = last ? T(0) : c[r + k] / bt;
            x[r + k] = (d[r + k] - ai * x[rp + k]) / bt;
          }
        }
        for (std::size_t i = n - 1; i-- > 0;) {
          const std::size_t r = i * batch + s0, rn = (i + 1) * batch + s0;
          for (std::size_t k = 0; k < w; ++k) x[r + k] -= cp[i * W + k] * x[rn + k];
        }
      }
    }
    return;
  }
  if (algo == TridiagAlgo::Thomas && n > 1) {
    // contiguous: W systems in lockstep (thomas_lockstep.hpp); the blocked loop once the group's
    // five arrays outgrow a core's L2 (measured: direct 10-35% faster to 2049^2 floats, blocked
    // 3x faster from 4097^2)
    constexpr std::size_t W = 8;
    const bool blocked = 5 * W * n * sizeof(T) > (std::size_t(512) << 10);
    const long chunks = static_cast<long>((batch + W - 1) / W);
#pragma omp parallel num_threads(threads_) if (par)
    {
      std::vector<T> cp(n * W), dp(blocked ? n * W : 0);
      tridiag_host::Lockstep<T, W> g;
#pragma omp for schedule(static)
      for (long ch = 0; ch < chunks; ++ch) {
        const std::size_t s0 = static_cast<std::size_t>(ch) * W;
        g.w = std::min(W, batch - s0);
        for (std::size_t k = 0; k < g.w; ++k) {
          const std::size_t o = (s0 + k) * n;
          g.a[k] = a + o, g.b[k] = b + o, g.c[k] = c + o, g.d[k] = d + o, g.x[k] = x + o;
        }
        if (blocked)
          tridiag_host::thomas_lockstep_blocked<T, W>(n, g, cp.data(), dp.data());
        else
          tridiag_host::thomas_lockstep_direct<T, W>(n, g, cp.data());
      }
    }
    return;
  }
#pragma omp parallel num_threads(threads_) if (par)
  {
    std::vector<T> cp(n);
    tridiag_host::System<T> sys;
#pragma omp for schedule(static)
    for (long sl = 0; sl < static_cast<long>(batch); ++sl) {
      const std::size_t s = static_cast<std::size_t>(sl), o = base(s);
      if (algo == TridiagAlgo::Thomas) {
        tridiag_host::thomas<T>(n, a + o, b + o, c + o, d + o, x + o, stride, cp.data());
        continue;
      }
      sys.load(n, a + o, b + o, c + o, d + o, stride);
      switch (algo) {
        case TridiagAlgo::CR: tridiag_host::cr<T>(sys, x + o, stride, 1); break;
        case TridiagAlgo::PCR: tridiag_host::cr<T>(sys, x + o, stride, n); break;  // no CR level: PCR on all
        case TridiagAlgo::CrPcr: tridiag_host::cr<T>(sys, x + o, stride, 64); break;
        case TridiagAlgo::PcrThomas: tridiag_host::pcr_thomas<T>(sys, x + o, stride, 5); break;
        default: break;
      }
    }
  }
}

void HostBackend::tridiag_solve(const TridiagArgs& args) {
  check_tridiag_args(args, "tridiag_solve");
  if (args.n == 0 || args.batch == 0) return;
  args.prec == Precision::Float ? tridiag_t<float>(args) : tridiag_t<double>(args);
}

// ---- bl1d point-wise kernels ------------------------------------------------------------------

template <class T>
static void face_mobility_t(const BLFaceMobilityArgs& a, bool par, int threads) {
  par = par && a.n >= kMinParallelPoints;
  const T* s = host_ptr<T>(*a.s);
  T* m = host_ptr<T>(*a.mface);
  const T k = T(a.phys.k), mw = T(a.phys.mu_w), mo = T(a.phys.mu_o);
  const long nf = static_cast<long>(a.n) - 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (par)
  for (long i = 0; i < nf; ++i) m[i] = phys::bl_face_mobility<T>(s[i], s[i + 1], k, mw, mo);
}

template <class T>
static void face_velocity_t(const BLFaceVelocityArgs& a, bool par, int threads) {
  par = par && a.n >= kMinParallelPoints;
  const T* p = host_ptr<T>(*a.p);
  const T* m = host_ptr<T>(*a.mface);
  T* u = host_ptr<T>(*a.u);
  const T inv_h = T(a.inv_h);
  const long nf = static_cast<long>(a.n) - 1;
#pragma omp parallel for schedule(static) num_threads(threads) if (par)
  for (long i = 0; i < nf; ++i) u[i] = phys::bl_face_velocity<T>(m[i], p[i], p[i + 1], inv_h);
}

template <class T>
static void saturation_t(const BLSaturationArgs& a, bool par, int threads) {
  par = par && a.n >= kMinParallelPoints;
  const T* s = host_ptr<T>(*a.s_old);
  const T* u = host_ptr<T>(*a.u);
  T* q = host_ptr<T>(*a.s_new);
  const T c = T(a.c), mw = T(a.phys.mu_w), mo = T(a.phys.mu_o);
  const long n = static_cast<long>(a.n);
#pragma omp parallel for schedule(static) num_threads(threads) if (par)
  for (long i = 1; i < n - 1; ++i) q[i] = phys::bl_saturation_point<T>(s[i - 1], s[i], s[i + 1], u[i - 1], u[i], c, mw, mo);
  q[0] = T(a.s_inj);
  q[n - 1] = q[n - 2];  // dS/dx = 0 at the producer (eq. 8)
}

void HostBackend::bl1d_face_mobility(const BLFaceMobilityArgs& a) {
  a.prec == Precision::Float ? face_mobility_t<float>(a, parallel_, threads_) : face_mobility_t<double>(a, parallel_, threads_);
}
void HostBackend::bl1d_face_velocity(const BLFaceVelocityArgs& a) {
  a.prec == Precision::Float ? face_velocity_t<float>(a, parallel_, threads_) : face_velocity_t<double>(a, parallel_, threads_);
}
void HostBackend::bl1d_saturation(const BLSaturationArgs& a) {
  if (a.n < 2) throw Error("bl1d_saturation needs at least 2 points");
  a.prec == Precision::Float ? saturation_t<float>(a, parallel_, threads_) : saturation_t<double>(a, parallel_, threads_);
}

template <class T>
static void pressure_system_t(const BLPressureSystemArgs& s, bool par, int threads) {
  const T* m = host_ptr<T>(*s.mface);
  T *a = host_ptr<T>(*s.a), *b = host_ptr<T>(*s.b), *c = host_ptr<T>(*s.c), *d = host_ptr<T>(*s.d);
  const long n = static_cast<long>(s.n);
  par = par && s.n >= kMinParallelPoints;
#pragma omp parallel for schedule(static) num_threads(threads) if (par)
  for (long i = 0; i < n; ++i)
    phys::bl_pressure_row<T>(i, n, i > 0 ? m[i - 1] : T(0), i < n - 1 ? m[i] : T(0), T(s.p_left), T(s.p_right), &a[i],
                             &b[i], &c[i], &d[i]);
}

void HostBackend::bl1d_pressure_system(const BLPressureSystemArgs& s) {
  s.prec == Precision::Float ? pressure_system_t<float>(s, parallel_, threads_)
                             : pressure_system_t<double>(s, parallel_, threads_);
}

std::unique_ptr<Backend> make_serial_backend() { return std::make_unique<HostBackend>(false); }

}  // namespace poreflow
