// Host side of the CUDA backend: device, one stream, buffers, scratch memory, and the order of
// launches. The kernels are in kernels_cu/ (reached through kernels_cu/launch.hpp); their
// semantics are those of the serial reference, core/reference/host_backend.cpp.
//
// Everything is enqueued on one stream, so work runs in call order; only download, sync,
// reduce_fetch, upload and the Combine::Host round trips wait for the device.
#include "backends/cuda/cuda_backend.hpp"

#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "backends/cuda/cuda_check.hpp"
#include "core/error.hpp"
#include "core/kernels/jacobi_ctrl.h"
#include "kernels_cu/adi2d.cuh"
#include "kernels_cu/launch.hpp"

namespace poreflow {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// For destructors, which cannot throw: log a failed release. At process exit a backend held in a
// static may be destroyed after the CUDA runtime has unloaded, which then frees everything
// itself; that case (cudaErrorCudartUnloading) is not worth a message.
void log_release(cudaError_t e, const char* what) {
  if (e == cudaSuccess || e == cudaErrorCudartUnloading) return;
  spdlog::error("{} failed: {}", what, cudaGetErrorString(e));
}

// ---- RAII for device, pinned host memory and the stream ---------------------------------------
// Destructors cannot throw: a failure there is logged (log_release).

class DeviceMem {
 public:
  DeviceMem() = default;
  explicit DeviceMem(std::size_t bytes) : bytes_(bytes) { PF_CHECK_CUDA(cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 1))); }
  ~DeviceMem() { release(); }
  DeviceMem(DeviceMem&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  DeviceMem& operator=(DeviceMem&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void release() {
    if (!ptr_) return;
    log_release(cudaFree(ptr_), "cudaFree");
    ptr_ = nullptr;
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class PinnedMem {
 public:
  PinnedMem() = default;
  explicit PinnedMem(std::size_t bytes) : bytes_(bytes) { PF_CHECK_CUDA(cudaMallocHost(&ptr_, std::max<std::size_t>(bytes, 1))); }
  ~PinnedMem() { release(); }
  PinnedMem(PinnedMem&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), bytes_(std::exchange(o.bytes_, 0)) {}
  PinnedMem& operator=(PinnedMem&& o) noexcept {
    if (this != &o) {
      release();
      ptr_ = std::exchange(o.ptr_, nullptr);
      bytes_ = std::exchange(o.bytes_, 0);
    }
    return *this;
  }
  void* get() const { return ptr_; }
  std::size_t bytes() const { return bytes_; }

 private:
  void release() {
    if (!ptr_) return;
    log_release(cudaFreeHost(ptr_), "cudaFreeHost");
    ptr_ = nullptr;
  }
  void* ptr_ = nullptr;
  std::size_t bytes_ = 0;
};

class Stream {
 public:
  // non-blocking: no implicit synchronisation with the legacy default stream
  explicit Stream(int device) {
    PF_CHECK_CUDA(cudaSetDevice(device));
    PF_CHECK_CUDA(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking));
  }
  ~Stream() {
    log_release(cudaStreamDestroy(s_), "cudaStreamDestroy");
  }
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  cudaStream_t get() const { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

// ---- buffers ----------------------------------------------------------------------------------

class CudaBuffer final : public Buffer {
 public:
  CudaBuffer(int device, std::size_t bytes) : Buffer(bytes), device_(device) {
    // at least one byte so that empty fields have a valid pointer (cudaMalloc aligns to 256)
    PF_CHECK_CUDA(cudaMalloc(&ptr_, std::max<std::size_t>(bytes, 1)));
  }
  ~CudaBuffer() override {
    // cudaFree waits for work that may still use the memory; it needs the owning device current
    int cur = -1;
    if (cudaGetDevice(&cur) == cudaSuccess && cur != device_) (void)cudaSetDevice(device_);
    log_release(cudaFree(ptr_), "cudaFree");
    if (cur >= 0 && cur != device_) (void)cudaSetDevice(cur);
  }
  void* data() const { return ptr_; }

 private:
  int device_;
  void* ptr_ = nullptr;
};

void* dptr(Buffer& b) { return static_cast<CudaBuffer&>(b).data(); }
const void* dptr(const Buffer& b) { return static_cast<const CudaBuffer&>(b).data(); }
template <class T>
T* dptr(Buffer& b) {
  return static_cast<T*>(dptr(b));
}
template <class T>
const T* dptr(const Buffer& b) {
  return static_cast<const T*>(dptr(b));
}

// the identity each op returns for n == 0 (as the serial reference does)
double reduce_identity(ReduceOp op) {
  switch (op) {
    case ReduceOp::Min: return std::numeric_limits<double>::infinity();
    case ReduceOp::Max: return -std::numeric_limits<double>::infinity();
    default: return 0.0;
  }
}

// One reduction value read back from the device: a T for sums and for CUB's results, an order
// key (kernels_cu/launch.hpp) for the max/min ops of the poreflow kernels.
double decode(const unsigned char* p, Precision prec, ReduceOp op, bool raw) {
  const bool key = !raw && op != ReduceOp::Sum;
  if (prec == Precision::Float) {
    unsigned int w;
    std::memcpy(&w, p, sizeof w);
    if (key) w = cu::key_bits(w);
    float f;
    std::memcpy(&f, &w, sizeof f);
    return f;
  }
  unsigned long long w;
  std::memcpy(&w, p, sizeof w);
  if (key) w = cu::key_bits(w);
  double d;
  std::memcpy(&d, &w, sizeof d);
  return d;
}

std::string device_line(int dev) {
  cudaDeviceProp prop{};
  if (cudaError_t e = cudaGetDeviceProperties(&prop, dev); e != cudaSuccess) {
    (void)cudaGetLastError();
    return std::to_string(dev) + ": cudaGetDeviceProperties failed: " + cudaGetErrorString(e);
  }
  char buf[512];
  std::snprintf(buf, sizeof buf, "%d: %s, %.1f GiB, %d SMs, cc %d.%d, L2 %.0f MiB", dev, prop.name,
                static_cast<double>(prop.totalGlobalMem) / kGiB, prop.multiProcessorCount, prop.major, prop.minor,
                static_cast<double>(prop.l2CacheSize) / (1024.0 * 1024.0));
  return buf;
}

// ---- cuSPARSE -------------------------------------------------------------------------------------

[[noreturn]] void throw_cusparse(cusparseStatus_t st, const char* what, const char* file, int line) {
  const std::string msg = std::string(what) + " failed: " + cusparseGetErrorString(st);
  throw BackendError(where(msg.c_str(), file, line));
}

#define PF_CHECK_CUSPARSE(call)                                                         \
  do {                                                                                  \
    cusparseStatus_t pf_sp_st_ = (call);                                                \
    if (pf_sp_st_ != CUSPARSE_STATUS_SUCCESS) throw_cusparse(pf_sp_st_, #call, __FILE__, __LINE__); \
  } while (0)

// The handle, created on first use and bound to the backend's stream.
class SparseHandle {
 public:
  SparseHandle() = default;
  ~SparseHandle() {
    if (!h_) return;
    if (cusparseStatus_t st = cusparseDestroy(h_); st != CUSPARSE_STATUS_SUCCESS)
      spdlog::error("cusparseDestroy failed: {}", cusparseGetErrorString(st));
  }
  SparseHandle(const SparseHandle&) = delete;
  SparseHandle& operator=(const SparseHandle&) = delete;
  cusparseHandle_t get(cudaStream_t stream) {
    if (!h_) {
      cusparseHandle_t h = nullptr;
      PF_CHECK_CUSPARSE(cusparseCreate(&h));
      h_ = h;
      PF_CHECK_CUSPARSE(cusparseSetStream(h_, stream));
    }
    return h_;
  }

 private:
  cusparseHandle_t h_ = nullptr;
};

// float and double entry points under one name
cusparseStatus_t gtsv2_strided_bytes(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du,
                                     const float* x, int count, int stride, std::size_t* bytes) {
  return cusparseSgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, count, stride, bytes);
}
cusparseStatus_t gtsv2_strided_bytes(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du,
                                     const double* x, int count, int stride, std::size_t* bytes) {
  return cusparseDgtsv2StridedBatch_bufferSizeExt(h, m, dl, d, du, x, count, stride, bytes);
}
cusparseStatus_t gtsv2_strided(cusparseHandle_t h, int m, const float* dl, const float* d, const float* du, float* x,
                               int count, int stride, void* ws) {
  return cusparseSgtsv2StridedBatch(h, m, dl, d, du, x, count, stride, ws);
}
cusparseStatus_t gtsv2_strided(cusparseHandle_t h, int m, const double* dl, const double* d, const double* du, double* x,
                               int count, int stride, void* ws) {
  return cusparseDgtsv2StridedBatch(h, m, dl, d, du, x, count, stride, ws);
}
cusparseStatus_t gtsv_interleaved_bytes(cusparseHandle_t h, int algo, int m, const float* dl, const float* d,
                                        const float* du, const float* x, int count, std::size_t* bytes) {
  return cusparseSgtsvInterleavedBatch_bufferSizeExt(h, algo, m, dl, d, du, x, count, bytes);
}
cusparseStatus_t gtsv_interleaved_bytes(cusparseHandle_t h, int algo, int m, const double* dl, const double* d,
                                        const double* du, const double* x, int count, std::size_t* bytes) {
  return cusparseDgtsvInterleavedBatch_bufferSizeExt(h, algo, m, dl, d, du, x, count, bytes);
}
cusparseStatus_t gtsv_interleaved(cusparseHandle_t h, int algo, int m, float* dl, float* d, float* du, float* x,
                                  int count, void* ws) {
  return cusparseSgtsvInterleavedBatch(h, algo, m, dl, d, du, x, count, ws);
}
cusparseStatus_t gtsv_interleaved(cusparseHandle_t h, int algo, int m, double* dl, double* d, double* du, double* x,
                                  int count, void* ws) {
  return cusparseDgtsvInterleavedBatch(h, algo, m, dl, d, du, x, count, ws);
}

// gtsvInterleavedBatch's algorithm: 1 (LU with partial pivoting), measured the fastest of its
// three on diagonally dominant systems from 513 rows up (25-35% ahead of 0, cuThomas, 2-15% ahead
// of 2, QR); on 33 and 129 rows 1 and 2 are within 2% and 0 is ahead only at 33 x 65536 double
// (docs/tridiag.md). It overwrites its diagonals, which are copies here anyway.
constexpr int kInterleavedAlgo = 1;

// ---- the backend ------------------------------------------------------------------------------

class CudaBackend final : public Backend {
 public:
  explicit CudaBackend(int device) : device_(device), stream_(device) {
    cudaDeviceProp prop{};
    PF_CHECK_CUDA(cudaGetDeviceProperties(&prop, device_));
    sms_ = prop.multiProcessorCount;
    int optin = 0;
    PF_CHECK_CUDA(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device_));
    smem_optin_ = static_cast<std::size_t>(optin);
    char buf[512];
    std::snprintf(buf, sizeof buf, "%s (cc %d.%d, %d SMs, %.1f GiB)", prop.name, prop.major, prop.minor, sms_,
                  static_cast<double>(prop.totalGlobalMem) / kGiB);
    device_name_ = buf;
    // fixed scratch: [0, 8) the reduction result, [8, 12) Fast's last-block counter (kept at 0
    // between calls by the kernel itself), [256, ...) Fast's per-block partials
    fixed_ = DeviceMem(kPartialsOffset + static_cast<std::size_t>(cu::kFastMaxGrid) * sizeof(double));
    PF_CHECK_CUDA(cudaMemsetAsync(fixed_.get(), 0, fixed_.bytes(), stream()));
    h_result_ = PinnedMem(sizeof(double));
    h_ctrl_ = PinnedMem(2 * PF_JCTRL_WORDS * sizeof(std::uint64_t));  // read-back block + upload staging
    PF_CHECK_CUDA(cudaStreamSynchronize(stream()));
  }

  ~CudaBackend() override {
    // let enqueued work finish before its scratch memory goes away; members free the rest
    (void)cudaSetDevice(device_);
    log_release(cudaStreamSynchronize(stream()), "cudaStreamSynchronize (cuda backend shutdown)");
  }

  std::string name() const override { return "cuda"; }
  std::string device_name() const override { return device_name_; }
  std::vector<ReduceVariant> reduce_variants() const override {
    return {ReduceVariant::Fast,           ReduceVariant::CompleteUnroll, ReduceVariant::UnrollLastWarp,
            ReduceVariant::Sequential,     ReduceVariant::Interleaved,    ReduceVariant::InterleavedDivergent};
  }

  // ---- memory ----
  std::unique_ptr<Buffer> alloc(std::size_t bytes) override {
    activate();
    return std::make_unique<CudaBuffer>(device_, bytes);
  }

  void upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) override {
    check_range(dst, bytes, offset, "upload");
    if (bytes == 0) return;
    activate();
    PF_CHECK_CUDA(cudaMemcpyAsync(static_cast<char*>(dptr(dst)) + offset, src, bytes, cudaMemcpyHostToDevice, stream()));
    // ordered after the work enqueued before it; waiting makes `src` free to reuse whatever memory it is
    PF_CHECK_CUDA(cudaStreamSynchronize(stream()));
  }

  void download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset) override {
    check_range(src, bytes, offset, "download");
    if (bytes == 0) return;
    activate();
    PF_CHECK_CUDA(
        cudaMemcpyAsync(dst, static_cast<const char*>(dptr(src)) + offset, bytes, cudaMemcpyDeviceToHost, stream()));
    PF_CHECK_CUDA(cudaStreamSynchronize(stream()));
  }

  void copy(const Buffer& src, Buffer& dst, std::size_t bytes) override {
    check_range(src, bytes, 0, "copy");
    check_range(dst, bytes, 0, "copy");
    if (bytes == 0) return;
    activate();
    PF_CHECK_CUDA(cudaMemcpyAsync(dptr(dst), dptr(src), bytes, cudaMemcpyDeviceToDevice, stream()));
  }

  void fill(Buffer& dst, Precision prec, double value, std::size_t n) override {
    check_range(dst, n * size_of(prec), 0, "fill");
    if (n == 0) return;
    activate();
    if (prec == Precision::Float) cu::launch_fill<float>(dptr<float>(dst), static_cast<float>(value), n, stream());
    else cu::launch_fill<double>(dptr<double>(dst), value, n, stream());
    PF_CHECK_LAUNCH("fill");
  }

  void axpy(Precision prec, std::size_t n, double alpha, const Buffer& x, Buffer& y) override {
    check_range(x, n * size_of(prec), 0, "axpy");
    check_range(y, n * size_of(prec), 0, "axpy");
    if (n == 0) return;
    activate();
    if (prec == Precision::Float)
      cu::launch_axpy<float>(n, static_cast<float>(alpha), dptr<float>(x), dptr<float>(y), stream());
    else
      cu::launch_axpy<double>(n, alpha, dptr<double>(x), dptr<double>(y), stream());
    PF_CHECK_LAUNCH("axpy");
  }

  void sync() override {
    activate();
    PF_CHECK_CUDA(cudaStreamSynchronize(stream()));
  }

  // ---- reduce ----
  void reduce_enqueue(const ReduceArgs& args) override {
    check_reduce_args(args);
    check_reduce_config(args.cfg);
    if (args.n == 0) {
      pending_ = {PendingKind::Value, args.op, args.prec, false, 0, reduce_identity(args.op)};
      return;
    }
    activate();
    if (args.prec == Precision::Float) reduce_t<float>(args);
    else reduce_t<double>(args);
  }

  double reduce_fetch() override {
    switch (pending_.kind) {
      case PendingKind::None: throw BackendError("reduce_fetch: no reduction was enqueued");
      case PendingKind::Value: return pending_.value;
      case PendingKind::Result:
        sync();
        pending_.value = decode(static_cast<const unsigned char*>(h_result_.get()), pending_.prec, pending_.op, pending_.raw);
        break;
      case PendingKind::Partials: {
        // Combine::Host: the per-block results, copied to the host by reduce_enqueue, combined in double
        sync();
        const auto* p = static_cast<const unsigned char*>(h_red_partials_.get());
        const std::size_t sz = size_of(pending_.prec);
        double r = reduce_identity(pending_.op);
        for (std::size_t j = 0; j < pending_.count; ++j) {
          const double x = decode(p + j * sz, pending_.prec, pending_.op, false);
          if (pending_.op == ReduceOp::Sum) r += x;
          else if (pending_.op == ReduceOp::Min) r = (x < r || std::isnan(x)) ? x : r;
          else r = (x > r || std::isnan(x)) ? x : r;  // NaN wins, as in the device's key max
        }
        pending_.value = r;
        break;
      }
    }
    pending_.kind = PendingKind::Value;  // fetching again returns the same result
    return pending_.value;
  }

  std::string vendor_reduce_name() const override { return "cub"; }

  void vendor_reduce_enqueue(const ReduceArgs& args) override {
    check_reduce_args(args);
    if (args.n == 0) {
      pending_ = {PendingKind::Value, args.op, args.prec, true, 0, reduce_identity(args.op)};
      return;
    }
    activate();
    if (args.prec == Precision::Float) vendor_t<float>(args);
    else vendor_t<double>(args);
  }

  // ---- jacobi1d ----
  void jacobi1d_iterate(const Jacobi1DArgs& args, long first, long count) override {
    if (args.n < 3) throw Error("jacobi1d needs at least 3 points");
    if (args.check_every < 1) throw ConfigError("jacobi1d: check_every must be at least 1");
    if (first < 0) throw Error("jacobi1d: negative first iteration");
    if (!args.p[0] || !args.p[1] || !args.mface || !args.ctrl) throw Error("jacobi1d: missing buffer");
    check_reduce_config(args.reduce);
    const std::size_t sz = size_of(args.prec);
    check_range(*args.p[0], args.n * sz, 0, "jacobi1d p[0]");
    check_range(*args.p[1], args.n * sz, 0, "jacobi1d p[1]");
    check_range(*args.mface, (args.n - 1) * sz, 0, "jacobi1d mface");
    check_range(*args.ctrl, PF_JCTRL_WORDS * sizeof(std::uint64_t), 0, "jacobi1d ctrl");
    if (count <= 0) return;
    activate();
    if (args.prec == Precision::Float) jacobi_t<float>(args, first, count);
    else jacobi_t<double>(args, first, count);
  }

  // ---- bl1d ----
  void bl1d_face_mobility(const BLFaceMobilityArgs& a) override {
    if (a.n < 2) return;  // no faces
    const std::size_t sz = size_of(a.prec);
    check_range(*a.s, a.n * sz, 0, "bl1d_face_mobility s");
    check_range(*a.mface, (a.n - 1) * sz, 0, "bl1d_face_mobility mface");
    activate();
    if (a.prec == Precision::Float)
      cu::launch_bl_face_mobility<float>(dptr<float>(*a.s), dptr<float>(*a.mface), a.n, float(a.phys.k), float(a.phys.mu_w),
                                         float(a.phys.mu_o), stream());
    else
      cu::launch_bl_face_mobility<double>(dptr<double>(*a.s), dptr<double>(*a.mface), a.n, a.phys.k, a.phys.mu_w,
                                          a.phys.mu_o, stream());
    PF_CHECK_LAUNCH("bl1d_face_mobility");
  }

  void bl1d_face_velocity(const BLFaceVelocityArgs& a) override {
    if (a.n < 2) return;
    const std::size_t sz = size_of(a.prec);
    check_range(*a.p, a.n * sz, 0, "bl1d_face_velocity p");
    check_range(*a.mface, (a.n - 1) * sz, 0, "bl1d_face_velocity mface");
    check_range(*a.u, (a.n - 1) * sz, 0, "bl1d_face_velocity u");
    activate();
    if (a.prec == Precision::Float)
      cu::launch_bl_face_velocity<float>(dptr<float>(*a.p), dptr<float>(*a.mface), dptr<float>(*a.u), a.n, float(a.inv_h),
                                         stream());
    else
      cu::launch_bl_face_velocity<double>(dptr<double>(*a.p), dptr<double>(*a.mface), dptr<double>(*a.u), a.n, a.inv_h,
                                          stream());
    PF_CHECK_LAUNCH("bl1d_face_velocity");
  }

  void bl1d_saturation(const BLSaturationArgs& a) override {
    if (a.n < 2) throw Error("bl1d_saturation needs at least 2 points");
    const std::size_t sz = size_of(a.prec);
    check_range(*a.s_old, a.n * sz, 0, "bl1d_saturation s_old");
    check_range(*a.u, (a.n - 1) * sz, 0, "bl1d_saturation u");
    check_range(*a.s_new, a.n * sz, 0, "bl1d_saturation s_new");
    activate();
    if (a.prec == Precision::Float)
      cu::launch_bl_saturation<float>(dptr<float>(*a.s_old), dptr<float>(*a.u), dptr<float>(*a.s_new), a.n, float(a.c),
                                      float(a.s_inj), float(a.phys.mu_w), float(a.phys.mu_o), stream());
    else
      cu::launch_bl_saturation<double>(dptr<double>(*a.s_old), dptr<double>(*a.u), dptr<double>(*a.s_new), a.n, a.c,
                                       a.s_inj, a.phys.mu_w, a.phys.mu_o, stream());
    PF_CHECK_LAUNCH("bl1d_saturation");
  }

  // ---- tridiag ----
  // Enqueued only: scratch grows (with a wait) on the first call of a larger size, never after.
  void bl1d_pressure_system(const BLPressureSystemArgs& a) override {
    const std::size_t sz = size_of(a.prec);
    if (a.n >= 2) check_range(*a.mface, (a.n - 1) * sz, 0, "bl1d_pressure_system mface");
    for (const Buffer* b : {a.a, a.b, a.c, a.d}) check_range(*b, a.n * sz, 0, "bl1d_pressure_system system");
    activate();
    if (a.prec == Precision::Float)
      cu::launch_bl_pressure_system<float>(dptr<float>(*a.mface), a.n, float(a.p_left), float(a.p_right),
                                           dptr<float>(*a.a), dptr<float>(*a.b), dptr<float>(*a.c), dptr<float>(*a.d),
                                           stream());
    else
      cu::launch_bl_pressure_system<double>(dptr<double>(*a.mface), a.n, a.p_left, a.p_right, dptr<double>(*a.a),
                                            dptr<double>(*a.b), dptr<double>(*a.c), dptr<double>(*a.d), stream());
    PF_CHECK_LAUNCH("bl1d_pressure_system");
  }

  // ---- adi2d: one thread per node around the shared stencils (kernels_cu/adi2d.cu) ----
  void adi2d_flash(const Adi2DFlashArgs& a) override {
    activate();
    a.prec == Precision::Float ? adi_flash_t<float>(a) : adi_flash_t<double>(a);
    PF_CHECK_LAUNCH("adi2d_flash");
  }
  void adi2d_coefficients(const Adi2DCoeffArgs& a) override {
    activate();
    a.prec == Precision::Float ? adi_coefficients_t<float>(a) : adi_coefficients_t<double>(a);
    PF_CHECK_LAUNCH("adi2d_coefficients");
  }
  void adi2d_sweep(const Adi2DSweepArgs& a) override {
    activate();
    a.prec == Precision::Float ? adi_sweep_t<float>(a) : adi_sweep_t<double>(a);
    PF_CHECK_LAUNCH("adi2d_sweep");
  }
  void adi2d_total_velocity(const Adi2DVelocityArgs& a) override {
    activate();
    a.prec == Precision::Float ? adi_velocity_t<float>(a) : adi_velocity_t<double>(a);
    PF_CHECK_LAUNCH("adi2d_total_velocity");
  }
  void adi2d_transport(const Adi2DTransportArgs& a) override {
    activate();
    a.prec == Precision::Float ? adi_transport_t<float>(a) : adi_transport_t<double>(a);
    PF_CHECK_LAUNCH("adi2d_transport");
  }
  void adi2d_rate(const Adi2DRateArgs& a) override {
    activate();
    a.prec == Precision::Float ? adi_rate_t<float>(a) : adi_rate_t<double>(a);
    PF_CHECK_LAUNCH("adi2d_rate");
  }

  void tridiag_solve(const TridiagArgs& args) override {
    check_tridiag_args(args, "tridiag_solve");
    if (args.n == 0 || args.batch == 0) return;
    activate();
    cu::TridiagLaunch l = tridiag_launch(args);
    l.algo = args.algo == TridiagAlgo::Auto ? resolve_tridiag_algo(args) : args.algo;
    if (args.prec == Precision::Float) tridiag_t<float>(l);
    else tridiag_t<double>(l);
  }

  TridiagAlgo resolve_tridiag_algo(const TridiagArgs& args) const override {
    return cu::tridiag_auto(args.prec, args.layout, args.n, args.batch);
  }

  std::string vendor_tridiag_name(TridiagLayout layout) const override {
    return layout == TridiagLayout::Contiguous ? "cusparse_gtsv2StridedBatch" : "cusparse_gtsvInterleavedBatch";
  }

  // cuSPARSE on the same data: it overwrites the right-hand side with the solution and wants the
  // ignored couplings zero, so x = d and zero-ended copies of a and c are made first (and of b for
  // gtsvInterleavedBatch, which takes its diagonals as writable arrays).
  void vendor_tridiag_solve(const TridiagArgs& args) override {
    check_tridiag_args(args, "vendor_tridiag_solve");
    if (args.n == 0 || args.batch == 0) return;
    if (args.n < 3)
      throw BackendError("cuSPARSE's batched tridiagonal solvers need n >= 3 (n = " + std::to_string(args.n) + ")");
    const std::size_t imax = static_cast<std::size_t>(std::numeric_limits<int>::max());
    if (args.n > imax || args.batch > imax || (args.layout == TridiagLayout::Contiguous && args.n * args.batch > imax))
      throw BackendError("vendor_tridiag_solve: n = " + std::to_string(args.n) + ", batch = " + std::to_string(args.batch) +
                         " exceed cuSPARSE's int sizes");
    activate();
    if (args.prec == Precision::Float) vendor_tridiag_t<float>(args);
    else vendor_tridiag_t<double>(args);
  }

 private:
  static constexpr std::size_t kResultOffset = 0;
  static constexpr std::size_t kCounterOffset = 8;
  static constexpr std::size_t kPartialsOffset = 256;

  // adi2d dispatch: every node array holds nx * ny values
  template <class T>
  const T* node_in(const Buffer* b, const Adi2DGeom& g, const char* what) const {
    check_range(*b, g.nx * g.ny * sizeof(T), 0, what);
    return dptr<T>(*b);
  }
  template <class T>
  T* node_out(Buffer* b, const Adi2DGeom& g, const char* what) const {
    check_range(*b, g.nx * g.ny * sizeof(T), 0, what);
    return dptr<T>(*b);
  }
  template <class T>
  const T* props_in(const Buffer* b, const Adi2DGeom& g) const {
    check_range(*b, kAdi2DProps * g.nx * g.ny * sizeof(T), 0, "adi2d props");
    return dptr<T>(*b);
  }
  template <class T>
  T* props_out(Buffer* b, const Adi2DGeom& g) const {
    check_range(*b, kAdi2DProps * g.nx * g.ny * sizeof(T), 0, "adi2d props");
    return dptr<T>(*b);
  }
  static cu::Adi2DGrid grid2d(const Adi2DGeom& g) { return {static_cast<long>(g.nx), static_cast<long>(g.ny)}; }

  template <class T>
  void adi_flash_t(const Adi2DFlashArgs& a) {
    const T* m[4];
    for (int c = 0; c < 4; ++c) m[c] = node_in<T>(a.mass[c], a.g, "adi2d_flash mass");
    cu::adi2d_flash<T>(stream(), grid2d(a.g), T(a.g.h), dptr<T>(*a.prm), m, node_in<T>(a.p, a.g, "adi2d_flash p"),
                       node_out<T>(a.sw, a.g, "sw"), node_out<T>(a.so, a.g, "so"), node_out<T>(a.sg, a.g, "sg"),
                       node_out<T>(a.co3, a.g, "co3"), node_out<T>(a.cg3, a.g, "cg3"), node_out<T>(a.vol, a.g, "vol"), props_out<T>(a.props, a.g));
  }
  template <class T>
  void adi_coefficients_t(const Adi2DCoeffArgs& a) {
    const auto& s = a.st;
    const auto& g = a.g;
    cu::adi2d_coefficients<T>(stream(), grid2d(g), T(g.h), T(a.dt), dptr<T>(*a.prm), node_in<T>(s.p, g, "p"),
                              node_in<T>(s.sw, g, "sw"), node_in<T>(s.so, g, "so"), node_in<T>(s.sg, g, "sg"),
                              node_in<T>(s.co3, g, "co3"), node_in<T>(s.cg3, g, "cg3"), props_in<T>(s.props, g), node_in<T>(a.vol, g, "vol"),
                              node_in<T>(a.wells.inj, g, "inj"), node_in<T>(a.wells.prod, g, "prod"), T(a.wells.p_bh),
                              node_out<T>(a.aw, g, "aw"), node_out<T>(a.ae, g, "ae"), node_out<T>(a.as, g, "as"),
                              node_out<T>(a.an, g, "an"), node_out<T>(a.d0, g, "d0"), node_out<T>(a.rhs, g, "rhs"));
  }
  template <class T>
  void adi_sweep_t(const Adi2DSweepArgs& a) {
    const auto& g = a.g;
    cu::adi2d_sweep<T>(stream(), grid2d(g), a.x_sweep, T(a.r), node_in<T>(a.aw, g, "aw"), node_in<T>(a.ae, g, "ae"),
                       node_in<T>(a.as, g, "as"), node_in<T>(a.an, g, "an"), node_in<T>(a.d0, g, "d0"),
                       node_in<T>(a.rhs, g, "rhs"), node_in<T>(a.p, g, "p"), node_out<T>(a.a, g, "a"),
                       node_out<T>(a.b, g, "b"), node_out<T>(a.c, g, "c"), node_out<T>(a.d, g, "d"));
  }
  template <class T>
  void adi_velocity_t(const Adi2DVelocityArgs& a) {
    const auto& s = a.st;
    const auto& g = a.g;
    cu::adi2d_total_velocity<T>(stream(), grid2d(g), dptr<T>(*a.prm), node_in<T>(s.p, g, "p"), node_in<T>(s.sw, g, "sw"),
                                node_in<T>(s.so, g, "so"), node_in<T>(s.sg, g, "sg"), node_in<T>(s.co3, g, "co3"),
                                node_in<T>(s.cg3, g, "cg3"), props_in<T>(s.props, g), node_out<T>(a.ux, g, "ux"), node_out<T>(a.uy, g, "uy"));
  }
  template <class T>
  void adi_transport_t(const Adi2DTransportArgs& a) {
    const auto& s = a.st;
    const auto& g = a.g;
    const T* m[4];
    T* out[4];
    T* acc[4];
    for (int c = 0; c < 4; ++c) {
      m[c] = node_in<T>(a.mass_in[c], g, "mass_in");
      out[c] = node_out<T>(a.mass_out[c], g, "mass_out");
      acc[c] = node_out<T>(a.acc[c], g, "acc");
    }
    cu::adi2d_transport<T>(stream(), grid2d(g), T(a.dt), dptr<T>(*a.prm), node_in<T>(s.p, g, "p"),
                           node_in<T>(s.sw, g, "sw"), node_in<T>(s.so, g, "so"), node_in<T>(s.sg, g, "sg"),
                           node_in<T>(s.co3, g, "co3"), node_in<T>(s.cg3, g, "cg3"), props_in<T>(s.props, g), node_in<T>(a.ux, g, "ux"),
                           node_in<T>(a.uy, g, "uy"), node_in<T>(a.wells.inj, g, "inj"),
                           node_in<T>(a.wells.prod, g, "prod"), T(a.wells.p_bh), m, out, acc);
  }
  template <class T>
  void adi_rate_t(const Adi2DRateArgs& a) {
    const auto& s = a.st;
    const auto& g = a.g;
    cu::adi2d_rate<T>(stream(), grid2d(g), T(g.h), dptr<T>(*a.prm), node_in<T>(s.p, g, "p"), node_in<T>(s.sw, g, "sw"),
                      node_in<T>(s.so, g, "so"), node_in<T>(s.sg, g, "sg"), node_in<T>(s.co3, g, "co3"),
                      node_in<T>(s.cg3, g, "cg3"), props_in<T>(s.props, g), node_in<T>(a.ux, g, "ux"), node_in<T>(a.uy, g, "uy"),
                      node_in<T>(a.vol, g, "vol"), node_in<T>(a.wells.prod, g, "prod"), T(a.wells.p_bh),
                      node_out<T>(a.rate, g, "rate"));
  }

  enum class PendingKind { None, Value, Result, Partials };
  struct Pending {
    PendingKind kind = PendingKind::None;
    ReduceOp op = ReduceOp::Sum;
    Precision prec = Precision::Double;
    bool raw = false;        // the result is a T (CUB), not a key
    std::size_t count = 0;   // partials (Combine::Host)
    double value = 0;        // PendingKind::Value
  };

  cudaStream_t stream() const { return stream_.get(); }
  // the calling thread may have another device current (several backends in one process)
  void activate() const { PF_CHECK_CUDA(cudaSetDevice(device_)); }

  char* fixed(std::size_t offset) const { return static_cast<char*>(fixed_.get()) + offset; }

  // Grows scratch memory; waits first, since enqueued work may still use the old allocation.
  void ensure(DeviceMem& m, std::size_t bytes) {
    if (m.get() && m.bytes() >= bytes) return;
    PF_CHECK_CUDA(cudaStreamSynchronize(stream()));
    const std::size_t grown = std::max(bytes, m.bytes() * 2);  // amortised growth
    m = DeviceMem();
    m = DeviceMem(grown);
  }
  void ensure(PinnedMem& m, std::size_t bytes) {
    if (m.get() && m.bytes() >= bytes) return;
    PF_CHECK_CUDA(cudaStreamSynchronize(stream()));
    m = PinnedMem();
    m = PinnedMem(bytes);
  }

  cu::TridiagLaunch tridiag_launch(const TridiagArgs& args) const {
    cu::TridiagLaunch l;
    l.layout = args.layout;
    l.n = args.n;
    l.batch = args.batch;
    l.a = dptr(*args.a);
    l.b = dptr(*args.b);
    l.c = dptr(*args.c);
    l.d = dptr(*args.d);
    l.x = dptr(*args.x);
    l.max_smem = smem_optin_;
    l.sm_count = sms_;
    return l;
  }

  template <class T>
  void tridiag_t(cu::TridiagLaunch& l) {
    if (const std::size_t bytes = cu::tridiag_scratch_bytes<T>(l); bytes > 0) {
      ensure(tri_scratch_, bytes);
      l.scratch = tri_scratch_.get();
    }
    cu::launch_tridiag<T>(l, stream());
    PF_CHECK_LAUNCH("tridiag_solve");
  }

  template <class T>
  void vendor_tridiag_t(const TridiagArgs& args) {
    const bool inter = args.layout == TridiagLayout::Interleaved;
    const std::size_t nb = args.n * args.batch;
    ensure(vendor_coef_, (inter ? 3 : 2) * nb * sizeof(T));
    T* a0 = static_cast<T*>(vendor_coef_.get());
    T* c0 = a0 + nb;
    T* b0 = inter ? c0 + nb : nullptr;
    T* x = dptr<T>(*args.x);
    cu::launch_tridiag_vendor_prep<T>(dptr<T>(*args.a), dptr<T>(*args.b), dptr<T>(*args.c), dptr<T>(*args.d), a0, b0, c0,
                                      x, args.n, args.batch, args.layout, stream());
    PF_CHECK_LAUNCH("tridiag vendor prep");
    cusparseHandle_t h = sparse_.get(stream());
    const int m = static_cast<int>(args.n), count = static_cast<int>(args.batch);
    const T* b = dptr<T>(*args.b);
    // the workspace size is asked once per shape
    const VendorKey key{args.prec, args.layout, args.n, args.batch};
    if (!(key == vendor_key_)) {
      std::size_t bytes = 0;
      if (inter) PF_CHECK_CUSPARSE(gtsv_interleaved_bytes(h, kInterleavedAlgo, m, a0, b0, c0, x, count, &bytes));
      else PF_CHECK_CUSPARSE(gtsv2_strided_bytes(h, m, a0, b, c0, x, count, m, &bytes));
      ensure(vendor_ws_, std::max<std::size_t>(bytes, 1));
      vendor_key_ = key;
    }
    if (inter) PF_CHECK_CUSPARSE(gtsv_interleaved(h, kInterleavedAlgo, m, a0, b0, c0, x, count, vendor_ws_.get()));
    else PF_CHECK_CUSPARSE(gtsv2_strided(h, m, a0, b, c0, x, count, m, vendor_ws_.get()));
    PF_CHECK_LAUNCH(inter ? "cusparse gtsvInterleavedBatch" : "cusparse gtsv2StridedBatch");
  }

  void check_reduce_args(const ReduceArgs& args) const {
    if (args.op == ReduceOp::MaxAbsDiff && !args.b) throw Error("max_abs_diff needs two inputs");
    if (args.n == 0) return;
    if (!args.a) throw Error("reduce: no input buffer");
    const std::size_t bytes = args.n * size_of(args.prec);
    check_range(*args.a, bytes, 0, "reduce a");
    if (args.op == ReduceOp::MaxAbsDiff) check_range(*args.b, bytes, 0, "reduce b");
  }

  template <class T>
  void reduce_t(const ReduceArgs& args) {
    cu::ReduceLaunch l;
    l.op = args.op;
    l.variant = args.cfg.variant;
    l.block = args.cfg.block;
    l.a = dptr(*args.a);
    l.b = args.op == ReduceOp::MaxAbsDiff ? dptr(*args.b) : nullptr;
    l.n = args.n;
    l.grid = cu::reduce_grid(l.variant, l.block, l.n, sms_);
    if (l.grid > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw BackendError("reduce: " + std::to_string(args.n) + " elements need more blocks than a grid holds");
    const bool fast = l.variant == ReduceVariant::Fast;
    const char* kname = fast ? "reduce (fast)" : "reduce (paper variant)";

    if (args.cfg.combine == Combine::Host) {
      // each block's partial goes to the host, which combines them in reduce_fetch (papers 001, 003)
      const std::size_t bytes = l.grid * sizeof(T);
      ensure(partials_, bytes);
      ensure(h_red_partials_, bytes);
      l.host_combine = true;
      l.partials = partials_.get();
      cu::launch_reduce<T>(l, stream());
      PF_CHECK_LAUNCH(kname);
      PF_CHECK_CUDA(cudaMemcpyAsync(h_red_partials_.get(), partials_.get(), bytes, cudaMemcpyDeviceToHost, stream()));
      pending_ = {PendingKind::Partials, args.op, args.prec, false, l.grid, 0.0};
      return;
    }
    l.result = fixed(kResultOffset);
    if (fast) {
      // one pass; the kernel's last block writes the result and re-arms the counter
      l.partials = fixed(kPartialsOffset);
      l.counter = reinterpret_cast<unsigned int*>(fixed(kCounterOffset));
    } else {
      // the atomic slot starts at the op's neutral key: 0 for sums and maxima, all ones for minima
      PF_CHECK_CUDA(cudaMemsetAsync(l.result, args.op == ReduceOp::Min ? 0xff : 0, sizeof(T), stream()));
    }
    cu::launch_reduce<T>(l, stream());
    PF_CHECK_LAUNCH(kname);
    PF_CHECK_CUDA(cudaMemcpyAsync(h_result_.get(), l.result, sizeof(T), cudaMemcpyDeviceToHost, stream()));
    pending_ = {PendingKind::Result, args.op, args.prec, false, 0, 0.0};
  }

  template <class T>
  void vendor_t(const ReduceArgs& args) {
    const T* a = dptr<T>(*args.a);
    const T* b = args.op == ReduceOp::MaxAbsDiff ? dptr<T>(*args.b) : nullptr;
    T* out = reinterpret_cast<T*>(fixed(kResultOffset));
    std::size_t bytes = 0;
    PF_CHECK_CUDA(cu::cub_reduce<T>(args.op, a, b, args.n, out, nullptr, bytes, stream()));
    ensure(cub_temp_, std::max<std::size_t>(bytes, 1));  // allocated once, grown when needed
    bytes = cub_temp_.bytes();
    PF_CHECK_CUDA(cu::cub_reduce<T>(args.op, a, b, args.n, out, cub_temp_.get(), bytes, stream()));
    PF_CHECK_LAUNCH("cub::DeviceReduce");
    PF_CHECK_CUDA(cudaMemcpyAsync(h_result_.get(), out, sizeof(T), cudaMemcpyDeviceToHost, stream()));
    pending_ = {PendingKind::Result, args.op, args.prec, true, 0, 0.0};
  }

  // Iteration `it` reads p[it % 2] and writes p[(it + 1) % 2]. Its roles, worked out here once:
  // after a check (it >= k, it % k == 0) it first decides from check it/k - 1's slot; it is a
  // check when (it + 1) % k == 0, check c = (it + 1)/k - 1 going to slot c % 3 and zeroing
  // slot (c + 1) % 3 for the next check. The launches are enqueued back to back; with
  // Combine::Host every check is followed by a round trip that combines the block maxima.
  template <class T>
  void jacobi_t(const Jacobi1DArgs& args, long first, long count) {
    using K = cu::bits_t<T>;
    cu::JacobiLaunch l;
    l.variant = args.reduce.variant;
    l.block = args.reduce.block;
    l.grid = cu::jacobi_grid(l.variant, l.block, args.n, sms_);
    if (l.grid > static_cast<std::size_t>(std::numeric_limits<int>::max()))
      throw BackendError("jacobi1d: " + std::to_string(args.n) + " points need more blocks than a grid holds");
    l.mface = dptr(*args.mface);
    l.n = args.n;
    l.p_left = args.p_left;
    l.p_right = args.p_right;
    l.threshold = args.threshold;
    l.residual = args.metric == JacobiMetric::Residual;
    l.ctrl = static_cast<unsigned long long*>(dptr(*args.ctrl));
    const bool host = args.reduce.combine == Combine::Host;
    if (host) {
      ensure(partials_, l.grid * sizeof(K));
      ensure(h_jac_partials_, l.grid * sizeof(K));
      l.partials = partials_.get();
    }
    const long k = args.check_every;
    for (long it = first; it < first + count; ++it) {
      l.it = it;
      l.p = dptr(*args.p[it % 2]);
      l.q = dptr(*args.p[(it + 1) % 2]);
      l.decide_slot = (it >= k && it % k == 0) ? static_cast<int>((it / k - 1) % PF_JCTRL_NSLOTS) : -1;
      l.check = (it + 1) % k == 0;
      if (l.check) {
        const long c = (it + 1) / k - 1;
        l.check_slot = static_cast<int>(c % PF_JCTRL_NSLOTS);
        l.clear_slot = static_cast<int>((c + 1) % PF_JCTRL_NSLOTS);
      }
      cu::launch_jacobi1d<T>(l, stream());
      PF_CHECK_LAUNCH("jacobi1d");
      if (l.check && host && !host_check_round_trip<K>(l)) return;
    }
  }

  // Combine::Host after a check launch: wait, read the control block and the block maxima, and
  // write the check's slot (and the next one, zeroed) back. Returns false once converged: the
  // launch then wrote no partials, and the launches left would return at once anyway.
  template <class K>
  bool host_check_round_trip(const cu::JacobiLaunch& l) {
    auto* h = static_cast<std::uint64_t*>(h_ctrl_.get());  // [0, 8): read back; [8, 11): upload
    const std::size_t bytes = l.grid * sizeof(K);
    PF_CHECK_CUDA(cudaMemcpyAsync(h, l.ctrl, PF_JCTRL_WORDS * sizeof(std::uint64_t), cudaMemcpyDeviceToHost, stream()));
    PF_CHECK_CUDA(cudaMemcpyAsync(h_jac_partials_.get(), l.partials, bytes, cudaMemcpyDeviceToHost, stream()));
    PF_CHECK_CUDA(cudaStreamSynchronize(stream()));
    if (h[PF_JCTRL_CONVERGED]) return false;
    const K* part = static_cast<const K*>(h_jac_partials_.get());
    K m = 0;
    for (std::size_t j = 0; j < l.grid; ++j) m = std::max(m, part[j]);  // bit patterns of values >= 0
    std::uint64_t* up = h + PF_JCTRL_WORDS;
    for (int s = 0; s < PF_JCTRL_NSLOTS; ++s) up[s] = h[PF_JCTRL_SLOT0 + s];
    up[l.check_slot] = static_cast<std::uint64_t>(m);  // a float's bits in the low half
    up[l.clear_slot] = 0;
    // the staging words are rewritten only after the next round trip's wait, so this may be async
    PF_CHECK_CUDA(cudaMemcpyAsync(l.ctrl + PF_JCTRL_SLOT0, up, PF_JCTRL_NSLOTS * sizeof(std::uint64_t),
                                  cudaMemcpyHostToDevice, stream()));
    return true;
  }

  int device_;
  Stream stream_;  // declared before the memory: destroyed after it
  int sms_ = 1;
  std::string device_name_;
  DeviceMem fixed_;     // result slot, Fast counter and partials
  DeviceMem partials_;  // Combine::Host partials (reduce and jacobi1d)
  DeviceMem cub_temp_;
  PinnedMem h_result_, h_red_partials_, h_jac_partials_, h_ctrl_;
  Pending pending_;
  // tridiag
  struct VendorKey {
    Precision prec = Precision::Double;
    TridiagLayout layout = TridiagLayout::Contiguous;
    std::size_t n = 0, batch = 0;
    bool operator==(const VendorKey&) const = default;
  };
  std::size_t smem_optin_ = 48 * 1024;
  DeviceMem tri_scratch_;           // Thomas' c', the global PCR levels
  DeviceMem vendor_coef_, vendor_ws_;
  VendorKey vendor_key_;            // the shape vendor_ws_ was sized for
  SparseHandle sparse_;             // after stream_: destroyed before it
};

}  // namespace

int cuda_device_count() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();  // no driver or no device: not an error for the caller
    return 0;
  }
  return n;
}

std::vector<std::string> cuda_describe_devices() {
  int n = 0;
  cudaError_t e = cudaGetDeviceCount(&n);
  if (e != cudaSuccess) {
    (void)cudaGetLastError();
    return {std::string("no CUDA device (") + cudaGetErrorString(e) + ")"};
  }
  if (n == 0) return {"no CUDA device"};
  std::vector<std::string> lines;
  for (int d = 0; d < n; ++d) lines.push_back(device_line(d));
  return lines;
}

std::unique_ptr<Backend> make_cuda_backend(int device) {
  const int n = cuda_device_count();
  if (device < 0 || device >= n)
    throw ConfigError("CUDA device " + std::to_string(device) + " does not exist (" + std::to_string(n) + " device(s))");
  return std::make_unique<CudaBackend>(device);
}

}  // namespace poreflow
