// The OpenCL backend: one device, one in-order queue, kernels from kernels_cl/ built at run time
// (backends/opencl/program.*). Reductions and jacobi1d follow the serial reference
// (core/reference/host_backend.cpp); the paper variants take their work-group size from
// ReduceConfig::block, Fast picks its own launch shape and always combines on the device.
#include "backends/opencl/opencl_backend.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>

#include "backends/opencl/cl_check.hpp"
#include "backends/opencl/program.hpp"
#include "backends/opencl/tridiag.hpp"
#include "core/error.hpp"
#include "core/kernels/jacobi_ctrl.h"

namespace poreflow {
namespace {

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

class ClBuffer final : public Buffer {
 public:
  ClBuffer(const cl::Context& ctx, std::size_t bytes) : Buffer(bytes) {
    cl_int err = CL_SUCCESS;
    mem = cl::Buffer(ctx, CL_MEM_READ_WRITE, std::max<std::size_t>(bytes, 1), nullptr, &err);  // size 0 is invalid
    PF_CHECK_CL_AS(err, "clCreateBuffer");
  }
  cl::Buffer mem;
};

const cl::Buffer& mem(const Buffer& b) { return static_cast<const ClBuffer&>(b).mem; }

std::size_t ceil_div(std::size_t a, std::size_t b) { return (a + b - 1) / b; }

// An order-preserving unsigned key of x, as the kernels' pf_order_key computes it.
std::uint64_t order_key(Precision p, double x) {
  if (p == Precision::Float) {
    float f = static_cast<float>(x);
    std::uint32_t b;
    std::memcpy(&b, &f, 4);
    return (b & 0x80000000u) ? ~b : (b | 0x80000000u);
  }
  std::uint64_t b;
  std::memcpy(&b, &x, 8);
  return (b & (1ull << 63)) ? ~b : (b | (1ull << 63));
}

double from_order_key(Precision p, std::uint64_t key) {
  if (p == Precision::Float) {
    auto k = static_cast<std::uint32_t>(key);
    std::uint32_t b = (k & 0x80000000u) ? (k & 0x7fffffffu) : ~k;
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  std::uint64_t b = (key & (1ull << 63)) ? (key & ~(1ull << 63)) : ~key;
  double d;
  std::memcpy(&d, &b, 8);
  return d;
}

double from_bits(Precision p, std::uint64_t bits) {
  if (p == Precision::Float) {
    auto b = static_cast<std::uint32_t>(bits);
    float f;
    std::memcpy(&f, &b, 4);
    return f;
  }
  double d;
  std::memcpy(&d, &bits, 8);
  return d;
}

double identity_of(ReduceOp op) {
  switch (op) {
    case ReduceOp::Sum: return 0;
    case ReduceOp::Min: return std::numeric_limits<double>::infinity();
    case ReduceOp::Max: return -std::numeric_limits<double>::infinity();
    default: return 0;  // MaxAbs, MaxAbsDiff: the values are non-negative
  }
}

class OpenClBackend final : public Backend {
 public:
  OpenClBackend(const cl::Platform& platform, const cl::Device& device) : device_(device) {
    cl_int err = CL_SUCCESS;
    ctx_ = cl::Context(device_, nullptr, nullptr, nullptr, &err);
    PF_CHECK_CL_AS(err, "clCreateContext");
    queue_ = cl::CommandQueue(ctx_, device_, 0, &err);  // in order: launches need no events
    PF_CHECK_CL_AS(err, "clCreateCommandQueue");
    progs_ = std::make_unique<ocl::Programs>(ctx_, device_);
    std::string pname;
    PF_CHECK_CL(platform.getInfo(CL_PLATFORM_NAME, &pname));
    device_name_ = progs_->traits().name + " (" + pname + ")";
    // Fast: 256 work-items (or the device's largest power of two below) and at most 4 groups per
    // compute unit, the launch shape of the CUDA twin (kernels_cu/launch.hpp), so that the two
    // compare on the same GPU
    fast_block_ = 256;
    while (fast_block_ > 32 && static_cast<std::size_t>(fast_block_) > progs_->traits().max_group) fast_block_ /= 2;
    fast_groups_ = std::clamp<std::size_t>(4 * info<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS), 1, 1024);
    slot_ = std::make_unique<ClBuffer>(ctx_, 8);
    counter_ = std::make_unique<ClBuffer>(ctx_, 8);
    result_ = std::make_unique<ClBuffer>(ctx_, 8);
    partials_ = std::make_unique<ClBuffer>(ctx_, 1 << 16);
    jpartials_ = std::make_unique<ClBuffer>(ctx_, 1 << 16);
    fill_bytes(*counter_, std::uint64_t{0}, 8);  // the last-group counter starts at 0; kernels reset it
    tri_ = std::make_unique<ocl::Tridiag>(ctx_, queue_, *progs_, info<cl_ulong>(device_, CL_DEVICE_LOCAL_MEM_SIZE),
                                          progs_->traits().max_group, info<cl_uint>(device_, CL_DEVICE_MAX_COMPUTE_UNITS),
                                          is_gpu(device_));
    spdlog::debug("opencl: {} (Fast: {} groups of {})", device_name_, fast_groups_, fast_block_);
  }

  std::string name() const override { return "opencl"; }
  std::string device_name() const override { return device_name_; }
  bool supports(Precision p) const override { return p == Precision::Float || progs_->traits().fp64; }
  std::vector<ReduceVariant> reduce_variants() const override {
    return {ReduceVariant::Fast,       ReduceVariant::CompleteUnroll, ReduceVariant::UnrollLastWarp,
            ReduceVariant::Sequential, ReduceVariant::Interleaved,    ReduceVariant::InterleavedDivergent};
  }

  // ---- memory ----

  std::unique_ptr<Buffer> alloc(std::size_t bytes) override { return std::make_unique<ClBuffer>(ctx_, bytes); }

  void upload(Buffer& dst, const void* src, std::size_t bytes, std::size_t offset) override {
    check_range(dst, bytes, offset, "upload");
    if (bytes) PF_CHECK_CL(queue_.enqueueWriteBuffer(mem(dst), CL_TRUE, offset, bytes, src));
  }
  void download(const Buffer& src, void* dst, std::size_t bytes, std::size_t offset) override {
    check_range(src, bytes, offset, "download");
    if (bytes) PF_CHECK_CL(queue_.enqueueReadBuffer(mem(src), CL_TRUE, offset, bytes, dst));
  }
  void copy(const Buffer& src, Buffer& dst, std::size_t bytes) override {
    check_range(src, bytes, 0, "copy");
    check_range(dst, bytes, 0, "copy");
    if (bytes) PF_CHECK_CL(queue_.enqueueCopyBuffer(mem(src), mem(dst), 0, 0, bytes));
  }
  void fill(Buffer& dst, Precision prec, double value, std::size_t n) override {
    require(prec);
    check_range(dst, n * size_of(prec), 0, "fill");
    if (prec == Precision::Float)
      fill_bytes(dst, static_cast<float>(value), n * sizeof(float));
    else
      fill_bytes(dst, value, n * sizeof(double));
  }
  void axpy(Precision prec, std::size_t n, double alpha, const Buffer& x, Buffer& y) override {
    require(prec);
    check_range(x, n * size_of(prec), 0, "axpy");
    check_range(y, n * size_of(prec), 0, "axpy");
    if (n == 0) return;
    cl::Kernel& k = kernel(prec, fast_block_, "axpy");
    set(k, 0, cl_ulong(n));
    set_real(k, 1, prec, alpha);
    set(k, 2, mem(x));
    set(k, 3, mem(y));
    launch_points(k, n);
  }
  void sync() override { PF_CHECK_CL(queue_.finish()); }

  // ---- reduce ----

  void reduce_enqueue(const ReduceArgs& a) override {
    if (a.op == ReduceOp::MaxAbsDiff && !a.b) throw Error("max_abs_diff needs two inputs");
    check_reduce_config(a.cfg);
    require(a.prec);
    pending_ = Pending{};
    pending_.prec = a.prec;
    pending_.op = a.op;
    if (a.n == 0) {  // the identity, without a launch
      pending_.kind = Pending::Done;
      pending_.value = identity_of(a.op);
      return;
    }
    const cl::Buffer& A = mem(*a.a);
    const cl::Buffer& B = a.b ? mem(*a.b) : A;
    const std::string op = to_string(a.op);
    if (a.cfg.variant == ReduceVariant::Fast) {
      // at least 16 elements per work-item before the grid grows
      const std::size_t groups = std::min(fast_groups_, ceil_div(a.n, std::size_t(fast_block_) * 16));
      cl::Kernel& k = kernel(a.prec, fast_block_, "reduce_fast_" + op);
      ensure(partials_, groups * 8);
      set(k, 0, A);
      set(k, 1, B);
      set(k, 2, cl_ulong(a.n));
      set(k, 3, partials_->mem);
      set(k, 4, counter_->mem);
      set(k, 5, result_->mem);
      launch(k, groups * fast_block_, fast_block_);
      pending_.kind = Pending::Result;
      return;
    }
    const int block = a.cfg.block;
    const bool host = a.cfg.combine == Combine::Host;
    if (!host) require_int64_atomics(a.prec);
    const std::size_t groups = ceil_div(a.n, block);
    cl::Kernel& k = kernel(a.prec, block, "reduce_" + std::string(to_string(a.cfg.variant)) + "_" + op);
    if (host) {
      ensure(partials_, groups * 8);
    } else {  // the slot starts at the identity: 0 for a sum, the order key of +-inf or 0 otherwise
      const std::uint64_t init = a.op == ReduceOp::Sum ? 0 : order_key(a.prec, identity_of(a.op));
      fill_bytes(*slot_, init, 8);
    }
    set(k, 0, A);
    set(k, 1, B);
    set(k, 2, cl_ulong(a.n));
    set(k, 3, partials_->mem);
    set(k, 4, slot_->mem);
    set(k, 5, cl_int(host));
    launch(k, groups * block, block);
    pending_.kind = host ? Pending::Partials : Pending::Slot;
    pending_.groups = groups;
  }

  double reduce_fetch() override {
    Pending& p = pending_;
    switch (p.kind) {
      case Pending::Done:
        break;
      case Pending::Result: {  // Fast: one value of the field's precision
        std::uint64_t bits = 0;
        download(*result_, &bits, size_of(p.prec), 0);
        p.value = from_bits(p.prec, bits);
        break;
      }
      case Pending::Slot: {  // Atomic: a sum's bits or a min/max order key
        std::uint64_t word = 0;
        download(*slot_, &word, 8, 0);
        p.value = p.op == ReduceOp::Sum ? from_bits(p.prec, word) : from_order_key(p.prec, word);
        break;
      }
      case Pending::Partials: {  // Host: the group results, combined here in double
        std::vector<double> v(p.groups);
        if (p.prec == Precision::Float) {
          std::vector<float> f(p.groups);
          download(*partials_, f.data(), f.size() * sizeof(float), 0);
          v.assign(f.begin(), f.end());
        } else {
          download(*partials_, v.data(), v.size() * sizeof(double), 0);
        }
        double r = identity_of(p.op);
        for (double x : v) r = p.op == ReduceOp::Sum ? r + x : p.op == ReduceOp::Min ? std::min(r, x) : std::max(r, x);
        p.value = r;
        break;
      }
    }
    p.kind = Pending::Done;
    return p.value;
  }

  // ---- jacobi1d ----

  void jacobi1d_iterate(const Jacobi1DArgs& a, long first, long count) override {
    if (a.n < 3) throw Error("jacobi1d needs at least 3 points");
    if (a.check_every < 1) throw Error("jacobi1d: check_every must be at least 1");
    check_reduce_config(a.reduce);
    require(a.prec);
    const bool fast = a.reduce.variant == ReduceVariant::Fast;
    const bool host = !fast && a.reduce.combine == Combine::Host;
    if (!host) require_int64_atomics(a.prec);
    const int block = fast ? fast_block_ : a.reduce.block;
    // [check][parity]: a check launch reduces the metric, a step only updates
    const std::string check_name = "jacobi_check_" + std::string(to_string(a.reduce.variant));
    const std::string step_name = fast ? "jacobi_step_fast" : "jacobi_step";
    cl::Kernel* ks[2][2] = {{&kernel(a.prec, block, step_name, 0), &kernel(a.prec, block, step_name, 1)},
                            {&kernel(a.prec, block, check_name, 0), &kernel(a.prec, block, check_name, 1)}};
    // paper variants: one interior point per work-item; Fast: tiles of 4 points per work-item
    const std::size_t groups = fast ? std::min(fast_groups_, ceil_div(a.n, std::size_t(block) * 4)) : ceil_div(a.n - 2, block);
    if (host) ensure(jpartials_, groups * 8);
    for (int parity = 0; parity < 2; ++parity)
      for (int chk = 0; chk < 2; ++chk) set_jacobi_args(*ks[chk][parity], a, parity);

    const long k = a.check_every;
    for (long it = first; it < first + count; ++it) {
      // the host works out the slots, so the kernels do no 64-bit division (see jacobi1d.cl)
      const bool decide = it >= k && it % k == 0;
      const bool check = (it + 1) % k == 0;
      const long c = (it + 1) / k - 1;
      cl_int4 plan;
      plan.s[0] = decide ? static_cast<cl_int>((it / k - 1) % PF_JCTRL_NSLOTS) : -1;
      plan.s[1] = check ? static_cast<cl_int>(c % PF_JCTRL_NSLOTS) : -1;
      plan.s[2] = check ? static_cast<cl_int>((c + 1) % PF_JCTRL_NSLOTS) : -1;
      plan.s[3] = host;
      cl::Kernel& kern = *ks[check][it % 2];
      set(kern, 10, cl_long(it));
      set(kern, 11, plan);
      launch(kern, groups * block, block);
      if (host && check && !combine_on_host(a, groups, c)) return;
    }
  }

  // ---- tridiag (backends/opencl/tridiag.cpp, kernels_cl/tridiag.cl) ----

  void tridiag_solve(const TridiagArgs& args) override {
    check_tridiag_args(args, "tridiag_solve");
    require(args.prec);
    if (args.n == 0 || args.batch == 0) return;
    TridiagArgs t = args;
    if (t.algo == TridiagAlgo::Auto) t.algo = resolve_tridiag_algo(args);
    tri_->solve(t, mem(*t.a), mem(*t.b), mem(*t.c), mem(*t.d), mem(*t.x));
  }
  TridiagAlgo resolve_tridiag_algo(const TridiagArgs& args) const override {
    return ocl::tridiag_auto(args.layout, args.n, args.batch);
  }

  // ---- bl1d ----

  void bl1d_face_mobility(const BLFaceMobilityArgs& a) override {
    require(a.prec);
    if (a.n < 2) return;  // no faces
    cl::Kernel& k = kernel(a.prec, fast_block_, "bl1d_face_mobility");
    set(k, 0, mem(*a.s));
    set(k, 1, mem(*a.mface));
    set(k, 2, cl_ulong(a.n - 1));
    set_real(k, 3, a.prec, a.phys.k);
    set_real(k, 4, a.prec, a.phys.mu_w);
    set_real(k, 5, a.prec, a.phys.mu_o);
    launch_points(k, a.n - 1);
  }

  void bl1d_face_velocity(const BLFaceVelocityArgs& a) override {
    require(a.prec);
    if (a.n < 2) return;
    cl::Kernel& k = kernel(a.prec, fast_block_, "bl1d_face_velocity");
    set(k, 0, mem(*a.p));
    set(k, 1, mem(*a.mface));
    set(k, 2, mem(*a.u));
    set(k, 3, cl_ulong(a.n - 1));
    set_real(k, 4, a.prec, a.inv_h);
    launch_points(k, a.n - 1);
  }

  void bl1d_saturation(const BLSaturationArgs& a) override {
    require(a.prec);
    if (a.n < 2) throw Error("bl1d_saturation needs at least 2 points");
    cl::Kernel& k = kernel(a.prec, fast_block_, "bl1d_saturation");
    set(k, 0, mem(*a.s_old));
    set(k, 1, mem(*a.u));
    set(k, 2, mem(*a.s_new));
    set(k, 3, cl_ulong(a.n));
    set_real(k, 4, a.prec, a.c);
    set_real(k, 5, a.prec, a.s_inj);
    set_real(k, 6, a.prec, a.phys.mu_w);
    set_real(k, 7, a.prec, a.phys.mu_o);
    launch_points(k, a.n);
  }

  void bl1d_pressure_system(const BLPressureSystemArgs& a) override {
    require(a.prec);
    if (a.n == 0) return;
    cl::Kernel& k = kernel(a.prec, fast_block_, "bl1d_pressure_system");
    set(k, 0, mem(*a.mface));
    set(k, 1, cl_ulong(a.n));
    set_real(k, 2, a.prec, a.p_left);
    set_real(k, 3, a.prec, a.p_right);
    set(k, 4, mem(*a.a));
    set(k, 5, mem(*a.b));
    set(k, 6, mem(*a.c));
    set(k, 7, mem(*a.d));
    launch_points(k, a.n);
  }

  // ---- adi2d: one work-item per node (kernels_cl/adi2d.cl); arguments in the kernels' order ----

  void adi2d_flash(const Adi2DFlashArgs& a) override {
    Args k = adi_kernel(a.prec, a.g, "adi2d_flash");
    k.real(a.g.h).buf(a.prm);
    for (const Buffer* m : a.mass) k.buf(m);
    k.buf(a.p).buf(a.sw).buf(a.so).buf(a.sg).buf(a.co3).buf(a.cg3).buf(a.vol).buf(a.props);
    launch_points(k.k, a.g.nx * a.g.ny);
  }

  void adi2d_coefficients(const Adi2DCoeffArgs& a) override {
    Args k = adi_kernel(a.prec, a.g, "adi2d_coefficients");
    k.real(a.g.h).real(a.dt).buf(a.prm);
    phase_state(k, a.st);
    k.buf(a.vol).buf(a.wells.inj).buf(a.wells.prod).real(a.wells.p_bh);
    k.buf(a.aw).buf(a.ae).buf(a.as).buf(a.an).buf(a.d0).buf(a.rhs);
    launch_points(k.k, a.g.nx * a.g.ny);
  }

  void adi2d_sweep(const Adi2DSweepArgs& a) override {
    Args k = adi_kernel(a.prec, a.g, "adi2d_sweep");
    k.set(cl_int(a.x_sweep ? 1 : 0)).real(a.r);
    k.buf(a.aw).buf(a.ae).buf(a.as).buf(a.an).buf(a.d0).buf(a.rhs).buf(a.p);
    k.buf(a.a).buf(a.b).buf(a.c).buf(a.d);
    launch_points(k.k, a.g.nx * a.g.ny);
  }

  void adi2d_total_velocity(const Adi2DVelocityArgs& a) override {
    Args k = adi_kernel(a.prec, a.g, "adi2d_total_velocity");
    k.buf(a.prm);
    phase_state(k, a.st);
    k.buf(a.ux).buf(a.uy);
    launch_points(k.k, a.g.nx * a.g.ny);
  }

  void adi2d_transport(const Adi2DTransportArgs& a) override {
    Args k = adi_kernel(a.prec, a.g, "adi2d_transport");
    k.real(a.dt).buf(a.prm);
    phase_state(k, a.st);
    k.buf(a.ux).buf(a.uy);
    k.buf(a.wells.inj).buf(a.wells.prod).real(a.wells.p_bh);
    for (const Buffer* m : a.mass_in) k.buf(m);
    for (const Buffer* m : a.mass_out) k.buf(m);
    for (const Buffer* m : a.acc) k.buf(m);
    launch_points(k.k, a.g.nx * a.g.ny);
  }

  void adi2d_rate(const Adi2DRateArgs& a) override {
    Args k = adi_kernel(a.prec, a.g, "adi2d_rate");
    k.real(a.g.h).buf(a.prm);
    phase_state(k, a.st);
    k.buf(a.ux).buf(a.uy).buf(a.vol).buf(a.wells.prod).real(a.wells.p_bh).buf(a.rate);
    launch_points(k.k, a.g.nx * a.g.ny);
  }

 private:
  // Sets a kernel's arguments in order; the adi2d kernels take twenty-odd.
  struct Args {
    OpenClBackend& be;
    cl::Kernel& k;
    Precision prec;
    cl_uint next = 0;
    template <class T>
    Args& set(const T& v) {
      be.set(k, next++, v);
      return *this;
    }
    Args& buf(const Buffer* b) { return set(mem(*b)); }
    Args& real(double v) {
      be.set_real(k, next++, prec, v);
      return *this;
    }
  };

  // the kernel with its leading (nx, ny) set
  Args adi_kernel(Precision prec, const Adi2DGeom& g, const char* name) {
    require(prec);
    Args k{*this, kernel(prec, fast_block_, name), prec};
    k.set(cl_long(g.nx)).set(cl_long(g.ny));
    return k;
  }
  static void phase_state(Args& k, const Adi2DPhaseState& s) {
    k.buf(s.p).buf(s.sw).buf(s.so).buf(s.sg).buf(s.co3).buf(s.cg3).buf(s.props);
  }

  struct Pending {
    enum Kind { Done, Result, Slot, Partials } kind = Done;
    Precision prec = Precision::Double;
    ReduceOp op = ReduceOp::Sum;
    std::size_t groups = 0;
    double value = 0;
  };

  // The arguments that stay the same over a batch, set once per jacobi1d_iterate call; a launch
  // sets only `it` and `plan`.
  void set_jacobi_args(cl::Kernel& k, const Jacobi1DArgs& a, int parity) {
    set(k, 0, mem(*a.p[parity]));
    set(k, 1, mem(*a.p[1 - parity]));
    set(k, 2, mem(*a.mface));
    set(k, 3, cl_ulong(a.n));
    set_real(k, 4, a.prec, a.p_left);
    set_real(k, 5, a.prec, a.p_right);
    set_real(k, 6, a.prec, a.threshold);
    set(k, 7, cl_int(a.metric == JacobiMetric::Residual));
    set(k, 8, mem(*a.ctrl));
    set(k, 9, jpartials_->mem);
  }

  // Combine::Host after a check launch: the group maxima come back, their max goes into the slot.
  // Returns false when that launch found the run converged (the partials are then stale).
  bool combine_on_host(const Jacobi1DArgs& a, std::size_t groups, long c) {
    std::vector<std::uint64_t> keys(groups);
    download(*jpartials_, keys.data(), groups * 8, 0);
    std::uint64_t w[PF_JCTRL_WORDS];
    download(*a.ctrl, w, sizeof(w), 0);
    if (w[PF_JCTRL_CONVERGED]) return false;
    w[PF_JCTRL_SLOT0 + c % PF_JCTRL_NSLOTS] = *std::max_element(keys.begin(), keys.end());
    w[PF_JCTRL_SLOT0 + (c + 1) % PF_JCTRL_NSLOTS] = 0;
    upload(*a.ctrl, w + PF_JCTRL_SLOT0, PF_JCTRL_NSLOTS * 8, PF_JCTRL_SLOT0 * 8);
    return true;
  }

  // ---- helpers ----

  void require(Precision p) const {
    if (!supports(p))
      throw BackendError("the OpenCL device " + device_name_ + " has no double precision (cl_khr_fp64); use float");
  }

  void require_int64_atomics(Precision p) const {
    if (p == Precision::Double && !progs_->traits().int64_atomics)
      throw BackendError("the OpenCL device " + device_name_ +
                         " lacks cl_khr_int64_base_atomics/cl_khr_int64_extended_atomics, which double reductions "
                         "combined with atomics need; use --combine host or float");
  }

  template <class T>
  void fill_bytes(Buffer& dst, T pattern, std::size_t bytes) {
    if (bytes) PF_CHECK_CL(queue_.enqueueFillBuffer(static_cast<ClBuffer&>(dst).mem, pattern, 0, bytes));
  }

  // grows a scratch buffer; a command already enqueued keeps the old one alive until it is done
  void ensure(std::unique_ptr<ClBuffer>& b, std::size_t bytes) {
    if (!b || b->bytes() < bytes) b = std::make_unique<ClBuffer>(ctx_, std::max<std::size_t>(bytes, 1 << 16));
  }

  // A cached kernel of the (prec, block) program; the block must fit the device.
  cl::Kernel& kernel(Precision prec, int block, const std::string& name, int instance = 0) {
    if (static_cast<std::size_t>(block) > progs_->traits().max_group)
      throw ConfigError("block size " + std::to_string(block) + " is larger than the largest work-group of " + device_name_ +
                        " (" + std::to_string(progs_->traits().max_group) + ")");
    return progs_->kernel(prec, block, name, instance);
  }

  template <class T>
  void set(cl::Kernel& k, cl_uint index, const T& value) {
    PF_CHECK_CL(k.setArg(index, value));
  }
  void set_real(cl::Kernel& k, cl_uint index, Precision prec, double v) {
    if (prec == Precision::Float)
      set(k, index, cl_float(v));
    else
      set(k, index, cl_double(v));
  }

  // CL_KERNEL_WORK_GROUP_SIZE is no limit to check up front: NVIDIA's driver answers 256 for every
  // kernel and runs them with 1024. A group the kernel cannot run is reported when it is refused.
  void launch(cl::Kernel& k, std::size_t global, std::size_t local) {
    const cl_int err = queue_.enqueueNDRangeKernel(k, cl::NullRange, cl::NDRange(global), cl::NDRange(local));
    if (err == CL_INVALID_WORK_GROUP_SIZE || err == CL_OUT_OF_RESOURCES) {
      std::string name;
      PF_CHECK_CL(k.getInfo(CL_KERNEL_FUNCTION_NAME, &name));
      throw ConfigError("kernel " + name + " cannot run work-groups of " + std::to_string(local) + " on " + device_name_ +
                        " (" + cl_error_name(err) + ", the driver suggests at most " +
                        std::to_string(progs_->max_group(k)) + "); use a smaller block size");
    }
    PF_CHECK_CL_AS(err, "clEnqueueNDRangeKernel");
  }
  // one work-item per point; the global size is a multiple of the group (PoCL needs uniform groups)
  void launch_points(cl::Kernel& k, std::size_t n) { launch(k, ceil_div(n, fast_block_) * fast_block_, fast_block_); }

  cl::Device device_;
  cl::Context ctx_;
  cl::CommandQueue queue_;
  std::unique_ptr<ocl::Programs> progs_;
  std::string device_name_;
  int fast_block_ = 256;
  std::size_t fast_groups_ = 1;
  std::unique_ptr<ClBuffer> slot_, counter_, result_, partials_, jpartials_;
  std::unique_ptr<ocl::Tridiag> tri_;
  Pending pending_;
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

std::unique_ptr<Backend> make_opencl_backend(const std::string& platform, int device) {
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
  if (device < 0 || static_cast<std::size_t>(device) >= chosen->devices.size())
    throw ConfigError("OpenCL device " + std::to_string(device) + " does not exist on platform '" + chosen->name +
                      "' (devices are numbered from 0); platforms and devices: " + listing(all));
  return std::make_unique<OpenClBackend>(chosen->platform, chosen->devices[static_cast<std::size_t>(device)]);
}

}  // namespace poreflow
