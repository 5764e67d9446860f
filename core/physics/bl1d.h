/* Buckley-Leverett physics (paper 000), written once for C++, CUDA and OpenCL.
   Water saturation s; relative permeabilities k_rw = s^2 and k_ro = (1 - s)^2 (the paper's
   (1 - S_o)^2 is a slip: with S_o + S_w = 1 the intended law is (1 - S_w)^2). */
#ifndef PF_PHYSICS_BL1D_H
#define PF_PHYSICS_BL1D_H

#include "core/base/common.h"

PF_NAMESPACE_BEGIN

PF_TEMPLATE PF_FN pf_real bl_krw(pf_real s) { return s * s; }

PF_TEMPLATE PF_FN pf_real bl_kro(pf_real s) { return ((pf_real)1 - s) * ((pf_real)1 - s); }

/* total mobility k (k_rw/mu_w + k_ro/mu_o) of a point */
PF_TEMPLATE PF_FN pf_real bl_mobility(pf_real s, pf_real k, pf_real mu_w, pf_real mu_o) {
  return k * (bl_krw(s) / mu_w + bl_kro(s) / mu_o);
}

/* water fractional flow f_w = lambda_w / (lambda_w + lambda_o) */
PF_TEMPLATE PF_FN pf_real bl_frac_water(pf_real s, pf_real mu_w, pf_real mu_o) {
  pf_real lw = bl_krw(s) / mu_w;
  pf_real lo = bl_kro(s) / mu_o;
  return lw / (lw + lo);
}

/* M_{i+1/2} = (M_i + M_{i+1}) / 2, the paper's face average (eq. 9) */
PF_TEMPLATE PF_FN pf_real bl_face_mobility(pf_real s_left, pf_real s_right, pf_real k, pf_real mu_w, pf_real mu_o) {
  return (pf_real)0.5 * (bl_mobility(s_left, k, mu_w, mu_o) + bl_mobility(s_right, k, mu_w, mu_o));
}

/* one Jacobi update of an interior point (eq. 9); m_minus = M_{i-1/2}, m_plus = M_{i+1/2} */
PF_TEMPLATE PF_FN pf_real bl_jacobi_point(pf_real p_left, pf_real p_right, pf_real m_minus, pf_real m_plus) {
  return (m_plus * p_right + m_minus * p_left) / (m_plus + m_minus);
}

/* Convergence metric of one updated point. For Jacobi the residual of the old iterate is
   (M- + M+)(p_new - p_old), so the residual test costs one multiply more than the dp test. */
PF_TEMPLATE PF_FN pf_real bl_jacobi_metric(pf_real p_new, pf_real p_old, pf_real m_minus, pf_real m_plus, int residual) {
  pf_real d = fabs(p_new - p_old);
  return residual ? (m_minus + m_plus) * d : d;
}

/* total (Darcy) velocity through face i+1/2: u = -M (p_{i+1} - p_i) / h */
PF_TEMPLATE PF_FN pf_real bl_face_velocity(pf_real m_face, pf_real p_left, pf_real p_right, pf_real inv_h) {
  return -m_face * (p_right - p_left) * inv_h;
}

/* upwind water flux through a face: f_w of the upstream point times the total velocity */
PF_TEMPLATE PF_FN pf_real bl_water_flux(pf_real u, pf_real s_left, pf_real s_right, pf_real mu_w, pf_real mu_o) {
  return u * bl_frac_water(u >= (pf_real)0 ? s_left : s_right, mu_w, mu_o);
}

/* explicit upwind update of interior point i from its two faces; c = dt / (m h) */
PF_TEMPLATE PF_FN pf_real bl_saturation_point(pf_real s_im1, pf_real s_i, pf_real s_ip1, pf_real u_minus, pf_real u_plus,
                                              pf_real c, pf_real mu_w, pf_real mu_o) {
  pf_real f_minus = bl_water_flux(u_minus, s_im1, s_i, mu_w, mu_o);
  pf_real f_plus = bl_water_flux(u_plus, s_i, s_ip1, mu_w, mu_o);
  return s_i - c * (f_plus - f_minus);
}

/* Row i of the 1D pressure equation as one tridiagonal system, the ends held at p_left and
   p_right: -M- p_{i-1} + (M- + M+) p_i - M+ p_{i+1} = 0 (the equation Jacobi iterates on). */
PF_TEMPLATE PF_FN void bl_pressure_row(long i, long n, pf_real m_minus, pf_real m_plus, pf_real p_left, pf_real p_right,
                                       pf_real* a, pf_real* b, pf_real* c, pf_real* d) {
  if (i == 0 || i == n - 1) {
    *a = (pf_real)0;
    *b = (pf_real)1;
    *c = (pf_real)0;
    *d = i == 0 ? p_left : p_right;
    return;
  }
  *a = -m_minus;
  *b = m_minus + m_plus;
  *c = -m_plus;
  *d = (pf_real)0;
}

PF_NAMESPACE_END

#endif
