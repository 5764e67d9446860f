// Kernel arguments described once (core/kernels/kernel_args.hpp): the descriptions' kinds and
// derived values, and the OpenCL backend's check of what it sets against the built kernel's
// parameter count (backends/opencl/context.hpp, set_args). Every family's launches go through the
// same check, so the family tests on opencl cover each description; these test the check itself.
#include <algorithm>
#include <string>
#include <tuple>
#include <type_traits>

#include "core/base/error.hpp"
#include "core/kernels/bl1d.hpp"
#include "core/kernels/blas.hpp"
#include "core/kernels/fluids3d.hpp"
#include "core/kernels/reduce.hpp"
#include "tests/harness.hpp"

#if POREFLOW_HAVE_OPENCL
#include "backends/opencl/context.hpp"
#endif

using namespace poreflow;
using namespace poreflow::test;

TEST_SUITE("unit") {

TEST_CASE("kernel_args: a description lists the kernel's parameters in order, derived values included") {
  using namespace karg;
  Buffer x(8), y(8), g(8);
  const AxpyArgs ax{Precision::Float, 100, 0.5, &x, &y, &g};
  const auto d = ax.kernel_args();
  static_assert(std::is_same_v<decltype(d), const std::tuple<std::size_t, Real, In<Real>, Out<Real>, Opt<pf_u64>>>);
  CHECK(std::get<0>(d) == 100);
  CHECK(std::get<1>(d).v == 0.5);
  CHECK(std::get<2>(d).b == &x);
  CHECK(std::get<3>(d).b == &y);
  CHECK(std::get<4>(d).b == &g);

  // bl1d's face kernels take the faces, n - 1
  BLFaceMobilityArgs fm;
  fm.n = 7;
  CHECK(std::get<2>(fm.kernel_args()) == 6);

  // the second input of a reduction only where the op reads it
  ReduceArgs r;
  r.a = &x;
  r.b = &y;
  r.op = ReduceOp::Sum;
  CHECK(std::get<1>(r.kernel_args()).b == nullptr);
  r.op = ReduceOp::MaxAbsDiff;
  CHECK(std::get<1>(r.kernel_args()).b == &y);

  // fluids3d: the traced step per axis, the source's extent, the solve's control block
  FluidsAdvectArgs adv;
  adv.box = Box3::standalone(4, 5, 6, 1);
  adv.dt = 0.25;
  const auto da = adv.kernel_args();
  CHECK(std::get<7>(da).v == 1.0);
  CHECK(std::get<8>(da).v == 1.25);
  CHECK(std::get<9>(da).v == 1.5);
  CHECK(std::get<10>(da).v == 0.5);  // a box that is the whole grid: clamped to [0.5, nz + 0.5]
  CHECK(std::get<11>(da).v == 6.5);
  adv.z_cells = 20;  // cut from a grid of 20 layers: its trace, and the clamp given
  adv.z_lo = -1;
  adv.z_hi = 7;
  const auto dz = adv.kernel_args();
  CHECK(std::get<9>(dz).v == 5.0);
  CHECK(std::get<10>(dz).v == -1.0);
  CHECK(std::get<11>(dz).v == 7.0);
  FluidsSourceArgs src;
  src.i0 = 1, src.i1 = 3, src.j0 = 2, src.j1 = 2, src.k0 = 0, src.k1 = 4;
  const auto ds = src.kernel_args();
  CHECK(std::get<6>(ds) == 3);
  CHECK(std::get<7>(ds) == 1);
  CHECK(std::get<8>(ds) == 5);
  FluidsSolveArgs sv;
  sv.ctrl = &g;
  sv.ctrl_block = 3;
  sv.c = 4;
  const auto dsv = sv.sweep_args();
  CHECK(std::get<4>(dsv).v == 0.25);
  CHECK(std::get<7>(dsv) == PF_FL_WALL_ALL);
  CHECK(std::get<8>(dsv).b == &g);
  CHECK(std::get<8>(dsv).at == 3 * PF_CV_WORDS);
}

}  // TEST_SUITE("unit")

#if POREFLOW_HAVE_OPENCL

TEST_SUITE("backend") {

namespace {

bool opencl_under_test() {
  for (const auto& n : env().backends)
    if (n == "opencl") return true;
  return false;
}

// the device the opencl tests run on (--pf-cl-platform, else the first platform with a device)
std::unique_ptr<ocl::ClContext> test_context() {
  std::vector<cl::Platform> platforms;
  if (cl::Platform::get(&platforms) != CL_SUCCESS) return nullptr;
  for (auto& p : platforms) {
    std::string name;
    p.getInfo(CL_PLATFORM_NAME, &name);
    if (!env().opts.cl_platform.empty() && name.find(env().opts.cl_platform) == std::string::npos) continue;
    std::vector<cl::Device> devices;
    const auto index = static_cast<std::size_t>(std::max(0, env().opts.cl_device));  // -1: the first
    if (p.getDevices(CL_DEVICE_TYPE_ALL, &devices) != CL_SUCCESS || devices.size() <= index) continue;
    return std::make_unique<ocl::ClContext>(p, devices[index]);
  }
  return nullptr;
}

// the message of the BackendError f throws ("" when it throws none)
template <class F>
std::string error_of(F&& f) {
  try {
    f();
  } catch (const BackendError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("opencl: set_args checks the arguments it sets against the built kernel's parameter count") {
  if (!opencl_under_test()) return;
  auto ctx = test_context();
  REQUIRE(ctx != nullptr);
  ocl::ClContext& c = *ctx;
  ocl::ClKernel& k = c.kernel("blas", Precision::Float, c.fast_block(), "axpy");
  CHECK(k.name() == "axpy");
  CHECK(k.params() == 5);
  ocl::ClBuffer x(c.context(), 64), y(c.context(), 64);
  AxpyArgs a{Precision::Float, 16, 2.0, &x, &y, nullptr};

  // the description as it is: every parameter, the optional guard null
  CHECK(c.set_args(k, a.prec, a.kernel_args()) == 5);

  // one argument too few (the guard left out), one too many (an extra the kernel does not take)
  const auto d = a.kernel_args();
  const std::string fewer = error_of([&] { c.set_args(k, a.prec, std::tuple(std::get<0>(d), std::get<1>(d), std::get<2>(d), std::get<3>(d))); });
  CHECK(fewer.find("kernel axpy takes 5 arguments, 4 were given") != std::string::npos);
  const std::string more = error_of([&] { c.set_args(k, a.prec, a.kernel_args(), cl_int(1)); });
  CHECK(more.find("kernel axpy takes 5 arguments, 6 were given") != std::string::npos);

  // a buffer the kernel needs, missing
  a.y = nullptr;
  const std::string missing = error_of([&] { c.set_args(k, a.prec, a.kernel_args()); });
  CHECK(missing.find("kernel axpy") != std::string::npos);
  CHECK(missing.find("argument 3") != std::string::npos);

  // set right again, the kernel runs: y = 1 + 2 * 3 = 7
  a.y = &y;
  const float ones[16] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
  const float threes[16] = {3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3, 3};
  PF_CHECK_CL(c.queue().enqueueWriteBuffer(y.mem, CL_TRUE, 0, sizeof ones, ones));
  PF_CHECK_CL(c.queue().enqueueWriteBuffer(x.mem, CL_TRUE, 0, sizeof threes, threes));
  c.set_args(k, a.prec, a.kernel_args());
  c.launch_points(k, a.n);
  float out[16] = {};
  PF_CHECK_CL(c.queue().enqueueReadBuffer(y.mem, CL_TRUE, 0, sizeof out, out));
  CHECK(out[0] == 7.0f);
  CHECK(out[15] == 7.0f);
}

}  // TEST_SUITE("backend")

#endif
