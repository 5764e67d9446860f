// adi2d kernels of the host backends: a loop over the nodes around the shared per-node stencils of
// core/physics/adi2d.h (the same functions the CUDA and OpenCL kernels call).
#include "core/error.hpp"
#include "core/physics/adi2d.h"
#include "core/reference/host_backend.hpp"

namespace poreflow {

static_assert(kAdi2DProps == ADI_NPROPS, "core/backend.hpp and core/physics/adi2d.h disagree on the node properties");

namespace {

constexpr std::size_t kMinParallelNodes = 8192;

template <class T>
const T* in(const Buffer* b) {
  return host_ptr<T>(*b);
}
template <class T>
T* out(Buffer* b) {
  return host_ptr<T>(*b);
}

// Runs f(i, j) over every node, rows split among the threads when `par`.
template <class F>
void for_nodes(const Adi2DGeom& g, bool par, int threads, F&& f) {
  const long nx = static_cast<long>(g.nx), ny = static_cast<long>(g.ny);
  par = par && g.nx * g.ny >= kMinParallelNodes;
#pragma omp parallel for schedule(static) num_threads(threads) if (par)
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i) f(i, j);
}

template <class T>
void flash_t(const Adi2DFlashArgs& a, bool par, int threads) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  const T* prm = in<T>(a.prm);
  for_nodes(a.g, par, threads, [&](long i, long j) {
    phys::adi_flash_node<T>(prm, i, j, nx, ny, T(a.g.h), in<T>(a.mass[0]), in<T>(a.mass[1]), in<T>(a.mass[2]),
                            in<T>(a.mass[3]), in<T>(a.p), out<T>(a.sw), out<T>(a.so), out<T>(a.sg), out<T>(a.co3),
                            out<T>(a.cg3), out<T>(a.vol), out<T>(a.props));
  });
}

template <class T>
void coefficients_t(const Adi2DCoeffArgs& a, bool par, int threads) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  const T* prm = in<T>(a.prm);
  const auto& s = a.st;
  for_nodes(a.g, par, threads, [&](long i, long j) {
    phys::adi_coefficients_node<T>(prm, i, j, nx, ny, T(a.g.h), T(a.dt), in<T>(s.p), in<T>(s.sw), in<T>(s.so),
                                   in<T>(s.sg), in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), in<T>(a.vol), in<T>(a.wells.inj),
                                   in<T>(a.wells.prod), T(a.wells.p_bh), out<T>(a.aw), out<T>(a.ae), out<T>(a.as),
                                   out<T>(a.an), out<T>(a.d0), out<T>(a.rhs));
  });
}

template <class T>
void sweep_t(const Adi2DSweepArgs& a, bool par, int threads) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  for_nodes(a.g, par, threads, [&](long i, long j) {
    phys::adi_sweep_node<T>(i, j, nx, ny, a.x_sweep ? 1 : 0, T(a.r), in<T>(a.aw), in<T>(a.ae), in<T>(a.as),
                            in<T>(a.an), in<T>(a.d0), in<T>(a.rhs), in<T>(a.p), out<T>(a.a), out<T>(a.b), out<T>(a.c),
                            out<T>(a.d));
  });
}

template <class T>
void velocity_t(const Adi2DVelocityArgs& a, bool par, int threads) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  const T* prm = in<T>(a.prm);
  const auto& s = a.st;
  for_nodes(a.g, par, threads, [&](long i, long j) {
    phys::adi_total_velocity_node<T>(prm, i, j, nx, ny, in<T>(s.p), in<T>(s.sw), in<T>(s.so), in<T>(s.sg),
                                     in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), out<T>(a.ux), out<T>(a.uy));
  });
}

template <class T>
void transport_t(const Adi2DTransportArgs& a, bool par, int threads) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  const T* prm = in<T>(a.prm);
  const auto& s = a.st;
  for_nodes(a.g, par, threads, [&](long i, long j) {
    phys::adi_transport_node<T>(prm, i, j, nx, ny, T(a.dt), in<T>(s.p), in<T>(s.sw), in<T>(s.so), in<T>(s.sg),
                                in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), in<T>(a.ux), in<T>(a.uy), in<T>(a.wells.inj),
                                in<T>(a.wells.prod), T(a.wells.p_bh),
                                in<T>(a.mass_in[0]), in<T>(a.mass_in[1]), in<T>(a.mass_in[2]), in<T>(a.mass_in[3]),
                                out<T>(a.mass_out[0]), out<T>(a.mass_out[1]), out<T>(a.mass_out[2]),
                                out<T>(a.mass_out[3]), out<T>(a.acc[0]), out<T>(a.acc[1]), out<T>(a.acc[2]),
                                out<T>(a.acc[3]));
  });
}

template <class T>
void rate_t(const Adi2DRateArgs& a, bool par, int threads) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  const T* prm = in<T>(a.prm);
  const auto& s = a.st;
  T* rate = out<T>(a.rate);
  for_nodes(a.g, par, threads, [&](long i, long j) {
    rate[j * nx + i] = phys::adi_rate_node<T>(prm, i, j, nx, ny, T(a.g.h), in<T>(s.p), in<T>(s.sw), in<T>(s.so),
                                              in<T>(s.sg), in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), in<T>(a.ux), in<T>(a.uy),
                                              in<T>(a.vol), in<T>(a.wells.prod), T(a.wells.p_bh));
  });
}

}  // namespace

#define PF_DISPATCH(fn, args) \
  (args).prec == Precision::Float ? fn<float>(args, parallel_, threads_) : fn<double>(args, parallel_, threads_)

void HostBackend::adi2d_flash(const Adi2DFlashArgs& a) { PF_DISPATCH(flash_t, a); }
void HostBackend::adi2d_coefficients(const Adi2DCoeffArgs& a) { PF_DISPATCH(coefficients_t, a); }
void HostBackend::adi2d_sweep(const Adi2DSweepArgs& a) { PF_DISPATCH(sweep_t, a); }
void HostBackend::adi2d_total_velocity(const Adi2DVelocityArgs& a) { PF_DISPATCH(velocity_t, a); }
void HostBackend::adi2d_transport(const Adi2DTransportArgs& a) { PF_DISPATCH(transport_t, a); }
void HostBackend::adi2d_rate(const Adi2DRateArgs& a) { PF_DISPATCH(rate_t, a); }

}  // namespace poreflow
