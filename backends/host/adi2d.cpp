// adi2d on the host backends: a loop over the nodes around the shared per-node stencils of
// core/physics/adi2d.h (the same functions the CUDA and OpenCL kernels call).
#include <cmath>
#include <limits>

#include "core/base/converge.h"
#include "core/physics/adi2d.h"
#include "backends/host/families.hpp"
#include "core/kernels/adi2d.hpp"

namespace poreflow {
namespace {

template <class T>
const T* in(const Buffer* b) {
  return host_ptr<T>(*b);
}
template <class T>
T* out(Buffer* b) {
  return host_ptr<T>(*b);
}

// Runs f(i, j) over every node, rows split among the threads when the grid is large enough.
template <class F>
void for_nodes(const HostContext& hc, const Adi2DGeom& g, F&& f) {
  const long nx = static_cast<long>(g.nx), ny = static_cast<long>(g.ny);
#pragma omp parallel for schedule(static) num_threads(hc.threads) if (hc.par(g.nx * g.ny))
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i) f(i, j);
}

template <class T>
void flash_t(const HostContext& hc, const Adi2DFlashArgs& a) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  const T* prm = in<T>(a.prm);
  for_nodes(hc, a.g, [&](long i, long j) {
    phys::adi_flash_node<T>(prm, i, j, nx, ny, T(a.g.h), in<T>(a.mass[0]), in<T>(a.mass[1]), in<T>(a.mass[2]),
                            in<T>(a.mass[3]), in<T>(a.p), out<T>(a.sw), out<T>(a.so), out<T>(a.sg), out<T>(a.co3),
                            out<T>(a.cg3), out<T>(a.vol), out<T>(a.props));
  });
}

template <class T>
void coefficients_t(const HostContext& hc, const Adi2DCoeffArgs& a) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  const T* prm = in<T>(a.prm);
  const auto& s = a.st;
  for_nodes(hc, a.g, [&](long i, long j) {
    phys::adi_coefficients_node<T>(prm, i, j, nx, ny, T(a.g.h), T(a.dt), in<T>(s.p), in<T>(s.sw), in<T>(s.so),
                                   in<T>(s.sg), in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), in<T>(a.vol),
                                   in<T>(a.wells.inj), in<T>(a.wells.prod), T(a.wells.p_bh), out<T>(a.aw), out<T>(a.ae),
                                   out<T>(a.as), out<T>(a.an), out<T>(a.d0), out<T>(a.rhs));
  });
}

template <class T>
void sweep_t(const HostContext& hc, const Adi2DSweepArgs& a) {
  unsigned long long* w = a.ctl.ctrl ? host_ptr<unsigned long long>(*a.ctl.ctrl) : nullptr;
  if (w && !phys::pf_cv_running(w)) return;
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  auto node = [&](long i, long j) {
    return phys::adi_sweep_node<T>(i, j, nx, ny, a.x_sweep ? 1 : 0, T(a.r), in<T>(a.aw), in<T>(a.ae), in<T>(a.as),
                                   in<T>(a.an), in<T>(a.d0), in<T>(a.rhs), in<T>(a.p), out<T>(a.a), out<T>(a.b),
                                   out<T>(a.c), out<T>(a.d));
  };
  if (!a.ctl.checks()) {
    for_nodes(hc, a.g, [&](long i, long j) { node(i, j); });
    return;
  }
  // the check: max |residual| into the slot (NaN wins, as in the devices' bit-pattern max), and
  // the iterate into the candidate buffer that does not hold the best
  T* cand = a.candidates[0] ? out<T>(a.candidates[phys::pf_cv_candidate(w)]) : nullptr;
  const T* q = in<T>(a.p);
  T m = 0;
  bool nan = false;
#pragma omp parallel for schedule(static) num_threads(hc.threads) if (hc.par(a.g.nx * a.g.ny)) reduction(max : m) \
    reduction(|| : nan)
  for (long j = 0; j < ny; ++j)
    for (long i = 0; i < nx; ++i) {
      const T r = std::fabs(node(i, j));
      if (cand) cand[j * nx + i] = q[j * nx + i];
      m = r > m ? r : m;
      nan = nan || std::isnan(r);
    }
  if (nan) m = std::numeric_limits<T>::quiet_NaN();
  w[PF_CV_SLOT0 + a.ctl.check_slot] = phys::pf_to_word(m);
  w[PF_CV_SLOT0 + a.ctl.clear_slot] = 0;
}

template <class T>
void velocity_t(const HostContext& hc, const Adi2DVelocityArgs& a) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  const T* prm = in<T>(a.prm);
  const auto& s = a.st;
  for_nodes(hc, a.g, [&](long i, long j) {
    phys::adi_total_velocity_node<T>(prm, i, j, nx, ny, in<T>(s.p), in<T>(s.sw), in<T>(s.so), in<T>(s.sg),
                                     in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), out<T>(a.ux), out<T>(a.uy));
  });
}

template <class T>
void transport_t(const HostContext& hc, const Adi2DTransportArgs& a) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  const T* prm = in<T>(a.prm);
  const auto& s = a.st;
  for_nodes(hc, a.g, [&](long i, long j) {
    phys::adi_transport_node<T>(prm, i, j, nx, ny, T(a.dt), in<T>(s.p), in<T>(s.sw), in<T>(s.so), in<T>(s.sg),
                                in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), in<T>(a.ux), in<T>(a.uy),
                                in<T>(a.wells.inj), in<T>(a.wells.prod), T(a.wells.p_bh), in<T>(a.mass_in[0]),
                                in<T>(a.mass_in[1]), in<T>(a.mass_in[2]), in<T>(a.mass_in[3]), out<T>(a.mass_out[0]),
                                out<T>(a.mass_out[1]), out<T>(a.mass_out[2]), out<T>(a.mass_out[3]), out<T>(a.acc[0]),
                                out<T>(a.acc[1]), out<T>(a.acc[2]), out<T>(a.acc[3]));
  });
}

template <class T>
void rate_t(const HostContext& hc, const Adi2DRateArgs& a) {
  const long nx = static_cast<long>(a.g.nx), ny = static_cast<long>(a.g.ny);
  const T* prm = in<T>(a.prm);
  const auto& s = a.st;
  T* rate = out<T>(a.rate);
  for_nodes(hc, a.g, [&](long i, long j) {
    rate[j * nx + i] = phys::adi_rate_node<T>(prm, i, j, nx, ny, T(a.g.h), in<T>(s.p), in<T>(s.sw), in<T>(s.so),
                                              in<T>(s.sg), in<T>(s.co3), in<T>(s.cg3), in<T>(s.props), in<T>(a.ux),
                                              in<T>(a.uy), in<T>(a.vol), in<T>(a.wells.prod), T(a.wells.p_bh));
  });
}

class HostAdi2D final : public Adi2DImpl {
 public:
  explicit HostAdi2D(const HostContext& hc) : hc_(hc) {}
  void flash(const Adi2DFlashArgs& a) override { with_type(a.prec, [&](auto t) { flash_t<decltype(t)>(hc_, a); }); }
  void coefficients(const Adi2DCoeffArgs& a) override {
    with_type(a.prec, [&](auto t) { coefficients_t<decltype(t)>(hc_, a); });
  }
  void sweep(const Adi2DSweepArgs& a) override { with_type(a.prec, [&](auto t) { sweep_t<decltype(t)>(hc_, a); }); }
  void total_velocity(const Adi2DVelocityArgs& a) override {
    with_type(a.prec, [&](auto t) { velocity_t<decltype(t)>(hc_, a); });
  }
  void transport(const Adi2DTransportArgs& a) override {
    with_type(a.prec, [&](auto t) { transport_t<decltype(t)>(hc_, a); });
  }
  void rate(const Adi2DRateArgs& a) override { with_type(a.prec, [&](auto t) { rate_t<decltype(t)>(hc_, a); }); }

 private:
  HostContext hc_;
};

}  // namespace

FamilyPtr<Adi2DImpl> make_family(const HostContext& hc, FamilyTag<Adi2DImpl>) { return std::make_shared<HostAdi2D>(hc); }

}  // namespace poreflow
