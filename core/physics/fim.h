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

/* An injector's mobility in a cell, as surface water: (k_rw/mu_w + k_ro/mu_o) / B_w = lw + lo B_o / B_w,
   with its derivatives by the cell's p and s. */
PF_TEMPLATE PF_FN pf_real fim_injectivity(PF_T(fim_cell) c, pf_real* d_dp, pf_real* d_ds) {
  const pf_real r = c.ibw / c.ibo, dr = (c.dibw * c.ibo - c.ibw * c.dibo) / (c.ibo * c.ibo);
  *d_dp = c.dlw_dp + c.dlo_dp * r + c.lo * dr;
  *d_ds = c.dlw_ds + c.dlo_ds * r;
  return c.lw + c.lo * r;
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
    pf_real dlt_dp, dlt_ds;
    const pf_real lt = fim_injectivity(c, &dlt_dp, &dlt_ds);
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

/* ---- the wells' unknowns and equations ---------------------------------------------------------- */

/* Each open well has one more unknown, its BHP, and one more equation, its control:
     rate:  R_w = sum_c (a_o q_o + a_w q_w) - target_signed   (sm3/day; a producer's rates are
            negative, so target_signed = -target; an injector's a_o = 0, a_w = 1)
     BHP:   R_w = bhp - bhp_target                             (bar)
   The completions see pw = bhp + head, the head rho g (depth - reference depth) fixed for a step
   from the mixture that flows in at the start of the step (as impes3d). The Newton system
     [A B; C D] [dx; dw] = [r; r_w]
   is reduced to the cells by the Schur complement (A - B D^-1 C) dx = r - B D^-1 r_w, then
   dw = D^-1 (r_w - C dx). B: the cells' rows by the BHP (-dt dq/dpw), C: the well's row by the
   cells' (p, s), D = dR_w/dbhp. The block of each completion's own cell (B_c D^-1 C_c) is added to
   the matrix's diagonal, so the preconditioner sees it; the rest (the coupling between the
   completions of a well) is applied by fim_schur_well in the operator. A cell holds at most one
   completion (impes3d's input refuses two), so the per-well kernels write disjoint cells. */

/* per completion (FIM_NCQ values): rates and derivatives (the cell kernel), C (the well kernel),
   the head (the start kernel) */
#define FIM_CQ_QW 0    /* surface rates into the reservoir, sm3/day */
#define FIM_CQ_QO 1
#define FIM_CQ_DW 2    /* d q_w / d (p, s, pw): 2, 3, 4 */
#define FIM_CQ_DO 5    /* d q_o / d (p, s, pw): 5, 6, 7 */
#define FIM_CQ_SLOPE 8 /* d (controlled rate) / d pw as if the completion were open (and scratch) */
#define FIM_CQ_CP 9    /* C: d R_w / d p of the cell, d R_w / d s */
#define FIM_CQ_CS 10
#define FIM_CQ_HEAD 11 /* pw - bhp, bar */
#define FIM_NCQ 12

/* per well (FIM_NWS values) */
#define FIM_WS_BHP 0
#define FIM_WS_CTRL 1  /* IMP_CTRL_RATE, IMP_CTRL_BHP or IMP_CTRL_SHUT */
#define FIM_WS_RES 2   /* R_w */
#define FIM_WS_D 3     /* D */
#define FIM_WS_QW 4    /* the well's surface rates into the reservoir, sm3/day */
#define FIM_WS_QO 5
#define FIM_WS_RHO 6   /* wellbore density of the step, kg/m3 */
#define FIM_WS_INIT 7  /* 1: the start kernel sets the BHP from the control (a new control) */
#define FIM_NWS 8

PF_TEMPLATE PF_FN int fim_ctrl(pf_real v) { return (int)(v + (pf_real)0.5); }

/* ---- a cell's rows of the Newton system --------------------------------------------------------- */

/* Cell (i, j, k) of box bx (E values an array): its residual res (2 values at 2 L: water, oil) and
   its rows of the Jacobian in the 7-point block layout of core/linalg/stencil7.hpp (plane q, 2 x 2
   block at (q E + L) 4, row r the phase, column 0 d/dp, 1 d/ds). x holds (p, s) per cell at 2 L;
   mw_n, mo_n the masses at the start of the step. An inactive cell (pv0 <= 0) gets zero rows. The
   faces' neighbours are read through tx, ty, tz (0 at the boundary and next to inactive cells), as
   impes3d's. A cell with a completion (ccell[L] = c >= 0, of well cwell[c]) adds its rates at
   pw = bhp + head and writes them with their derivatives into cq. The convergence measures:
   cnv[L], cnv[E + L] = B_a |R_a| / V_p0 (water, oil), mbw[L], mbo[L] = R_a (sm3), and viol[L] =
   V_p0 where either CNV is above cnv_tol, else 0 (summed: the pore volume that violates CNV, for
   OPM Flow's relaxed criterion). */
PF_TEMPLATE PF_FN void fim_assemble_cell(PF_TABLE_SPACE const pf_real* prm, pf_box3 bx, long i, long j, long k, long E,
                                         pf_real dt, PF_GLOBAL const pf_real* x, PF_GLOBAL const pf_real* mw_n,
                                         PF_GLOBAL const pf_real* mo_n, PF_GLOBAL const pf_real* tx,
                                         PF_GLOBAL const pf_real* ty, PF_GLOBAL const pf_real* tz,
                                         PF_GLOBAL const pf_real* depth, PF_GLOBAL const pf_real* pv0,
                                         PF_GLOBAL const pf_real* wp, PF_GLOBAL const pf_real* ws,
                                         PF_GLOBAL const int* ccell, PF_GLOBAL const int* cwell,
                                         PF_GLOBAL const pf_real* cwi, PF_GLOBAL pf_real* cq, PF_GLOBAL pf_real* coef,
                                         PF_GLOBAL pf_real* res, PF_GLOBAL pf_real* cnv, PF_GLOBAL pf_real* mbw,
                                         PF_GLOBAL pf_real* mbo, pf_real cnv_tol, PF_GLOBAL pf_real* viol) {
  const long L = pf_box_at(bx, i, j, k);
  if (!(pv0[L] > (pf_real)0)) {
    for (int q = 0; q < 7; ++q)
      for (int e = 0; e < 4; ++e) coef[(q * E + L) * 4 + e] = (pf_real)0;
    res[2 * L] = res[2 * L + 1] = (pf_real)0;
    cnv[L] = cnv[E + L] = mbw[L] = mbo[L] = viol[L] = (pf_real)0;
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
  const int c = ccell[L];
  if (c >= 0) {
    const long w = cwell[c];
    PF_GLOBAL const pf_real* P = wp + w * IMP_NWP;
    PF_GLOBAL pf_real* Q = cq + (long)c * FIM_NCQ;
    const int inj = P[IMP_W_INJ] > (pf_real)0.5;
    pf_real q[2] = {(pf_real)0, (pf_real)0}, d[6] = {(pf_real)0, (pf_real)0, (pf_real)0, (pf_real)0, (pf_real)0, (pf_real)0};
    pf_real slope = (pf_real)0;
    if (fim_ctrl(ws[w * FIM_NWS + FIM_WS_CTRL]) != IMP_CTRL_SHUT) {
      const pf_real WI = cwi[c];
      fim_completion(ca, pa, WI, ws[w * FIM_NWS + FIM_WS_BHP] + Q[FIM_CQ_HEAD], inj, q, d);
      pf_real u0, u1;
      slope = inj ? WI * fim_injectivity(ca, &u0, &u1) : WI * (P[IMP_W_AO] * ca.lo + P[IMP_W_AW] * ca.lw);
    }
    rw -= dt * q[0];
    ro -= dt * q[1];
    j00 -= dt * d[0];
    j01 -= dt * d[1];
    j10 -= dt * d[3];
    j11 -= dt * d[4];
    Q[FIM_CQ_QW] = q[0];
    Q[FIM_CQ_QO] = q[1];
    for (int e = 0; e < 3; ++e) {
      Q[FIM_CQ_DW + e] = d[e];
      Q[FIM_CQ_DO + e] = d[3 + e];
    }
    Q[FIM_CQ_SLOPE] = slope;
  }
  coef[L * 4 + 0] = j00;
  coef[L * 4 + 1] = j01;
  coef[L * 4 + 2] = j10;
  coef[L * 4 + 3] = j11;
  res[2 * L] = rw;
  res[2 * L + 1] = ro;
  const pf_real v0 = pv0[L];
  cnv[L] = fabs(rw) / (ca.ibw * v0);
  cnv[E + L] = fabs(ro) / (ca.ibo * v0);
  mbw[L] = rw;
  mbo[L] = ro;
  viol[L] = (cnv[L] > cnv_tol || cnv[E + L] > cnv_tol || !(cnv[L] == cnv[L]) || !(cnv[E + L] == cnv[E + L])) ? v0 : (pf_real)0;
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

/* ---- per well ------------------------------------------------------------------------------------ */

/* At the start of a step, well w (wp: IMP_NWP parameters a well, ws: FIM_NWS state a well): the
   wellbore density of the mixture that flows in at equal drawdown (a producer: each phase with its
   mobility; an injector: water), the heads of its completions into cq, and, where ws asks (INIT),
   the BHP of its control: the target under BHP control; under rate control the BHP that delivers
   the target at the start's pressures and mobilities, or the BHP limit (and BHP control) where
   that BHP is past it. cidx: per completion its cell's box index (at 2 c); cwi, cdepth: its well
   index and depth. */
PF_TEMPLATE PF_FN void fim_well_start(PF_TABLE_SPACE const pf_real* prm, long w, PF_GLOBAL const pf_real* wp,
                                      PF_GLOBAL pf_real* ws, PF_GLOBAL const long* cidx, PF_GLOBAL const pf_real* cwi,
                                      PF_GLOBAL const pf_real* cdepth, PF_GLOBAL const pf_real* x,
                                      PF_GLOBAL const pf_real* pv0, PF_GLOBAL pf_real* cq) {
  PF_GLOBAL const pf_real* P = wp + w * IMP_NWP;
  PF_GLOBAL pf_real* S = ws + w * FIM_NWS;
  const long first = (long)P[IMP_W_FIRST], count = (long)P[IMP_W_COUNT];
  const int inj = P[IMP_W_INJ] > (pf_real)0.5;
  const pf_real ao = inj ? (pf_real)0 : P[IMP_W_AO], aw = inj ? (pf_real)1 : P[IMP_W_AW];
  pf_real mass = (pf_real)0, vol = (pf_real)0;
  for (long c = first; c < first + count; ++c) {
    const long L = cidx[2 * c];
    const PF_T(fim_cell) cell = fim_cell_at(prm, pv0[L], x[2 * L], x[2 * L + 1]);
    pf_real mw, mo, u0, u1;
    if (inj) {
      mw = cwi[c] * fim_injectivity(cell, &u0, &u1);
      mo = (pf_real)0;
    } else {
      mw = cwi[c] * cell.lw;
      mo = cwi[c] * cell.lo;
    }
    mass += mw * prm[IMP_RHO_W] + mo * prm[IMP_RHO_O];
    vol += mw / cell.ibw + mo / cell.ibo;
    cq[c * FIM_NCQ + FIM_CQ_SLOPE] = ao * mo + aw * mw; /* scratch: the rate's weight below */
  }
  const pf_real rho = vol > (pf_real)0 ? mass / vol : (inj ? prm[IMP_RHO_W] : prm[IMP_RHO_O]);
  const pf_real g = prm[IMP_GRAV], dref = P[IMP_W_DREF];
  pf_real sa = (pf_real)0, sap = (pf_real)0;
  for (long c = first; c < first + count; ++c) {
    const pf_real h = rho * g * (cdepth[c] - dref);
    const pf_real a = cq[c * FIM_NCQ + FIM_CQ_SLOPE];
    cq[c * FIM_NCQ + FIM_CQ_HEAD] = h;
    sa += a;
    sap += a * (x[2 * cidx[2 * c]] - h);
  }
  S[FIM_WS_RHO] = rho;
  if (!(S[FIM_WS_INIT] > (pf_real)0.5)) return;
  S[FIM_WS_INIT] = (pf_real)0;
  const int ctrl = fim_ctrl(S[FIM_WS_CTRL]);
  const pf_real target = P[IMP_W_RATE], limit = P[IMP_W_BHP];
  if (ctrl == IMP_CTRL_BHP) S[FIM_WS_BHP] = limit;
  if (ctrl != IMP_CTRL_RATE) return;
  const pf_real need = inj ? (target + sap) / sa : (sap - target) / sa;
  if (sa > (pf_real)0 && (inj ? need <= limit : need >= limit)) {
    S[FIM_WS_BHP] = need;
  } else {
    S[FIM_WS_BHP] = limit;
    S[FIM_WS_CTRL] = (pf_real)IMP_CTRL_BHP;
  }
}

/* After the cells' kernel, well w: its total rates, its equation (R_w, D) and C; under rate control
   the completions' own blocks B_c D^-1 C_c leave the diagonal and B_c D^-1 R_w the right-hand side
   res (the Schur complement's). A rate-controlled well whose completions are all closed (flow the
   wrong way) takes as D the slope it would have open, so the BHP moves toward opening. */
PF_TEMPLATE PF_FN void fim_well_equation(long w, PF_GLOBAL const pf_real* wp, PF_GLOBAL pf_real* ws,
                                         PF_GLOBAL const long* cidx, PF_GLOBAL pf_real* cq, pf_real dt,
                                         PF_GLOBAL pf_real* coef, PF_GLOBAL pf_real* res) {
  PF_GLOBAL const pf_real* P = wp + w * IMP_NWP;
  PF_GLOBAL pf_real* S = ws + w * FIM_NWS;
  const long first = (long)P[IMP_W_FIRST], count = (long)P[IMP_W_COUNT];
  const int inj = P[IMP_W_INJ] > (pf_real)0.5;
  const pf_real ao = inj ? (pf_real)0 : P[IMP_W_AO], aw = inj ? (pf_real)1 : P[IMP_W_AW];
  const int ctrl = fim_ctrl(S[FIM_WS_CTRL]);
  pf_real qw = (pf_real)0, qo = (pf_real)0, D = (pf_real)0, slope = (pf_real)0;
  for (long c = first; c < first + count; ++c) {
    PF_GLOBAL pf_real* Q = cq + c * FIM_NCQ;
    qw += Q[FIM_CQ_QW];
    qo += Q[FIM_CQ_QO];
    D += ao * Q[FIM_CQ_DO + 2] + aw * Q[FIM_CQ_DW + 2];
    slope += Q[FIM_CQ_SLOPE];
    Q[FIM_CQ_CP] = (pf_real)0;
    Q[FIM_CQ_CS] = (pf_real)0;
  }
  S[FIM_WS_QW] = qw;
  S[FIM_WS_QO] = qo;
  if (ctrl != IMP_CTRL_RATE) {
    S[FIM_WS_RES] = ctrl == IMP_CTRL_BHP ? S[FIM_WS_BHP] - P[IMP_W_BHP] : (pf_real)0;
    S[FIM_WS_D] = (pf_real)1;
    return;
  }
  const pf_real target = P[IMP_W_RATE];
  const pf_real R = ao * qo + aw * qw - (inj ? target : -target);
  if (!(D > (pf_real)0)) D = slope > (pf_real)0 ? slope : (pf_real)1;
  S[FIM_WS_RES] = R;
  S[FIM_WS_D] = D;
  for (long c = first; c < first + count; ++c) {
    PF_GLOBAL pf_real* Q = cq + c * FIM_NCQ;
    const long L = cidx[2 * c];
    const pf_real cp = ao * Q[FIM_CQ_DO] + aw * Q[FIM_CQ_DW], cs = ao * Q[FIM_CQ_DO + 1] + aw * Q[FIM_CQ_DW + 1];
    Q[FIM_CQ_CP] = cp;
    Q[FIM_CQ_CS] = cs;
    const pf_real bw = -dt * Q[FIM_CQ_DW + 2] / D, bo = -dt * Q[FIM_CQ_DO + 2] / D;
    coef[L * 4 + 0] -= bw * cp;
    coef[L * 4 + 1] -= bw * cs;
    coef[L * 4 + 2] -= bo * cp;
    coef[L * 4 + 3] -= bo * cs;
    res[2 * L] -= bw * R;
    res[2 * L + 1] -= bo * R;
  }
}

/* In the Schur operator, after y = A' v (A' holds the completions' own blocks): well w's coupling
   between its completions, y_c -= alpha B_c D^-1 (sum_{c' != c} C_c' v_c') (alpha 1: the operator's
   product; -1: its residual, after y = b - A' v). Only rate-controlled wells couple (C = 0 otherwise). */
PF_TEMPLATE PF_FN void fim_schur_well(long w, PF_GLOBAL const pf_real* wp, PF_GLOBAL const pf_real* ws,
                                      PF_GLOBAL const long* cidx, PF_GLOBAL const pf_real* cq, pf_real dt,
                                      pf_real alpha, PF_GLOBAL const pf_real* v, PF_GLOBAL pf_real* y) {
  PF_GLOBAL const pf_real* P = wp + w * IMP_NWP;
  PF_GLOBAL const pf_real* S = ws + w * FIM_NWS;
  if (fim_ctrl(S[FIM_WS_CTRL]) != IMP_CTRL_RATE) return;
  const long first = (long)P[IMP_W_FIRST], count = (long)P[IMP_W_COUNT];
  const pf_real inv = alpha / S[FIM_WS_D];
  pf_real t = (pf_real)0;
  for (long c = first; c < first + count; ++c) {
    const long L = cidx[2 * c];
    t += cq[c * FIM_NCQ + FIM_CQ_CP] * v[2 * L] + cq[c * FIM_NCQ + FIM_CQ_CS] * v[2 * L + 1];
  }
  for (long c = first; c < first + count; ++c) {
    PF_GLOBAL const pf_real* Q = cq + c * FIM_NCQ;
    const long L = cidx[2 * c];
    const pf_real rest = (t - (Q[FIM_CQ_CP] * v[2 * L] + Q[FIM_CQ_CS] * v[2 * L + 1])) * inv;
    y[2 * L] += dt * Q[FIM_CQ_DW + 2] * rest;
    y[2 * L + 1] += dt * Q[FIM_CQ_DO + 2] * rest;
  }
}

/* After the linear solve (dx: the cells' Newton step, x -= dx), well w's: dw = D^-1 (R_w - C dx),
   bhp -= dw. Under rate control a step is at most dbhp_max bar. */
PF_TEMPLATE PF_FN void fim_update_well(long w, PF_GLOBAL const pf_real* wp, PF_GLOBAL pf_real* ws,
                                       PF_GLOBAL const long* cidx, PF_GLOBAL const pf_real* cq,
                                       PF_GLOBAL const pf_real* dx, pf_real dbhp_max) {
  PF_GLOBAL const pf_real* P = wp + w * IMP_NWP;
  PF_GLOBAL pf_real* S = ws + w * FIM_NWS;
  const int ctrl = fim_ctrl(S[FIM_WS_CTRL]);
  if (ctrl == IMP_CTRL_SHUT) return;
  const long first = (long)P[IMP_W_FIRST], count = (long)P[IMP_W_COUNT];
  pf_real cdx = (pf_real)0;
  for (long c = first; c < first + count; ++c) {
    const long L = cidx[2 * c];
    cdx += cq[c * FIM_NCQ + FIM_CQ_CP] * dx[2 * L] + cq[c * FIM_NCQ + FIM_CQ_CS] * dx[2 * L + 1];
  }
  pf_real dw = (S[FIM_WS_RES] - cdx) / S[FIM_WS_D];
  if (ctrl == IMP_CTRL_RATE) {
    if (dw > dbhp_max) dw = dbhp_max;
    if (dw < -dbhp_max) dw = -dbhp_max;
  }
  S[FIM_WS_BHP] -= dw;
}

/* x -= dx in cell L, the pressure's change at most dp_max bar and the saturation's ds_max, S_w kept
   in [0, 1] (NaN passes: the next residual reports it). */
PF_TEMPLATE PF_FN void fim_update_cell(long L, PF_GLOBAL const pf_real* pv0, PF_GLOBAL const pf_real* dx,
                                       PF_GLOBAL pf_real* x, pf_real dp_max, pf_real ds_max) {
  if (!(pv0[L] > (pf_real)0)) return;
  pf_real dp = dx[2 * L], ds = dx[2 * L + 1];
  if (dp > dp_max) dp = dp_max;
  if (dp < -dp_max) dp = -dp_max;
  if (ds > ds_max) ds = ds_max;
  if (ds < -ds_max) ds = -ds_max;
  x[2 * L] -= dp;
  const pf_real s = x[2 * L + 1] - ds;
  x[2 * L + 1] = s < (pf_real)0 ? (pf_real)0 : (s > (pf_real)1 ? (pf_real)1 : s);
}

/* The state x into the model's arrays p and sw (active cells), with the changes over the step:
   dp[L] = |p_new - p_old|, ds[L] = |s_new - s_old| (0 where inactive). */
PF_TEMPLATE PF_FN void fim_unpack_cell(long L, PF_GLOBAL const pf_real* pv0, PF_GLOBAL const pf_real* x,
                                       PF_GLOBAL pf_real* p, PF_GLOBAL pf_real* sw, PF_GLOBAL pf_real* dp,
                                       PF_GLOBAL pf_real* ds) {
  if (!(pv0[L] > (pf_real)0)) {
    dp[L] = ds[L] = (pf_real)0;
    return;
  }
  dp[L] = fabs(x[2 * L] - p[L]);
  ds[L] = fabs(x[2 * L + 1] - sw[L]);
  p[L] = x[2 * L];
  sw[L] = x[2 * L + 1];
}

/* The model's p and sw into the state x (0 where inactive). */
PF_TEMPLATE PF_FN void fim_pack_cell(long L, PF_GLOBAL const pf_real* pv0, PF_GLOBAL const pf_real* p,
                                     PF_GLOBAL const pf_real* sw, PF_GLOBAL pf_real* x) {
  const int on = pv0[L] > (pf_real)0;
  x[2 * L] = on ? p[L] : (pf_real)0;
  x[2 * L + 1] = on ? sw[L] : (pf_real)0;
}

PF_NAMESPACE_END


#endif
