#include "core/models/bl1d_analytic.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/error.hpp"
#include "core/physics/bl1d.h"

namespace poreflow {

BLAnalytic::BLAnalytic(const BLAnalyticParams& p) : p_(p) {
  if (!(p.s_inj > p.s_init)) throw ConfigError("analytic Buckley-Leverett solution needs s_inj > s_init");
  // Welge: the shock saturation S_f makes the chord from (S_i, f_w(S_i)) tangent to f_w.
  // g > 0 below S_f and g < 0 above it.
  auto g = [&](double s) { return dfw(s) * (s - p_.s_init) - (fw(s) - fw(p_.s_init)); };
  if (g(p_.s_inj) >= 0) {
    s_front_ = p_.s_inj;  // injected saturation below the tangent point: a pure shock
  } else {
    double lo = p_.s_init + 1e-9, hi = p_.s_inj;
    for (int i = 0; i < 200; ++i) {
      double mid = 0.5 * (lo + hi);
      (g(mid) > 0 ? lo : hi) = mid;
    }
    s_front_ = 0.5 * (lo + hi);
  }
  for (int i = 0; i <= 100000; ++i) max_dfw_ = std::max(max_dfw_, dfw(i / 100000.0));

  // G(s) tabulated from S_inj (G = 0) down to S_f by the trapezoidal rule on a fine grid
  const int m = 20000;
  g_s_.resize(m + 1);
  g_val_.resize(m + 1);
  auto integrand = [&](double s) {
    const double h = 1e-5;
    double d2 = (dfw(s + h) - dfw(s - h)) / (2 * h);
    return -d2 / (p_.k * lambda_t(s));
  };
  for (int i = 0; i <= m; ++i) g_s_[i] = s_front_ + (p_.s_inj - s_front_) * i / m;
  g_val_[m] = 0;
  for (int i = m - 1; i >= 0; --i)
    g_val_[i] = g_val_[i + 1] + 0.5 * (g_s_[i + 1] - g_s_[i]) * (integrand(g_s_[i]) + integrand(g_s_[i + 1]));
}

double BLAnalytic::fw(double s) const { return phys::bl_frac_water<double>(s, p_.mu_w, p_.mu_o); }

double BLAnalytic::dfw(double s) const {
  // f = a / (a + b), a = s^2 / mu_w, b = (1 - s)^2 / mu_o
  double a = s * s / p_.mu_w, b = (1 - s) * (1 - s) / p_.mu_o;
  double da = 2 * s / p_.mu_w, db = -2 * (1 - s) / p_.mu_o;
  return (da * b - a * db) / ((a + b) * (a + b));
}

double BLAnalytic::lambda_t(double s) const { return phys::bl_mobility<double>(s, 1.0, p_.mu_w, p_.mu_o); }

double BLAnalytic::s_of_dfw(double target) const {
  double lo = s_front_, hi = p_.s_inj;  // f_w' decreases from dfw(S_f) to dfw(S_inj)
  for (int i = 0; i < 100; ++i) {
    double mid = 0.5 * (lo + hi);
    (dfw(mid) > target ? lo : hi) = mid;
  }
  return 0.5 * (lo + hi);
}

double BLAnalytic::tail_integral(double s_lo) const {
  if (s_lo <= g_s_.front()) return g_val_.front();
  if (s_lo >= g_s_.back()) return 0;
  double f = (s_lo - g_s_.front()) / (g_s_.back() - g_s_.front()) * (g_s_.size() - 1);
  std::size_t i = static_cast<std::size_t>(f);
  double w = f - i;
  return (1 - w) * g_val_[i] + w * g_val_[i + 1];
}

double BLAnalytic::front_position(double q) const { return q / p_.porosity * dfw(s_front_); }

double BLAnalytic::saturation(double x, double q) const {
  if (q <= 0) return x <= 0 ? p_.s_inj : p_.s_init;
  double x_inj = q / p_.porosity * dfw(p_.s_inj);
  if (x <= x_inj) return p_.s_inj;
  if (x > front_position(q)) return p_.s_init;
  return s_of_dfw(x * p_.porosity / q);
}

std::vector<double> BLAnalytic::profile(const std::vector<double>& x, double q) const {
  std::vector<double> s(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) s[i] = saturation(x[i], q);
  return s;
}

double BLAnalytic::resistance(double q) const {
  const double L = p_.length, m = p_.porosity, k = p_.k;
  double x_inj = q / m * dfw(p_.s_inj);
  if (x_inj >= L) return L / (k * lambda_t(p_.s_inj));
  double x_f = front_position(q);
  double r = x_inj / (k * lambda_t(p_.s_inj));
  if (x_f <= L) return r + q / m * tail_integral(s_front_) + (L - x_f) / (k * lambda_t(p_.s_init));
  // after breakthrough the outlet sees S_L with x(S_L) = L
  return r + q / m * tail_integral(s_of_dfw(m * L / q));
}

double BLAnalytic::injected(double t) const {
  if (t <= 0) return 0;
  const double dp = p_.p_inj - p_.p_prod;
  const int steps = 4000;
  const double h = t / steps;
  auto rate = [&](double q) { return dp / resistance(q); };
  double q = 0;
  for (int i = 0; i < steps; ++i) {
    double k1 = rate(q), k2 = rate(q + 0.5 * h * k1), k3 = rate(q + 0.5 * h * k2), k4 = rate(q + h * k3);
    q += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
  }
  return q;
}

}  // namespace poreflow
