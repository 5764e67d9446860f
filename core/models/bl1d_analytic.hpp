#pragma once
// The analytic Buckley-Leverett solution with Welge's tangent construction, for a core of
// length L held at a fixed pressure drop (the bl1d boundary conditions). The profile depends on
// the injected volume per unit area Q(t) only; Q(t) follows from dQ/dt = dP / R(Q), where R is
// the flow resistance of the current profile, integrated exactly in saturation space.
#include <vector>

namespace poreflow {

struct BLAnalyticParams {
  double k = 0.001, porosity = 0.2, mu_w = 0.09, mu_o = 0.3;
  double s_init = 0.001, s_inj = 1.0;
  double p_inj = 0.5, p_prod = 0.1;
  double length = 1.0;
};

class BLAnalytic {
 public:
  explicit BLAnalytic(const BLAnalyticParams& p);

  double front_saturation() const { return s_front_; }
  double fw(double s) const;
  double dfw(double s) const;            // d f_w / dS, exact
  double max_dfw() const { return max_dfw_; }  // over [0, 1], for the CFL limit

  double front_position(double q) const;  // x_f = Q / m * f_w'(S_f)
  double saturation(double x, double q) const;
  std::vector<double> profile(const std::vector<double>& x, double q) const;

  double resistance(double q) const;  // R(Q) = integral of dx / (k lambda_t(S(x, Q)))
  double injected(double t) const;    // Q(t), by RK4 on dQ/dt = dP / R(Q)
  double breakthrough_q() const { return p_.porosity * p_.length / dfw(s_front_); }

 private:
  double lambda_t(double s) const;           // k_rw/mu_w + k_ro/mu_o
  double s_of_dfw(double target) const;      // S in [S_f, S_inj] with f_w'(S) = target (f_w' decreasing there)
  double tail_integral(double s_lo) const;   // G(s) = int_s^{S_inj} -f_w''(S) / (k lambda_t(S)) dS, tabulated

  BLAnalyticParams p_;
  double s_front_ = 0, max_dfw_ = 0;
  std::vector<double> g_s_, g_val_;  // table of G on a fine grid of S in [S_f, S_inj]
};

}  // namespace poreflow
