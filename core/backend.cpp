#include "core/backend.hpp"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/kernels/jacobi_ctrl.h"

namespace poreflow {

void check_range(const Buffer& b, std::size_t bytes, std::size_t offset, const char* what) {
  if (offset > b.bytes() || bytes > b.bytes() - offset)
    throw BackendError(std::string(what) + ": range outside the buffer");
}

void check_tridiag_args(const TridiagArgs& args, const char* what) {
  if (!args.a || !args.b || !args.c || !args.d || !args.x) throw BackendError(std::string(what) + ": missing buffer");
  if (args.n != 0 && args.batch > std::numeric_limits<std::size_t>::max() / 8 / args.n)
    throw BackendError(std::string(what) + ": n * batch is too large");
  const std::size_t bytes = args.n * args.batch * size_of(args.prec);
  for (const Buffer* b : {args.a, args.b, args.c, args.d}) {
    check_range(*b, bytes, 0, what);
    if (b == args.x) throw BackendError(std::string(what) + ": x must not be one of the inputs");
  }
  check_range(*args.x, bytes, 0, what);
}

void Backend::check_reduce_config(const ReduceConfig& cfg) const {
  auto vs = reduce_variants();
  if (std::find(vs.begin(), vs.end(), cfg.variant) == vs.end()) {
    std::string names;
    for (auto v : vs) names += std::string(names.empty() ? "" : ", ") + to_string(v);
    throw ConfigError("reduction '" + std::string(to_string(cfg.variant)) + "' is not available on the " + name() +
                      " backend (available: " + names + ", auto)");
  }
  if (cfg.block < 32 || cfg.block > 1024 || (cfg.block & (cfg.block - 1)) != 0)
    throw ConfigError("block size " + std::to_string(cfg.block) + " must be a power of two in [32, 1024]");
}

void Backend::vendor_reduce_enqueue(const ReduceArgs&) {
  throw BackendError("the " + name() + " backend has no vendor reduction");
}

void Backend::tridiag_solve(const TridiagArgs&) {
  throw BackendError("tridiag_solve is not implemented on the " + name() + " backend yet");
}

void Backend::adi2d_flash(const Adi2DFlashArgs&) { throw BackendError("adi2d is not implemented on " + name() + " yet"); }
void Backend::adi2d_coefficients(const Adi2DCoeffArgs&) {
  throw BackendError("adi2d is not implemented on " + name() + " yet");
}
void Backend::adi2d_sweep(const Adi2DSweepArgs&) { throw BackendError("adi2d is not implemented on " + name() + " yet"); }
void Backend::adi2d_total_velocity(const Adi2DVelocityArgs&) {
  throw BackendError("adi2d is not implemented on " + name() + " yet");
}
void Backend::adi2d_transport(const Adi2DTransportArgs&) {
  throw BackendError("adi2d is not implemented on " + name() + " yet");
}
void Backend::adi2d_rate(const Adi2DRateArgs&) { throw BackendError("adi2d is not implemented on " + name() + " yet"); }

void Backend::bl1d_pressure_system(const BLPressureSystemArgs&) {
  throw BackendError("bl1d_pressure_system is not implemented on " + name() + " yet");
}

void Backend::vendor_tridiag_solve(const TridiagArgs& args) {
  throw BackendError("the " + name() + " backend has no vendor tridiagonal solver for the " +
                     to_string(args.layout) + " layout");
}

void Backend::jacobi1d_reset(const Jacobi1DArgs& args) {
  std::uint64_t zeros[PF_JCTRL_WORDS] = {};
  upload(*args.ctrl, zeros, sizeof(zeros));
}

JacobiStatus Backend::jacobi1d_status(const Jacobi1DArgs& args, long next) {
  std::uint64_t w[PF_JCTRL_WORDS];
  download(*args.ctrl, w, sizeof(w));
  auto slot_value = [&](long check) -> double {
    std::uint64_t bits = w[PF_JCTRL_SLOT0 + check % PF_JCTRL_NSLOTS];
    if (args.prec == Precision::Float) {
      std::uint32_t b32 = static_cast<std::uint32_t>(bits);
      float f;
      std::memcpy(&f, &b32, sizeof f);
      return f;
    }
    double d;
    std::memcpy(&d, &bits, sizeof d);
    return d;
  };
  const long k = args.check_every;
  JacobiStatus st;
  if (w[PF_JCTRL_CONVERGED]) {
    st.converged = true;
    st.iterations = static_cast<long>(w[PF_JCTRL_ITERATIONS]);
  } else {
    st.iterations = next;
  }
  long checks = st.iterations / k;  // checks completed
  if (checks > 0) {
    st.last_metric = slot_value(checks - 1);
    // the device decides in the launch after a check; a batch that ended on a check is decided here
    if (!st.converged && st.iterations % k == 0 && st.last_metric < args.threshold) st.converged = true;
  }
  return st;
}

}  // namespace poreflow
