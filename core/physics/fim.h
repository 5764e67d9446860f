/* The fully implicit oil-water scheme's residuals and their analytic derivatives (issue 23;
   docs/fim.md), written once for C++, CUDA and OpenCL C over impes3d's parameters and tables
   (core/physics/impes3d.h: PVTW, PVDO, ROCK, SWOF, gravity; METRIC units: bar, m, day, sm3).

   Unknowns of a cell: its oil pressure p and water saturation s. Surface volumes in place:
     m_w = V_p(p) s / B_w(p),   m_o = V_p(p) (1 - s) / B_o(p)
   Residual of phase a over a step dt (sm3; the mass balance of the cell):
     R_a = m_a - m_a^n - dt (sum over faces of F_a + q_a)
   F_a, the flux into the cell through a face, is T lambda_a(upstream) dPhi_a, with
     lambda_w = k_rw(s) / (mu_w B_w),  lambda_o = k_ro(s) / (mu_o B_o)        (1/cP, surface volumes)
     dPhi_o = (p_b - p_a) - g_o (d_b - d_a),  dPhi_w = dPhi_o - (pc_b - pc_a) - (g_w - g_o) (d_b - d_a)
   where g = rho g / B is the mean of the two cells' (pressure dependent), pc = p_cow(s_w). The
   upstream cell of each phase is the one of higher potential (at a tie, the lower index). A face is
   computed once, from its lower-index cell; the other cell takes its negative, so each phase is
   conserved to rounding. Derivatives ignore the switch of upstream (a kink, as in every FIM code). */
#ifndef PF_PHYSICS_FIM_H
#define PF_PHYSICS_FIM_H

#include "core/physics/impes3d.h"

PF_NAMESPACE_BEGIN

/* A cell's properties at (p, s) with their derivatives: d?_dp, d?_ds. */
PF_STRUCT(fim_cell) {
  pf_real mw, dmw_dp, dmw_ds; /* surface volumes in place, sm3 */
  pf_real mo, dmo_dp, dmo_ds;
  pf_real lw, dlw_dp, dlw_ds; /* mobilities */
  pf_real lo, dlo_dp, dlo_ds;
  pf_real pc, dpc_ds;         /* p_cow, bar */
  pf_real gw, dgw_dp;         /* rho g / B, bar/m */
  pf_real go, dgo_dp;
  pf_real ibw, dibw;          /* 1 / B_w, 1 / B_o and their pressure slopes */
  pf_real ibo, dibo;
};

/* The properties of a cell of reference pore volume pv0 at (p, s). The saturation tables are
   clamped at their ends (their slopes 0 outside), the PVT extrapolated, as in impes3d. */
PF_TEMPLATE PF_FN PF_T(fim_cell) fim_cell_at(PF_TABLE_SPACE const pf_real* prm, pf_real pv0, pf_real p, pf_real s) {
  PF_T(fim_cell) c;
  /* water: B_w = B_ref / e2(X); 1 / (B_w mu_w) = e2(Y) / (B_ref mu_ref) (PVTW) */
  const pf_real dpw = p - prm[IMP_PVTW_PREF];
  const pf_real cw = prm[IMP_PVTW_CW], cy = prm[IMP_PVTW_CW] - prm[IMP_PVTW_CVW];
  const pf_real x = cw * dpw, ex = imp_exp2(x), y = cy * dpw, ey = imp_exp2(y);
  const pf_real bref = prm[IMP_PVTW_BW], bmref = prm[IMP_PVTW_BW] * prm[IMP_PVTW_MUW];
  const pf_real ibw = ex / bref, dibw = cw * ((pf_real)1 + x) / bref; /* 1 / B_w and its slope */
  const pf_real ibmw = ey / bmref, dibmw = cy * ((pf_real)1 + y) / bmref;
  /* oil: 1 / B_o and 1 / (B_o mu_o) linear in p between PVDO's rows */
  const long n = (long)prm[IMP_PVDO_N], at = (long)prm[IMP_PVDO_AT];
  pf_real dibo, dibmo;
  const pf_real ibo = imp_table(prm, at, at + n, n, p, 0, &dibo);
  const pf_real ibmo = imp_table(prm, at, at + 2 * n, n, p, 0, &dibmo);
  /* rock */
  pf_real dfdp;
  const pf_real f = imp_pore_factor(prm, p, &dfdp);
  const pf_real vp = pv0 * f, dvp = pv0 * dfdp;
  /* saturation functions */
  const long ns = (long)prm[IMP_SWOF_N], as = (long)prm[IMP_SWOF_AT];
  pf_real dkrw, dkro, dpc;
  const pf_real krw = imp_table(prm, as, as + ns, ns, s, 1, &dkrw);
  const pf_real kro = imp_table(prm, as, as + 2 * ns, ns, s, 1, &dkro);
  const pf_real pc = imp_table(prm, as, as + 3 * ns, ns, s, 1, &dpc);
  /* a clamped end has slope 0 (imp_table sets it); inside, the segment's */
  c.mw = vp * s * ibw;
  c.dmw_dp = s * (dvp * ibw + vp * dibw);
  c.dmw_ds = vp * ibw;
  c.mo = vp * ((pf_real)1 - s) * ibo;
  c.dmo_dp = ((pf_real)1 - s) * (dvp * ibo + vp * dibo);
  c.dmo_ds = -vp * ibo;
  c.lw = krw * ibmw;
  c.dlw_dp = krw * dibmw;
  c.dlw_ds = dkrw * ibmw;
  c.lo = kro * ibmo;
  c.dlo_dp = kro * dibmo;
  c.dlo_ds = dkro * ibmo;
  c.pc = pc;
  c.dpc_ds = dpc;
  const pf_real g = prm[IMP_GRAV];
  c.gw = prm[IMP_RHO_W] * g * ibw;
  c.dgw_dp = prm[IMP_RHO_W] * g * dibw;
  c.go = prm[IMP_RHO_O] * g * ibo;
  c.dgo_dp = prm[IMP_RHO_O] * g * dibo;
  c.ibw = ibw;
  c.dibw = dibw;
  c.ibo = ibo;
  c.dibo = dibo;
  return c;
}

/* The flux of each phase into cell a from cell b through a face of transmissibility T (cells at
   depths da, db) and its derivatives: f[0] water, f[1] oil; d[r * 4 + u] = d f[r] / d u with
   u = 0 p_a, 1 s_a, 2 p_b, 3 s_b. `a_first`: whether a has the lower index (the tie rule). */
PF_TEMPLATE PF_FN void fim_face(PF_T(fim_cell) a, PF_T(fim_cell) b, pf_real pa, pf_real pb, pf_real T, pf_real da,
                                pf_real db, int a_first, pf_real f[2], pf_real d[8]) {
  const pf_real dd = db - da;
  const pf_real go = (pf_real)0.5 * (a.go + b.go), gw = (pf_real)0.5 * (a.gw + b.gw);
  const pf_real dpo = (pb - pa) - go * dd;
  const pf_real dpw = (pb - pa) - (b.pc - a.pc) - gw * dd;
  /* b upstream when its potential is higher; at a tie the lower index */
  const int bo_up = dpo > (pf_real)0 || (dpo == (pf_real)0 && !a_first);
  const int bw_up = dpw > (pf_real)0 || (dpw == (pf_real)0 && !a_first);
  /* oil */
  const pf_real lo = bo_up ? b.lo : a.lo;
  f[1] = T * lo * dpo;
  d[4] = T * ((bo_up ? (pf_real)0 : a.dlo_dp) * dpo + lo * (-(pf_real)1 - (pf_real)0.5 * a.dgo_dp * dd));
  d[5] = T * (bo_up ? (pf_real)0 : a.dlo_ds) * dpo;
  d[6] = T * ((bo_up ? b.dlo_dp : (pf_real)0) * dpo + lo * ((pf_real)1 - (pf_real)0.5 * b.dgo_dp * dd));
  d[7] = T * (bo_up ? b.dlo_ds : (pf_real)0) * dpo;
  /* water */
  const pf_real lw = bw_up ? b.lw : a.lw;
  f[0] = T * lw * dpw;
  d[0] = T * ((bw_up ? (pf_real)0 : a.dlw_dp) * dpw + lw * (-(pf_real)1 - (pf_real)0.5 * a.dgw_dp * dd));
  d[1] = T * ((bw_up ? (pf_real)0 : a.dlw_ds) * dpw + lw * a.dpc_ds);
  d[2] = T * ((bw_up ? b.dlw_dp : (pf_real)0) * dpw + lw * ((pf_real)1 - (pf_real)0.5 * b.dgw_dp * dd));
  d[3] = T * ((bw_up ? b.dlw_ds : (pf_real)0) * dpw - lw * b.dpc_ds);
}

/* A completion of a well in cell c (well index WI, the wellbore pressure at the completion's depth
   pw = bhp + head): the surface rate of each phase into the reservoir, q[0] water, q[1] oil, and
   d[r * 3 + u] = d q[r] / d u with u = 0 p (the cell's), 1 s, 2 pw. A producer (inj = 0) takes each
   phase with its own mobility where the wellbore pressure is below the cell's; an injector puts
   water in with the cell's total reservoir mobility k_rw/mu_w + k_ro/mu_o = lambda_w B_w +
   lambda_o B_o, as surface water: divided by B_w. Flow the wrong way (crossflow) is closed: the
   completion gives 0 and says so through its return value (1: closed). */
PF_TEMPLATE PF_FN int fim_completion(PF_T(fim_cell) c, pf_real p, pf_real WI, pf_real pw, int inj, pf_real q[2], pf_real d[6]) {
  const pf_real dp = pw - p; /* > 0 pushes into the reservoir */
  for (int k = 0; k < 6; ++k) d[k] = (pf_real)0;
  q[0] = q[1] = (pf_real)0;
  if (inj) {
    if (!(dp > (pf_real)0)) return 1;
    /* lt = lw + lo B_o / B_w = lw + lo r, r = ibw / ibo */
    const pf_real r = c.ibw / c.ibo, dr = (c.dibw * c.ibo - c.ibw * c.dibo) / (c.ibo * c.ibo);
    const pf_real lt = c.lw + c.lo * r;
    const pf_real dlt_dp = c.dlw_dp + c.dlo_dp * r + c.lo * dr, dlt_ds = c.dlw_ds + c.dlo_ds * r;
    q[0] = WI * lt * dp;
    d[0] = WI * (dlt_dp * dp - lt);
    d[1] = WI * dlt_ds * dp;
    d[2] = WI * lt;
    return 0;
  }
  if (!(dp < (pf_real)0)) return 1;
  q[0] = WI * c.lw * dp;
  q[1] = WI * c.lo * dp;
  d[0] = WI * (c.dlw_dp * dp - c.lw);
  d[1] = WI * c.dlw_ds * dp;
  d[2] = WI * c.lw;
  d[3] = WI * (c.dlo_dp * dp - c.lo);
  d[4] = WI * c.dlo_ds * dp;
  d[5] = WI * c.lo;
  return 0;
}

/* ---- a cell's rows of the Newton system --------------------------------------------------------- */

/* Cell (i, j, k) of box bx (E values an array): its residual res (2 values at 2 L: water, oil) and
   its rows of the Jacobian in the 7-point block layout of core/linalg/stencil7.hpp (plane q, 2 x 2
   block at (q E + L) 4, row r the phase, column 0 d/dp, 1 d/ds). x holds (p, s) per cell at 2 L;
   mw_n, mo_n the masses at the start of the step. An inactive cell (pv0 <= 0) gets zero rows. The
   faces' neighbours are read through tx, ty, tz (0 at the boundary and next to inactive cells), as
   impes3d's. */
PF_TEMPLATE PF_FN void fim_assemble_cell(PF_TABLE_SPACE const pf_real* prm, pf_box3 bx, long i, long j, long k, long E,
                                         pf_real dt, PF_GLOBAL const pf_real* x, PF_GLOBAL const pf_real* mw_n,
                                         PF_GLOBAL const pf_real* mo_n, PF_GLOBAL const pf_real* tx,
                                         PF_GLOBAL const pf_real* ty, PF_GLOBAL const pf_real* tz,
                                         PF_GLOBAL const pf_real* depth, PF_GLOBAL const pf_real* pv0,
                                         PF_GLOBAL pf_real* coef, PF_GLOBAL pf_real* res) {
  const long L = pf_box_at(bx, i, j, k);
  if (!(pv0[L] > (pf_real)0)) {
    for (int q = 0; q < 7; ++q)
      for (int e = 0; e < 4; ++e) coef[(q * E + L) * 4 + e] = (pf_real)0;
    res[2 * L] = res[2 * L + 1] = (pf_real)0;
    return;
  }
  const pf_real pa = x[2 * L], sa = x[2 * L + 1];
  const PF_T(fim_cell) ca = fim_cell_at(prm, pv0[L], pa, sa);
  pf_real rw = ca.mw - mw_n[L], ro = ca.mo - mo_n[L];
  pf_real j00 = ca.dmw_dp, j01 = ca.dmw_ds, j10 = ca.dmo_dp, j11 = ca.dmo_ds;
  long nb[6];
  pf_real t[6];
  imp_faces(bx, L, tx, ty, tz, nb, t);
  for (int f = 0; f < 6; ++f) {
    const long off = (f + 1) * E + L;
    if (!(t[f] > (pf_real)0)) {
      for (int e = 0; e < 4; ++e) coef[off * 4 + e] = (pf_real)0;
      continue;
    }
    const long b = nb[f];
    const pf_real pb = x[2 * b];
    const PF_T(fim_cell) cb = fim_cell_at(prm, pv0[b], pb, x[2 * b + 1]);
    pf_real F[2], D[8];
    fim_face(ca, cb, pa, pb, t[f], depth[L], depth[b], L < b, F, D);
    rw -= dt * F[0];
    ro -= dt * F[1];
    j00 -= dt * D[0];
    j01 -= dt * D[1];
    j10 -= dt * D[4];
    j11 -= dt * D[5];
    coef[off * 4 + 0] = -dt * D[2];
    coef[off * 4 + 1] = -dt * D[3];
    coef[off * 4 + 2] = -dt * D[6];
    coef[off * 4 + 3] = -dt * D[7];
  }
  coef[L * 4 + 0] = j00;
  coef[L * 4 + 1] = j01;
  coef[L * 4 + 2] = j10;
  coef[L * 4 + 3] = j11;
  res[2 * L] = rw;
  res[2 * L + 1] = ro;
}

/* The masses of cell L at the state x (the start of a step): mw, mo (0 where inactive). */
PF_TEMPLATE PF_FN void fim_masses_cell(PF_TABLE_SPACE const pf_real* prm, long L, PF_GLOBAL const pf_real* x,
                                       PF_GLOBAL const pf_real* pv0, PF_GLOBAL pf_real* mw, PF_GLOBAL pf_real* mo) {
  if (!(pv0[L] > (pf_real)0)) {
    mw[L] = mo[L] = (pf_real)0;
    return;
  }
  const PF_T(fim_cell) c = fim_cell_at(prm, pv0[L], x[2 * L], x[2 * L + 1]);
  mw[L] = c.mw;
  mo[L] = c.mo;
}

PF_NAMESPACE_END


#endif
