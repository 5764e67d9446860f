#pragma once
// The bl1d family: paper 000's Buckley-Leverett point kernels around core/physics/bl1d.h.
#include <cstddef>

#include "core/kernels/backend.hpp"
#include "core/kernels/kernel_args.hpp"

namespace poreflow {

// Parameters as in core/physics/bl1d.h.
struct BLParams {
  double k = 0.001, mu_w = 0.09, mu_o = 0.3;
};

// mface[i] = M_{i+1/2}, the average of the total mobilities of points i and i + 1, i < n - 1.
struct BLFaceMobilityArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;          // points (n < 2: no faces, nothing to do)
  const Buffer* s = nullptr;  // n saturations
  Buffer* mface = nullptr;    // n - 1 faces
  BLParams phys;

  // bl1d_face_mobility(s, mface, faces, k, mu_w, mu_o), n >= 2 (core/kernels/kernel_args.hpp)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{s}, Out<Real>{mface}, n - 1, Real{phys.k}, Real{phys.mu_w}, Real{phys.mu_o});
  }
};

// u[i] = -M_{i+1/2} (p[i + 1] - p[i]) inv_h, i < n - 1.
struct BLFaceVelocityArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  const Buffer* p = nullptr;      // n pressures
  const Buffer* mface = nullptr;  // n - 1
  Buffer* u = nullptr;            // n - 1 face velocities
  double inv_h = 1;

  // bl1d_face_velocity(p, mface, u, faces, inv_h), n >= 2
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{p}, In<Real>{mface}, Out<Real>{u}, n - 1, Real{inv_h});
  }
};

// The 1D pressure equation as one tridiagonal system (bl1d's `tridiag` pressure solver): rows 0
// and n - 1 hold p_left and p_right, the others -M- p_{i-1} + (M- + M+) p_i - M+ p_{i+1} = 0.
struct BLPressureSystemArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;
  const Buffer* mface = nullptr;  // n - 1
  double p_left = 0, p_right = 0;
  Buffer *a = nullptr, *b = nullptr, *c = nullptr, *d = nullptr;  // n each

  // bl1d_pressure_system(mface, n, p_left, p_right, a, b, c, d); mface is null for n = 1
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(Opt<Real>{mface}, n, Real{p_left}, Real{p_right}, Out<Real>{a}, Out<Real>{b}, Out<Real>{c},
                      Out<Real>{d});
  }
};

// s_new[0] = s_inj; interior points by the upwind update; s_new[n-1] = s_new[n-2] (dS/dx = 0).
// s_new must not be s_old.
struct BLSaturationArgs {
  Precision prec = Precision::Double;
  std::size_t n = 0;  // >= 2
  const Buffer* s_old = nullptr;
  const Buffer* u = nullptr;  // n - 1 face velocities
  Buffer* s_new = nullptr;
  double c = 0;  // dt / (porosity h)
  double s_inj = 1;
  BLParams phys;

  // bl1d_saturation(s_old, u, s_new, n, c, s_inj, mu_w, mu_o)
  auto kernel_args() const {
    using namespace karg;
    return std::tuple(In<Real>{s_old}, In<Real>{u}, Out<Real>{s_new}, n, Real{c}, Real{s_inj}, Real{phys.mu_w},
                      Real{phys.mu_o});
  }
};

class Bl1dImpl {
 public:
  virtual ~Bl1dImpl() = default;
  // arguments checked; n >= 2 (n >= 1 for pressure_system)
  virtual void face_mobility(const BLFaceMobilityArgs& a) = 0;
  virtual void face_velocity(const BLFaceVelocityArgs& a) = 0;
  virtual void saturation(const BLSaturationArgs& a) = 0;
  virtual void pressure_system(const BLPressureSystemArgs& a) = 0;
};

class Bl1dKernels {
 public:
  Bl1dKernels(Backend& be, Bl1dImpl& impl) : be_(be), impl_(impl) {}
  void face_mobility(const BLFaceMobilityArgs& a);
  void face_velocity(const BLFaceVelocityArgs& a);
  void saturation(const BLSaturationArgs& a);
  void pressure_system(const BLPressureSystemArgs& a);

 private:
  Backend& be_;
  Bl1dImpl& impl_;
};

}  // namespace poreflow
