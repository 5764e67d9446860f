// The CUDA backend: device memory and copies on the context's one stream (backends/cuda/
// context.hpp), and one implementation per kernel family (backends/cuda/<family>.cpp). Work runs
// in call order; only download, sync, upload and the families' reads wait for the device.
#include "backends/cuda/cuda_backend.hpp"

#include <cuda_runtime_api.h>

#include <cstdio>
#include <string>
#include <vector>

#include "backends/cuda/families.hpp"
#include "kernels_cu/blas.cuh"

namespace poreflow {
namespace {

using namespace cuda_detail;

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

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

// page-locked host memory: the downloads and uploads of an exchange's layers run by DMA from it
class PinnedStagingBuffer final : public StagingBuffer {
 public:
  explicit PinnedStagingBuffer(std::size_t bytes) : m_(bytes) {}
  unsigned char* data() override { return static_cast<unsigned char*>(m_.get()); }
  std::size_t bytes() const override { return m_.bytes(); }

 private:
  PinnedMem m_;
};

class CudaBackend final : public FamilyBackend {
 public:
  explicit CudaBackend(int device) : FamilyBackend(families_), ctx_(device), families_(make_families(ctx_)) {}

  ~CudaBackend() override {
    // let enqueued work finish before the families' scratch memory goes; the context goes last
    (void)cudaSetDevice(ctx_.device());
    log_release(cudaStreamSynchronize(ctx_.stream()), "cudaStreamSynchronize (cuda backend shutdown)");
  }

  std::string name() const override { return "cuda"; }
  std::string device_name() const override { return ctx_.description(); }

  MemoryInfo memory() const override {
    ctx_.activate();
    std::size_t free = 0, total = 0;
    PF_CHECK_CUDA(cudaMemGetInfo(&free, &total));
    return {free, free};
  }

  std::unique_ptr<StagingBuffer> alloc_staging(std::size_t bytes) override {
    ctx_.activate();
    return std::make_unique<PinnedStagingBuffer>(bytes);
  }

  // The staging transfers run on the copy stream beside the kernels, from pinned memory
  // (alloc_staging): a read waits for the kernels enqueued before it, not for later ones; the
  // kernels enqueued after a write wait for it.
  void download_async(const Buffer& src, StagingBuffer& dst, std::size_t dst_offset, std::size_t bytes,
                      std::size_t offset) override {
    check_range(src, bytes, offset, "download_async");
    if (dst_offset > dst.bytes() || bytes > dst.bytes() - dst_offset) throw BackendError("download_async: range outside the staging buffer");
    if (bytes == 0) return;
    ctx_.activate();
    order(ctx_.stream(), ctx_.copy_stream());
    PF_CHECK_CUDA(cudaMemcpyAsync(dst.data() + dst_offset, static_cast<const char*>(dptr(src)) + offset, bytes,
                                  cudaMemcpyDeviceToHost, ctx_.copy_stream()));
  }

  void upload_async(Buffer& dst, std::size_t offset, StagingBuffer& src, std::size_t src_offset, std::size_t bytes) override {
    check_range(dst, bytes, offset, "upload_async");
    if (src_offset > src.bytes() || bytes > src.bytes() - src_offset) throw BackendError("upload_async: range outside the staging buffer");
    if (bytes == 0) return;
    ctx_.activate();
    PF_CHECK_CUDA(cudaMemcpyAsync(static_cast<char*>(dptr(dst)) + offset, src.data() + src_offset, bytes, cudaMemcpyHostToDevice,
                                  ctx_.copy_stream()));
    order(ctx_.copy_stream(), ctx_.stream());
  }

  // the work enqueued on both streams so far
  class EventMarker final : public Marker {
   public:
    explicit EventMarker(CudaContext& ctx) {
      ctx.activate();
      for (int q = 0; q < 2; ++q) {
        PF_CHECK_CUDA(cudaEventCreateWithFlags(&e_[q], cudaEventDisableTiming));
        PF_CHECK_CUDA(cudaEventRecord(e_[q], q == 0 ? ctx.stream() : ctx.copy_stream()));
      }
    }
    ~EventMarker() override {
      for (cudaEvent_t e : e_)
        if (e) log_release(cudaEventDestroy(e), "cudaEventDestroy (marker)");
    }
    void wait() override {
      for (cudaEvent_t e : e_) PF_CHECK_CUDA(cudaEventSynchronize(e));
    }

   private:
    cudaEvent_t e_[2] = {nullptr, nullptr};
  };
  std::unique_ptr<Marker> mark() override { return std::make_unique<EventMarker>(ctx_); }

  // Recording by stream capture into a CUDA graph. The capture is thread-local: a wait or an
  // allocation on this thread while it lasts fails (and the caller aborts), other threads' work
  // is not drawn in.
  class GraphRecording final : public Recording {
   public:
    GraphRecording(const CudaContext& ctx, cudaGraphExec_t exec) : ctx_(ctx), exec_(exec) {}
    ~GraphRecording() override { log_release(cudaGraphExecDestroy(exec_), "cudaGraphExecDestroy"); }
    void replay() override {
      ctx_.activate();
      PF_CHECK_CUDA(cudaGraphLaunch(exec_, ctx_.stream()));
    }
    const CudaContext& ctx_;
    cudaGraphExec_t exec_;
  };
  bool can_record() const override { return true; }
  void begin_recording() override {
    if (recording_) throw BackendError("begin_recording: a recording is already under way");
    ctx_.activate();
    PF_CHECK_CUDA(cudaStreamBeginCapture(ctx_.stream(), cudaStreamCaptureModeThreadLocal));
    recording_ = true;
  }
  void end_recording(std::unique_ptr<Recording>& into) override {
    if (!recording_) throw BackendError("end_recording: no recording is under way");
    ctx_.activate();  // if this throws, the capture goes on and abort_recording() ends it
    cudaGraph_t g = nullptr;
    const cudaError_t ended = cudaStreamEndCapture(ctx_.stream(), &g);
    recording_ = false;  // the stream captures no more, whether or not a graph came out
    if (ended != cudaSuccess) {
      (void)cudaGetLastError();  // the error is this call's: no later launch check may report it
      cuda_detail::throw_cuda(ended, "cudaStreamEndCapture(stream, &graph)", __FILE__, __LINE__);
    }
    struct Release {
      cudaGraph_t g;
      ~Release() { log_release(cudaGraphDestroy(g), "cudaGraphDestroy"); }
    } release{g};
    if (auto* old = dynamic_cast<GraphRecording*>(into.get()); old && &old->ctx_ == &ctx_) {
      // the same launches with other arguments: update the executable graph in place
      cudaGraphExecUpdateResultInfo info{};
      if (cudaGraphExecUpdate(old->exec_, g, &info) == cudaSuccess) return;
      (void)cudaGetLastError();  // not the same shape: instantiate anew
    }
    cudaGraphExec_t exec = nullptr;
    PF_CHECK_CUDA(cudaGraphInstantiate(&exec, g, 0));
    into = std::make_unique<GraphRecording>(ctx_, exec);
  }
  void abort_recording() noexcept override {
    if (!recording_) return;
    recording_ = false;
    (void)cudaSetDevice(ctx_.device());
    cudaGraph_t g = nullptr;
    if (cudaStreamEndCapture(ctx_.stream(), &g) == cudaSuccess && g) (void)cudaGraphDestroy(g);
    (void)cudaGetLastError();
  }

 private:
  // later work on `after` waits for the work enqueued on `before` so far
  static void order(cudaStream_t before, cudaStream_t after) {
    cudaEvent_t e = nullptr;
    PF_CHECK_CUDA(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
    PF_CHECK_CUDA(cudaEventRecord(e, before));
    PF_CHECK_CUDA(cudaStreamWaitEvent(after, e, 0));
    log_release(cudaEventDestroy(e), "cudaEventDestroy (order)");  // released once the wait is done
  }

 public:

  std::unique_ptr<Buffer> alloc(std::size_t bytes) override {
    ctx_.activate();
    return std::make_unique<CudaBuffer>(ctx_.device(), bytes);
  }

  void upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) override {
    check_range(dst, bytes, offset, "upload");
    if (bytes == 0) return;
    ctx_.activate();
    PF_CHECK_CUDA(cudaMemcpyAsync(static_cast<char*>(dptr(dst)) + offset, src, bytes, cudaMemcpyHostToDevice, ctx_.stream()));
    // ordered after the work enqueued before it; waiting makes `src` free to reuse whatever memory it is
    ctx_.sync();
  }

  void download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset) override {
    check_range(src, bytes, offset, "download");
    if (bytes == 0) return;
    ctx_.activate();
    PF_CHECK_CUDA(cudaMemcpyAsync(dst, static_cast<const char*>(dptr(src)) + offset, bytes, cudaMemcpyDeviceToHost,
                                  ctx_.stream()));
    ctx_.sync();
  }

  void copy(const Buffer& src, Buffer& dst, std::size_t bytes, std::size_t src_offset = 0,
            std::size_t dst_offset = 0) override {
    check_range(src, bytes, src_offset, "copy");
    check_range(dst, bytes, dst_offset, "copy");
    if (bytes == 0) return;
    ctx_.activate();
    PF_CHECK_CUDA(cudaMemcpyAsync(static_cast<char*>(dptr(dst)) + dst_offset, static_cast<const char*>(dptr(src)) + src_offset, bytes, cudaMemcpyDeviceToDevice,
                                  ctx_.stream()));
  }

  void fill(Buffer& dst, Precision prec, double value, std::size_t n) override {
    check_range(dst, n * size_of(prec), 0, "fill");
    if (n == 0) return;
    ctx_.activate();
    if (prec == Precision::Float) cu::launch_fill<float>(dptr<float>(dst), static_cast<float>(value), n, ctx_.stream());
    else cu::launch_fill<double>(dptr<double>(dst), value, n, ctx_.stream());
    PF_CHECK_LAUNCH("fill");
  }

  void sync() override {
    ctx_.activate();
    ctx_.sync();
  }

 private:
  CudaContext ctx_;  // first: destroyed after the families that use it
  FamilySet families_;
  bool recording_ = false;
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
