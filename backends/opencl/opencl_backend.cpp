// The OpenCL backend: one device, one in-order queue (backends/opencl/context.hpp), memory
// operations, and one implementation per kernel family (backends/opencl/<family>.cpp), each
// family's kernels built at run time as their own program (program.hpp).
#include "backends/opencl/opencl_backend.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "backends/opencl/families.hpp"
#include "core/base/error.hpp"

namespace poreflow {
namespace {

using namespace ocl;

// ---- devices ------------------------------------------------------------------------------------

struct PlatformEntry {
  cl::Platform platform;
  std::string name, version;
  std::vector<cl::Device> devices;
};

// Every platform and its devices; empty when no OpenCL driver (ICD) is installed.
std::vector<PlatformEntry> enumerate() {
  std::vector<cl::Platform> platforms;
  const cl_int err = cl::Platform::get(&platforms);
  if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR: the loader found no driver */) return {};
  PF_CHECK_CL_AS(err, "clGetPlatformIDs");
  std::vector<PlatformEntry> out;
  for (auto& p : platforms) {
    PlatformEntry e{p, "", "", {}};
    PF_CHECK_CL(p.getInfo(CL_PLATFORM_NAME, &e.name));
    PF_CHECK_CL(p.getInfo(CL_PLATFORM_VERSION, &e.version));
    const cl_int derr = p.getDevices(CL_DEVICE_TYPE_ALL, &e.devices);
    if (derr == CL_DEVICE_NOT_FOUND) e.devices.clear();
    else PF_CHECK_CL_AS(derr, "clGetDeviceIDs");
    out.push_back(std::move(e));
  }
  return out;
}

template <class T>
T info(const cl::Device& d, cl_device_info what) {
  T v{};
  PF_CHECK_CL(d.getInfo(what, &v));
  return v;
}

bool is_gpu(const cl::Device& d) { return (info<cl_device_type>(d, CL_DEVICE_TYPE) & CL_DEVICE_TYPE_GPU) != 0; }

std::string type_name(const cl::Device& d) {
  auto t = info<cl_device_type>(d, CL_DEVICE_TYPE);
  if (t & CL_DEVICE_TYPE_GPU) return "GPU";
  if (t & CL_DEVICE_TYPE_CPU) return "CPU";
  if (t & CL_DEVICE_TYPE_ACCELERATOR) return "accelerator";
  return "other";
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

// "NVIDIA CUDA: [0] NVIDIA H100 80GB HBM3 (GPU); Portable Computing Language: [0] pthread-... (CPU)"
std::string listing(const std::vector<PlatformEntry>& all) {
  std::string s;
  for (const auto& p : all) {
    s += (s.empty() ? "" : "; ") + p.name + ":";
    if (p.devices.empty()) s += " no devices";
    for (std::size_t i = 0; i < p.devices.size(); ++i)
      s += " [" + std::to_string(i) + "] " + info<std::string>(p.devices[i], CL_DEVICE_NAME) + " (" + type_name(p.devices[i]) + ")";
  }
  return s.empty() ? "none (no OpenCL driver found)" : s;
}

// ---- the backend --------------------------------------------------------------------------------

class OpenClBackend final : public FamilyBackend {
 public:
  OpenClBackend(const cl::Platform& platform, const cl::Device& device)
      : FamilyBackend(families_), ctx_(platform, device), families_(make_families(ctx_)) {}

  ~OpenClBackend() override {
    // enqueued work may still use the families' buffers; a destructor cannot throw
    if (ctx_.queue().finish() != CL_SUCCESS) spdlog::error("clFinish failed at OpenCL backend shutdown");
  }

  std::string name() const override { return "opencl"; }
  std::string device_name() const override { return ctx_.device_name(); }
  bool supports(Precision p) const override { return p == Precision::Float || ctx_.traits().fp64; }

  std::unique_ptr<Buffer> alloc(std::size_t bytes) override { return std::make_unique<ClBuffer>(ctx_.context(), bytes); }

  void upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) override {
    check_range(dst, bytes, offset, "upload");
    TallyTimer timed(TallyTimer::Wait);  // a blocking write waits for the queue before it
    if (bytes) PF_CHECK_CL(ctx_.queue().enqueueWriteBuffer(mem(dst), CL_TRUE, offset, bytes, src));
  }
  void download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset) override {
    check_range(src, bytes, offset, "download");
    TallyTimer timed(TallyTimer::Wait);
    if (bytes) PF_CHECK_CL(ctx_.queue().enqueueReadBuffer(mem(src), CL_TRUE, offset, bytes, dst));
  }
  // non-blocking on the in-order queue: done before any later command; a Marker waits for them
  void download_async(const Buffer& src, StagingBuffer& dst, std::size_t dst_offset, std::size_t bytes,
                      std::size_t offset) override {
    check_range(src, bytes, offset, "download_async");
    if (dst_offset > dst.bytes() || bytes > dst.bytes() - dst_offset) throw BackendError("download_async: range outside the staging buffer");
    if (bytes) PF_CHECK_CL(ctx_.queue().enqueueReadBuffer(mem(src), CL_FALSE, offset, bytes, dst.data() + dst_offset));
  }
  void upload_async(Buffer& dst, std::size_t offset, StagingBuffer& src, std::size_t src_offset, std::size_t bytes) override {
    check_range(dst, bytes, offset, "upload_async");
    if (src_offset > src.bytes() || bytes > src.bytes() - src_offset) throw BackendError("upload_async: range outside the staging buffer");
    if (bytes) PF_CHECK_CL(ctx_.queue().enqueueWriteBuffer(mem(dst), CL_FALSE, offset, bytes, src.data() + src_offset));
  }
  class EventMarker final : public Marker {
   public:
    explicit EventMarker(cl::CommandQueue& q) { PF_CHECK_CL(q.enqueueMarkerWithWaitList(nullptr, &e_)); }
    void wait() override {
      TallyTimer timed(TallyTimer::Wait);
      PF_CHECK_CL(e_.wait());
    }

   private:
    cl::Event e_;
  };
  std::unique_ptr<Marker> mark() override { return std::make_unique<EventMarker>(ctx_.queue()); }
  void copy(const Buffer& src, Buffer& dst, std::size_t bytes, std::size_t src_offset = 0,
            std::size_t dst_offset = 0) override {
    check_range(src, bytes, src_offset, "copy");
    check_range(dst, bytes, dst_offset, "copy");
    if (bytes) PF_CHECK_CL(ctx_.queue().enqueueCopyBuffer(mem(src), mem(dst), src_offset, dst_offset, bytes));
  }
  void fill(Buffer& dst, Precision prec, double value, std::size_t n) override {
    check_precision(*this, prec, "fill");
    check_range(dst, n * size_of(prec), 0, "fill");
    if (prec == Precision::Float) ctx_.fill_bytes(mem(dst), static_cast<float>(value), n * sizeof(float));
    else ctx_.fill_bytes(mem(dst), value, n * sizeof(double));
  }
  void sync() override { ctx_.sync(); }
  // a GPU's launch costs about 5 us and nothing records them (bench/results/2026-12-01_h200_launch_cost/);
  // the levels of about a thousand rows cycle faster in one work-group (2026-12-02_h200_amg_tail/)
  std::size_t one_launch_rows() const override { return ctx_.gpu() ? 1100 : 0; }
  // OpenCL 1.2 has no query of free memory: the device's total, and its largest allocation
  MemoryInfo memory() const override {
    cl_ulong total = 0, max_alloc = 0;
    PF_CHECK_CL(ctx_.device().getInfo(CL_DEVICE_GLOBAL_MEM_SIZE, &total));
    PF_CHECK_CL(ctx_.device().getInfo(CL_DEVICE_MAX_MEM_ALLOC_SIZE, &max_alloc));
    return {static_cast<std::size_t>(total), static_cast<std::size_t>(max_alloc)};
  }

 private:
  ClContext ctx_;  // first: destroyed after the families that use it
  FamilySet families_;
};

}  // namespace

// ---- the public entry points ---------------------------------------------------------------------

std::vector<ClDeviceInfo> opencl_devices() {
  std::vector<ClDeviceInfo> out;
  try {
    for (const auto& p : enumerate())
      for (std::size_t i = 0; i < p.devices.size(); ++i) {
        const auto& d = p.devices[i];
        ClDeviceInfo ci;
        ci.platform = p.name;
        ci.index = static_cast<int>(i);
        ci.name = info<std::string>(d, CL_DEVICE_NAME);
        ci.version = info<std::string>(d, CL_DEVICE_VERSION);
        ci.gpu = is_gpu(d);
        ci.fp64 = ocl::device_traits(d).fp64;
        out.push_back(ci);
      }
  } catch (const BackendError& e) {  // a broken driver hides its devices rather than the other backends
    spdlog::warn("OpenCL: {}", e.what());
  }
  return out;
}

std::vector<std::string> opencl_describe() {
  std::vector<std::string> lines;
  try {
    for (const auto& p : enumerate()) {
      lines.push_back("platform " + p.name + " (" + p.version + ")");
      if (p.devices.empty()) lines.push_back("  no devices");
      for (std::size_t i = 0; i < p.devices.size(); ++i) {
        const auto& d = p.devices[i];
        char mem[32];
        std::snprintf(mem, sizeof mem, "%.1f GiB", double(info<cl_ulong>(d, CL_DEVICE_GLOBAL_MEM_SIZE)) / (1 << 30));
        lines.push_back("  [" + std::to_string(i) + "] " + info<std::string>(d, CL_DEVICE_NAME) + ": " + type_name(d) + ", " +
                        info<std::string>(d, CL_DEVICE_VERSION) + ", " +
                        std::to_string(info<cl_uint>(d, CL_DEVICE_MAX_COMPUTE_UNITS)) + " compute units, " + mem +
                        ", fp64 " + (ocl::device_traits(d).fp64 ? "yes" : "no"));
      }
    }
  } catch (const BackendError& e) {
    lines.push_back(std::string("error: ") + e.what());
  }
  if (lines.empty()) lines.push_back("no OpenCL platform (no driver or ICD found)");
  return lines;
}

std::unique_ptr<Backend> make_opencl_backend(const std::string& platform, int device, int node_rank, int node_processes) {
  const auto all = enumerate();
  const PlatformEntry* chosen = nullptr;
  for (const auto& p : all) {
    bool match = platform.empty() ? !p.devices.empty() : lower(p.name).find(lower(platform)) != std::string::npos;
    if (match) {
      chosen = &p;
      break;
    }
  }
  if (!chosen)
    throw ConfigError((platform.empty() ? std::string("no OpenCL platform has a device")
                                        : "no OpenCL platform matches '" + platform + "'") +
                      "; platforms and devices: " + listing(all));
  if (device < 0) {
    // one device per process: the MPI processes of this node take the platform's devices in turn
    if (static_cast<std::size_t>(node_processes) > chosen->devices.size())
      throw ConfigError(std::to_string(node_processes) + " MPI processes on this node but " + std::to_string(chosen->devices.size()) +
                        " OpenCL device(s) on platform '" + chosen->name + "': one device per process (start fewer processes "
                        "per node, or name one with --cl-device N for all of them to share)");
    device = node_rank;
  }
  if (static_cast<std::size_t>(device) >= chosen->devices.size())
    throw ConfigError("OpenCL device " + std::to_string(device) + " does not exist on platform '" + chosen->name +
                      "' (devices are numbered from 0); platforms and devices: " + listing(all));
  return std::make_unique<OpenClBackend>(chosen->platform, chosen->devices[static_cast<std::size_t>(device)]);
}

}  // namespace poreflow
