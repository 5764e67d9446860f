/* Two-phase (oil-water, dead oil above the bubble point) black-oil physics of paper 003, eq. 1,
   written once for C++, CUDA and OpenCL C: PVT (PVTW, PVDO), rock compressibility (ROCK), the
   saturation tables (SWOF), the two-point face fluxes, the IMPES pressure row, the explicit mass
   update and the wells. Units are Eclipse METRIC: bar, m, day, mD, cP, sm3, kg/m3.

   The state of a cell is its pressure p (the oil pressure) and the surface volumes of water and oil
   it holds, mw and mo (sm3). Everything else follows: S_w = mw B_w / (mw B_w + mo B_o). The
   pressure equation is the pore-volume balance linearised about p^n,
     C (p - p^n) - dt sum_a B_a (sum_faces F_a(p) + q_a) = sum_a B_a m_a - V_p,  C = V_p' - sum_a B_a' m_a,
   so compressibility keeps it regular with every well shut, and the error of the last solve is fed
   back through the right-hand side. It is solved for the increment dp = p^{n+1} - p^n, whose
   right-hand side is the volume error an unchanged pressure would leave: rounding then scales
   with the increment, not with the pressure, and float converges as far as double.
   The masses then move with the face fluxes at p^{n+1}, each face computed alike from both sides,
   so each phase is conserved to rounding; their mobilities are upwinded by the potentials at
   p^{n+1} (the pressure equation used those of p^n: where a flow reversed, the difference is a
   volume error the next step's right-hand side takes back). Gravity and capillary pressure enter
   explicitly.

   Parameters and tables travel as one array `prm` (IMP_* below, then the tables), read through
   PF_TABLE_SPACE: constant memory where it fits (CUDA __constant__, OpenCL __constant), global
   memory otherwise. */
#ifndef PF_PHYSICS_IMPES3D_H
#define PF_PHYSICS_IMPES3D_H

#include "core/base/rb3.h"
#include "core/physics/sor3d.h"

#ifndef PF_TABLE_SPACE
#define PF_TABLE_SPACE PF_GLOBAL
#endif

/* ---- prm: scalars, then the tables ---------------------------------------------------------- */
#define IMP_RHO_W 0     /* surface densities, kg/m3 */
#define IMP_RHO_O 1
#define IMP_GRAV 2      /* g in bar per m per kg/m3: 9.80665e-5 (0 switches gravity off) */
#define IMP_PVTW_PREF 3 /* PVTW: reference pressure, B_w there, compressibility, viscosity, viscosibility */
#define IMP_PVTW_BW 4
#define IMP_PVTW_CW 5
#define IMP_PVTW_MUW 6
#define IMP_PVTW_CVW 7
#define IMP_ROCK_PREF 8 /* ROCK: reference pressure and compressibility of the pore volume */
#define IMP_ROCK_CR 9
#define IMP_SWOF_N 10   /* SWOF: rows; at IMP_SWOF_AT the columns S_w, k_rw, k_row, p_cow */
#define IMP_SWOF_AT 11
#define IMP_PVDO_N 12   /* PVDO: rows; at IMP_PVDO_AT the columns p, 1/B_o, 1/(B_o mu_o) */
#define IMP_PVDO_AT 13
#define IMP_NPARAMS 16

/* ---- per-cell properties at the start of a step (props kernel), property q at q E + L -------- */
#define IMP_P_LW 0  /* lambda_w = k_rw / (mu_w B_w): surface-volume mobility, 1/cP */
#define IMP_P_LO 1
#define IMP_P_PC 2  /* p_cow(S_w), bar */
#define IMP_P_GW 3  /* gamma_w = rho_w g / B_w, bar/m */
#define IMP_P_GO 4
#define IMP_P_BW 5
#define IMP_P_BO 6
#define IMP_P_SW 7
#define IMP_P_C 8   /* V_p' - sum B_a' m_a, m3/bar: the accumulation term */
#define IMP_P_RES 9 /* sum B_a m_a - V_p, m3: the volume error of the state */
#define IMP_P_FWD 10 /* d f_w / d S_w of the reservoir-volume fractional flow: the CFL rate */
#define IMP_NPROPS 11

/* ---- wells ---------------------------------------------------------------------------------
   A well's parameters (IMP_NWP values, uploaded when the schedule changes them), its completions
   first .. first + count - 1 (contiguous; one completion per cell, no cell shared by two wells).
   Each step the well runs at its rate target unless that needs a bottom-hole pressure beyond its
   limit (below it for a producer, above for an injector); then at the limit. Rates are surface
   rates, into the reservoir positive. */
#define IMP_W_INJ 0   /* 1: water injector; 0: producer */
#define IMP_W_OPEN 1  /* 0: shut */
#define IMP_W_RATE 2  /* rate target, sm3/day (> 0); 0: none (BHP only) */
#define IMP_W_AO 3    /* producer: the rate controlled is AO q_o + AW q_w (ORAT 1 0, WRAT 0 1, LRAT 1 1) */
#define IMP_W_AW 4
#define IMP_W_BHP 5   /* BHP limit (or target), bar, at the reference depth */
#define IMP_W_DREF 6  /* reference depth of the BHP, m */
#define IMP_W_FIRST 7 /* completions */
#define IMP_W_COUNT 8
#define IMP_NWP 9

/* per completion: q_a = M_a (pw - p), its mobilities and wellbore pressure written by the
   prepare step (pw moved with the BHP by the coupling of a rate well); the rates at p^{n+1} (RW,
   RO), written by the finish step and added to the cell's masses by the update */
#define IMP_C_MW 0
#define IMP_C_MO 1
#define IMP_C_PW 2 /* wellbore pressure at the completion's depth */
#define IMP_C_H 3  /* pw - BHP: the hydrostatic head from the reference depth */
#define IMP_C_R 4  /* the completion's weight in its well's controlled rate; 0 unless on rate control */
#define IMP_C_RW 5
#define IMP_C_RO 6
#define IMP_NCP 7

/* the step's words (a control-style block of 64-bit words): statistics folded with atomic maxima
   of non-negative numbers' bits (NaN wins), then IMP_NWO words per well */
#define IMP_S_DSW 0   /* max |S_w^{n+1} - S_w^n| */
#define IMP_S_DP 1    /* max |p^{n+1} - p^n|, bar */
#define IMP_S_CFL 2   /* max over cells of f_w' (outflow through faces and wells, reservoir m3/day) / V_p:
                         dt times this is the step's CFL number */
#define IMP_S_SWLO 3  /* max(0, -S_w) */
#define IMP_S_SWHI 4  /* max(0, S_w - 1) */
#define IMP_S_NEG 5   /* max(0, -m_a / V_p0): a negative mass */
#define IMP_NSTAT 8
#define IMP_O_QW 0    /* surface rates, into the reservoir positive */
#define IMP_O_QO 1
#define IMP_O_BHP 2
#define IMP_O_CTRL 3  /* 0 rate, 1 BHP, 2 shut */
#define IMP_O_RHO 4   /* wellbore density, kg/m3 */
#define IMP_NWO 5
#define IMP_CTRL_RATE 0
#define IMP_CTRL_BHP 1
#define IMP_CTRL_SHUT 2

PF_NAMESPACE_BEGIN

/* ---- tables ------------------------------------------------------------------------------------ */

/* Piecewise-linear y(x) of a table whose x column (strictly increasing, n >= 2 rows) starts at
   t[xa] and y column at t[ya]; *slope gets dy/dx. Outside the x range: the end value (clamp) or the
   end segment's line (extrapolate, as Eclipse does for PVT). The one interpolation of the model. */
PF_TEMPLATE PF_FN pf_real imp_table(PF_TABLE_SPACE const pf_real* t, long xa, long ya, long n, pf_real x, int clamp,
                                    pf_real* slope) {
  long lo = 0;
  if (x <= t[xa]) {
    if (clamp) {
      *slope = (pf_real)0;
      return t[ya];
    }
  } else if (x >= t[xa + n - 1]) {
    if (clamp) {
      *slope = (pf_real)0;
      return t[ya + n - 1];
    }
    lo = n - 2;
  } else {
    long hi = n - 1;
    while (hi - lo > 1) {
      const long mid = (lo + hi) / 2;
      if (t[xa + mid] <= x) lo = mid;
      else hi = mid;
    }
  }
  const pf_real x0 = t[xa + lo], y0 = t[ya + lo];
  const pf_real s = (t[ya + lo + 1] - y0) / (t[xa + lo + 1] - x0);
  *slope = s;
  return y0 + s * (x - x0);
}

/* ---- PVT and rock ---------------------------------------------------------------------------- */

PF_STRUCT(imp_pvt) {
  pf_real bw, dbw, muw; /* B_w, dB_w/dp, mu_w */
  pf_real bo, dbo, muo;
};

/* 1 + x + x^2/2: Eclipse's second-order expansion of exp(x) in PVTW and ROCK */
PF_TEMPLATE PF_FN pf_real imp_exp2(pf_real x) { return (pf_real)1 + x + (pf_real)0.5 * x * x; }

PF_TEMPLATE PF_FN PF_T(imp_pvt) imp_pvt_at(PF_TABLE_SPACE const pf_real* prm, pf_real p) {
  PF_T(imp_pvt) r;
  /* water (PVTW; paper 003 eq. 3-4): B_w = B_ref / e2(X), B_w mu_w = B_ref mu_ref / e2(Y),
     X = c_w (p - p_ref), Y = (c_w - c_v) (p - p_ref) */
  const pf_real dpw = p - prm[IMP_PVTW_PREF];
  const pf_real x = prm[IMP_PVTW_CW] * dpw, ex = imp_exp2(x);
  r.bw = prm[IMP_PVTW_BW] / ex;
  r.dbw = -r.bw * prm[IMP_PVTW_CW] * ((pf_real)1 + x) / ex;
  const pf_real y = (prm[IMP_PVTW_CW] - prm[IMP_PVTW_CVW]) * dpw;
  r.muw = prm[IMP_PVTW_BW] * prm[IMP_PVTW_MUW] / (imp_exp2(y) * r.bw);
  /* dead oil (PVDO): 1/B_o and 1/(B_o mu_o) linear in p between the rows */
  const long n = (long)prm[IMP_PVDO_N], at = (long)prm[IMP_PVDO_AT];
  pf_real s_ib, s_ibm;
  const pf_real ib = imp_table(prm, at, at + n, n, p, 0, &s_ib);
  const pf_real ibm = imp_table(prm, at, at + 2 * n, n, p, 0, &s_ibm);
  r.bo = (pf_real)1 / ib;
  r.dbo = -s_ib * r.bo * r.bo;
  r.muo = ib / ibm;
  return r;
}

/* V_p(p) / V_p(p_ref) (ROCK; paper 003 eq. 5) and its derivative */
PF_TEMPLATE PF_FN pf_real imp_pore_factor(PF_TABLE_SPACE const pf_real* prm, pf_real p, pf_real* dfdp) {
  const pf_real cr = prm[IMP_ROCK_CR], x = cr * (p - prm[IMP_ROCK_PREF]);
  *dfdp = cr * ((pf_real)1 + x);
  return imp_exp2(x);
}

/* ---- saturation functions ------------------------------------------------------------------- */

PF_STRUCT(imp_sat) {
  pf_real krw, kro, pc, dkrw, dkro;
};

PF_TEMPLATE PF_FN PF_T(imp_sat) imp_sat_at(PF_TABLE_SPACE const pf_real* prm, pf_real sw) {
  PF_T(imp_sat) r;
  const long n = (long)prm[IMP_SWOF_N], at = (long)prm[IMP_SWOF_AT];
  pf_real unused;
  r.krw = imp_table(prm, at, at + n, n, sw, 1, &r.dkrw);
  r.kro = imp_table(prm, at, at + 2 * n, n, sw, 1, &r.dkro);
  r.pc = imp_table(prm, at, at + 3 * n, n, sw, 1, &unused);
  return r;
}

/* S_w of a state: the water share of the fluid volume */
PF_TEMPLATE PF_FN pf_real imp_sw(pf_real mw, pf_real mo, pf_real bw, pf_real bo) {
  const pf_real vw = mw * bw, v = vw + mo * bo;
  return v > (pf_real)0 ? vw / v : (pf_real)0;
}

/* ---- the properties of a cell at the start of a step -------------------------------------- */

/* props of cell L (active: pv0 > 0) from p, mw, mo; E: the values of one property array */
PF_TEMPLATE PF_FN void imp_props_cell(PF_TABLE_SPACE const pf_real* prm, long L, long E, PF_GLOBAL const pf_real* p,
                                      PF_GLOBAL const pf_real* mw, PF_GLOBAL const pf_real* mo,
                                      PF_GLOBAL const pf_real* pv0, PF_GLOBAL pf_real* props) {
  const pf_real v0 = pv0[L];
  if (!(v0 > (pf_real)0)) {
    for (int q = 0; q < IMP_NPROPS; ++q) props[q * E + L] = (pf_real)0;
    return;
  }
  const pf_real pc = p[L], w = mw[L], o = mo[L];
  const PF_T(imp_pvt) v = imp_pvt_at(prm, pc);
  const pf_real sw = imp_sw(w, o, v.bw, v.bo);
  const PF_T(imp_sat) s = imp_sat_at(prm, sw);
  pf_real dfdp;
  const pf_real f = imp_pore_factor(prm, pc, &dfdp);
  const pf_real g = prm[IMP_GRAV];
  props[IMP_P_LW * E + L] = s.krw / (v.muw * v.bw);
  props[IMP_P_LO * E + L] = s.kro / (v.muo * v.bo);
  props[IMP_P_PC * E + L] = s.pc;
  props[IMP_P_GW * E + L] = prm[IMP_RHO_W] * g / v.bw;
  props[IMP_P_GO * E + L] = prm[IMP_RHO_O] * g / v.bo;
  props[IMP_P_BW * E + L] = v.bw;
  props[IMP_P_BO * E + L] = v.bo;
  props[IMP_P_SW * E + L] = sw;
  props[IMP_P_C * E + L] = v0 * dfdp - (v.dbw * w + v.dbo * o);
  props[IMP_P_RES * E + L] = w * v.bw + o * v.bo - v0 * f;
  /* f_w = a / (a + b), a = k_rw / mu_w, b = k_ro / mu_o */
  const pf_real a = s.krw / v.muw, b = s.kro / v.muo, ab = a + b;
  props[IMP_P_FWD * E + L] = ab > (pf_real)0 ? (s.dkrw / v.muw * b - a * s.dkro / v.muo) / (ab * ab) : (pf_real)0;
}

/* ---- faces ------------------------------------------------------------------------------------ */

/* The face between cell a and its neighbour b (transmissibility T > 0, depths da, db): the flux of
   phase x into a is F_x = c_x (p_b - p_a) + e_x, with c_x = T lambda_x of the upstream cell (by the
   phase potentials of pressures pa, pb: the state at the start of the step) and e_x the explicit
   gravity and capillary part. gamma at the face: the mean of the two cells'. */
PF_TEMPLATE PF_FN void imp_face(PF_GLOBAL const pf_real* props, long E, long a, long b, pf_real T, pf_real pa, pf_real pb,
                                pf_real da, pf_real db, pf_real* cw, pf_real* co, pf_real* ew, pf_real* eo) {
  const pf_real dd = db - da;
  const pf_real go = (pf_real)0.5 * (props[IMP_P_GO * E + a] + props[IMP_P_GO * E + b]);
  const pf_real gw = (pf_real)0.5 * (props[IMP_P_GW * E + a] + props[IMP_P_GW * E + b]);
  const pf_real gro = -go * dd;                                                    /* oil: Phi = p - gamma d */
  const pf_real grw = -(props[IMP_P_PC * E + b] - props[IMP_P_PC * E + a]) - gw * dd; /* water: p - p_c - gamma d */
  const pf_real dp = pb - pa;
  /* b is upstream when its potential is higher; at a tie the cell with the lower index, so that a
     and b (each computing the face from its side) agree and the fluxes cancel exactly */
  const pf_real dpo = dp + gro, dpw = dp + grw;
  const pf_real lo = (dpo > (pf_real)0 || (dpo == (pf_real)0 && b < a)) ? props[IMP_P_LO * E + b] : props[IMP_P_LO * E + a];
  const pf_real lw = (dpw > (pf_real)0 || (dpw == (pf_real)0 && b < a)) ? props[IMP_P_LW * E + b] : props[IMP_P_LW * E + a];
  *co = T * lo;
  *cw = T * lw;
  *eo = *co * gro;
  *ew = *cw * grw;
}

/* the six neighbours of cell (i, j, k) of box bx: their index offsets and the faces'
   transmissibilities (tx between i and i + 1 stored at i, and so on; 0 at the box's boundary and
   next to inactive cells, so a neighbour with T = 0 is never read) */
PF_TEMPLATE PF_FN void imp_faces(pf_box3 bx, long L, PF_GLOBAL const pf_real* tx, PF_GLOBAL const pf_real* ty,
                                 PF_GLOBAL const pf_real* tz, long nb[6], pf_real t[6]) {
  nb[0] = L - 1;
  nb[1] = L + 1;
  nb[2] = L - bx.sy;
  nb[3] = L + bx.sy;
  nb[4] = L - bx.sz;
  nb[5] = L + bx.sz;
  t[0] = tx[L - 1];
  t[1] = tx[L];
  t[2] = ty[L - bx.sy];
  t[3] = ty[L];
  t[4] = tz[L - bx.sz];
  t[5] = tz[L];
}

/* ---- the pressure equation (PrePoisson) ---------------------------------------------------- */

/* Row of cell (i, j, k) into the colour-packed SOR coefficients (core/physics/sor3d.h) for the
   increment dp = p^{n+1} - p^n, divided by the cell's reference pore volume so that a residual is a
   volume error as a fraction of it:
     (C + dt sum G) dp_a - dt sum G dp_b = RES + dt sum_faces (G (p_b - p_a) + B_w e_w + B_o e_o),
   G = B_w c_w + B_o c_o (all at p^n). An inactive cell gets the row dp = 0. Wells are added
   afterwards (imp_well_prepare). */
PF_TEMPLATE PF_FN void imp_assemble_cell(pf_box3 bx, long i, long j, long k, long E, pf_real dt, PF_GLOBAL const pf_real* p,
                                         PF_GLOBAL const pf_real* props, PF_GLOBAL const pf_real* tx,
                                         PF_GLOBAL const pf_real* ty, PF_GLOBAL const pf_real* tz,
                                         PF_GLOBAL const pf_real* depth, PF_GLOBAL const pf_real* pv0,
                                         PF_GLOBAL pf_real* coef) {
  const long L = pf_box_at(bx, i, j, k), q = pf_rb_of(bx, i, j, k), m2 = 2 * pf_rb_m(bx);
  const pf_real v0 = pv0[L], pa = p[L];
  if (!(v0 > (pf_real)0)) {
    for (int f = 0; f < 6; ++f) coef[q + f * m2] = (pf_real)0;
    coef[q + PF_SOR_D * m2] = (pf_real)1;
    coef[q + PF_SOR_R * m2] = (pf_real)0;
    return;
  }
  long nb[6];
  pf_real t[6];
  imp_faces(bx, L, tx, ty, tz, nb, t);
  const pf_real bw = props[IMP_P_BW * E + L], bo = props[IMP_P_BO * E + L], da = depth[L];
  const pf_real inv = (pf_real)1 / v0;
  pf_real diag = props[IMP_P_C * E + L], flow = (pf_real)0;
  for (int f = 0; f < 6; ++f) {
    pf_real g = (pf_real)0;
    if (t[f] > (pf_real)0) {
      const long b = nb[f];
      pf_real cw, co, ew, eo;
      const pf_real pb = p[b];
      imp_face(props, E, L, b, t[f], pa, pb, da, depth[b], &cw, &co, &ew, &eo);
      g = dt * (bw * cw + bo * co);
      diag += g;
      flow += bw * (cw * (pb - pa) + ew) + bo * (co * (pb - pa) + eo);
    }
    coef[q + f * m2] = g * inv;
  }
  coef[q + PF_SOR_D * m2] = diag * inv;
  coef[q + PF_SOR_R * m2] = (props[IMP_P_RES * E + L] + dt * flow) * inv;
}

/* ---- the explicit update (SaturationCalc) ---------------------------------------------------- */

/* New masses of cell (i, j, k) from the fluxes at p^{n+1} (p_new) with the mobilities of the start
   of the step (props) upwinded by the potentials at p^{n+1}, and from its completion's rates (ccell: the
   completion in the cell, or -1; comp: the rates the finish step wrote). Writes the masses and S_w
   and returns the cell's statistics in st[IMP_NSTAT]. */
PF_TEMPLATE PF_FN void imp_update_cell(PF_TABLE_SPACE const pf_real* prm, pf_box3 bx, long i, long j, long k, long E,
                                       pf_real dt, PF_GLOBAL const pf_real* p_old, PF_GLOBAL const pf_real* p_new,
                                       PF_GLOBAL const pf_real* props, PF_GLOBAL const pf_real* tx,
                                       PF_GLOBAL const pf_real* ty, PF_GLOBAL const pf_real* tz,
                                       PF_GLOBAL const pf_real* depth, PF_GLOBAL const pf_real* pv0,
                                       PF_GLOBAL const pf_real* mw_in, PF_GLOBAL const pf_real* mo_in,
                                       PF_GLOBAL const int* ccell, PF_GLOBAL const pf_real* comp, PF_GLOBAL pf_real* mw_out, PF_GLOBAL pf_real* mo_out, PF_GLOBAL pf_real* sw_out,
                                       pf_real st[IMP_NSTAT]) {
  for (int s = 0; s < IMP_NSTAT; ++s) st[s] = (pf_real)0;
  const long L = pf_box_at(bx, i, j, k);
  const pf_real v0 = pv0[L];
  if (!(v0 > (pf_real)0)) {
    mw_out[L] = (pf_real)0;
    mo_out[L] = (pf_real)0;
    sw_out[L] = (pf_real)0;
    return;
  }
  long nb[6];
  pf_real t[6];
  imp_faces(bx, L, tx, ty, tz, nb, t);
  const pf_real pa = p_old[L], pa1 = p_new[L], da = depth[L];
  const pf_real bw = props[IMP_P_BW * E + L], bo = props[IMP_P_BO * E + L];
  pf_real sum_w = (pf_real)0, sum_o = (pf_real)0, out = (pf_real)0;
  for (int f = 0; f < 6; ++f) {
    if (t[f] > (pf_real)0) {
      const long b = nb[f];
      pf_real cw, co, ew, eo;
      /* upwinded by the potentials of p^{n+1}: a face whose flow reversed during the step takes the
         mobility of its new upstream cell, so no cell gives away fluid it does not hold */
      const pf_real pb1 = p_new[b];
      imp_face(props, E, L, b, t[f], pa1, pb1, da, depth[b], &cw, &co, &ew, &eo);
      const pf_real dp = pb1 - pa1;
      const pf_real fw = cw * dp + ew, fo = co * dp + eo;
      sum_w += fw;
      sum_o += fo;
      out += fmax(-fw, (pf_real)0) * bw + fmax(-fo, (pf_real)0) * bo;
    }
  }
  const int c = ccell[L];
  if (c >= 0) {
    const pf_real qw = comp[c * IMP_NCP + IMP_C_RW], qo = comp[c * IMP_NCP + IMP_C_RO];
    sum_w += qw;
    sum_o += qo;
    out += fmax(-qw, (pf_real)0) * bw + fmax(-qo, (pf_real)0) * bo; /* a producer drains its cell too */
  }
  const pf_real w = mw_in[L] + dt * sum_w, o = mo_in[L] + dt * sum_o;
  mw_out[L] = w;
  mo_out[L] = o;
  const PF_T(imp_pvt) v = imp_pvt_at(prm, pa1);
  const pf_real sw = imp_sw(w, o, v.bw, v.bo);
  sw_out[L] = sw;
  pf_real dfdp;
  const pf_real vp = v0 * imp_pore_factor(prm, pa, &dfdp);
  st[IMP_S_DSW] = fabs(sw - props[IMP_P_SW * E + L]);
  st[IMP_S_DP] = fabs(pa1 - pa);
  st[IMP_S_CFL] = props[IMP_P_FWD * E + L] * out / vp;
  st[IMP_S_SWLO] = fmax(-sw, (pf_real)0);
  st[IMP_S_SWHI] = fmax(sw - (pf_real)1, (pf_real)0);
  st[IMP_S_NEG] = fmax(fmax(-w, -o), (pf_real)0) / v0;
  /* a NaN anywhere shows in the first statistic (fmax drops NaN arguments) */
  if (!(w == w && o == o && pa1 == pa1)) st[IMP_S_DSW] = w + o + pa1;
}

/* ---- wells ------------------------------------------------------------------------------------ */

/* Prepares well wp (its parameters) for the step: decides its control from the state at the start
   of the step, writes each completion's q = M (pw - p) into comp and adds the wells' terms to
   the pressure rows (coef) of their cells; records the control, the BHP and the wellbore density
   in the well's output words. cidx: per completion its cell's index in the box arrays and in the
   colour-packed coefficients; cwi, cdepth: well index (sm3 cP / day / bar) and depth. */
PF_TEMPLATE PF_FN void imp_well_prepare(PF_TABLE_SPACE const pf_real* prm, PF_GLOBAL const pf_real* wp,
                                        PF_GLOBAL const long* cidx, PF_GLOBAL const pf_real* cwi,
                                        PF_GLOBAL const pf_real* cdepth, PF_GLOBAL const pf_real* props, long E, long m2,
                                        PF_GLOBAL const pf_real* p, PF_GLOBAL const pf_real* pv0, pf_real dt,
                                        PF_GLOBAL pf_real* comp, PF_GLOBAL pf_real* coef, PF_GLOBAL pf_u64* out) {
  const long first = (long)wp[IMP_W_FIRST], count = (long)wp[IMP_W_COUNT];
  const int inj = wp[IMP_W_INJ] > (pf_real)0.5;
  if (!(wp[IMP_W_OPEN] > (pf_real)0.5)) {
    for (long c = first; c < first + count; ++c)
      for (int x = 0; x < IMP_NCP; ++x) comp[c * IMP_NCP + x] = (pf_real)0;
    out[IMP_O_BHP] = PF_TO_WORD((pf_real)0);
    out[IMP_O_CTRL] = PF_TO_WORD((pf_real)IMP_CTRL_SHUT);
    out[IMP_O_RHO] = PF_TO_WORD((pf_real)0);
    return;
  }
  /* mobilities (M = WI lambda, surface volumes) and the wellbore density: the mixture that flows in
     at equal drawdown everywhere (producer) or water (injector) */
  pf_real mass = (pf_real)0, vol = (pf_real)0;
  for (long c = first; c < first + count; ++c) {
    const long L = cidx[2 * c];
    const pf_real wi = cwi[c], bw = props[IMP_P_BW * E + L], bo = props[IMP_P_BO * E + L];
    pf_real mw, mo;
    if (inj) {
      /* water enters with the cell's total reservoir mobility */
      mw = wi * (props[IMP_P_LW * E + L] * bw + props[IMP_P_LO * E + L] * bo) / bw;
      mo = (pf_real)0;
    } else {
      mw = wi * props[IMP_P_LW * E + L];
      mo = wi * props[IMP_P_LO * E + L];
    }
    comp[c * IMP_NCP + IMP_C_MW] = mw;
    comp[c * IMP_NCP + IMP_C_MO] = mo;
    mass += mw * prm[IMP_RHO_W] + mo * prm[IMP_RHO_O];
    vol += mw * bw + mo * bo;
  }
  const pf_real rho = vol > (pf_real)0 ? mass / vol : (inj ? prm[IMP_RHO_W] : prm[IMP_RHO_O]);
  const pf_real g = prm[IMP_GRAV], dref = wp[IMP_W_DREF];
  /* the BHP that delivers the rate target with the pressures of the start of the step:
     sum over completions of A (p - H - bhp) = target (producer), A (bhp + H - p) (injector) */
  const pf_real ao = inj ? (pf_real)0 : wp[IMP_W_AO], aw = inj ? (pf_real)1 : wp[IMP_W_AW];
  pf_real sa = (pf_real)0, sap = (pf_real)0;
  for (long c = first; c < first + count; ++c) {
    const long L = cidx[2 * c];
    const pf_real a = ao * comp[c * IMP_NCP + IMP_C_MO] + aw * comp[c * IMP_NCP + IMP_C_MW];
    const pf_real h = rho * g * (cdepth[c] - dref);
    sa += a;
    sap += a * (p[L] - h);
  }
  const pf_real target = wp[IMP_W_RATE], limit = wp[IMP_W_BHP];
  int rate = target > (pf_real)0 && sa > (pf_real)0;
  pf_real bhp = limit;
  if (rate) {
    const pf_real need = inj ? (target + sap) / sa : (sap - target) / sa;
    rate = inj ? need <= limit : need >= limit;
    if (rate) bhp = need;
  }
  for (long c = first; c < first + count; ++c) {
    const long L = cidx[2 * c], q = cidx[2 * c + 1];
    const pf_real h = rho * g * (cdepth[c] - dref), pw = bhp + h;
    const pf_real mw = comp[c * IMP_NCP + IMP_C_MW], mo = comp[c * IMP_NCP + IMP_C_MO];
    comp[c * IMP_NCP + IMP_C_PW] = pw;
    comp[c * IMP_NCP + IMP_C_H] = h;
    comp[c * IMP_NCP + IMP_C_R] = rate ? ao * mo + aw * mw : (pf_real)0;
    /* the row of the cell gains dt sum_a B_a q_a = dt (b - a (p^n + dp)) over its pore volume; on
       rate control less the completion's own share of the BHP, w dp / sum w (see below) */
    const pf_real bw = props[IMP_P_BW * E + L], bo = props[IMP_P_BO * E + L], w = bw * mw + bo * mo;
    const pf_real inv = dt / pv0[L];
    coef[q + PF_SOR_D * m2] += w * ((pf_real)1 - (rate ? w / vol : (pf_real)0)) * inv;
    coef[q + PF_SOR_R * m2] += w * (pw - p[L]) * inv;
  }
  out[IMP_O_BHP] = PF_TO_WORD(bhp);
  out[IMP_O_CTRL] = PF_TO_WORD((pf_real)(rate ? IMP_CTRL_RATE : IMP_CTRL_BHP));
  out[IMP_O_RHO] = PF_TO_WORD(rho);
}

/* ---- rate wells held implicitly ----------------------------------------------------------------
   A well on rate control keeps its completions' mobilities in the rows, as a BHP well does, and its
   BHP is an unknown of the pressure solve. Sharing the rate out by the drawdowns of the start of
   the step instead is explicit in each completion's pressure, and unstable where a completion's
   mobility exceeds what its cell passes on to the reservoir (thin, highly permeable layers cut off
   from each other): the layers' pressures then swing further apart every step (docs/impes3d.md).

   In the pressure equation the BHP follows the iterate p^n + dp as
     BHP = BHP_0 + sum_d w_d dp_d / sum_d w_d,   w = B_w M_w + B_o M_o,
   BHP_0 being the BHP that delivers the rate at p^n: the well holds its reservoir-volume rate
   through the step. With the weights w, the rows' gains, the coupling of the rows is symmetric
   (CG solves it); with the controlled rate's own weights r it would not be for a producer whose
   completions' water cuts differ. The rates themselves are exact: the finish step sets the BHP
   that delivers the target at p^{n+1} (r weights); the small difference from the pressure
   equation's BHP is a volume error of the step, which the next step's RES corrects. In
   completion c's row its own share w_c dp_c / sum w is moved to the diagonal (imp_well_prepare), so
   a well of one completion is an exact source and a row's iteration does not chase its own BHP; the
   others' shares couple the rows: SOR updates them between sweeps (imp_well_couple), a Krylov
   solver has them in its operator (imp_well_apply). */

/* completion x's terms of its well's controlled rate at pressure pc of its cell: s[0] += r,
   s[1] += r (pc - H) */
PF_TEMPLATE PF_FN void imp_rate_terms(PF_GLOBAL const pf_real* x, pf_real pc, pf_real s[2]) {
  const pf_real r = x[IMP_C_R];
  s[0] += r;
  s[1] += r * (pc - x[IMP_C_H]);
}

/* the BHP that delivers the rate target from the sums of imp_rate_terms over the well's completions
   (s0 > 0): sum r (BHP + H - p) = target for an injector, sum r (p - H - BHP) = target for a producer */
PF_TEMPLATE PF_FN pf_real imp_rate_bhp(PF_GLOBAL const pf_real* wp, pf_real s0, pf_real s1) {
  const pf_real target = wp[IMP_W_RATE];
  return wp[IMP_W_INJ] > (pf_real)0.5 ? (target + s1) / s0 : (s1 - target) / s0;
}

/* completion x's weight w = B_w M_w + B_o M_o in cell L: its row's gain per day and unit wellbore
   pressure (m3/bar/day, not divided by the pore volume) */
PF_TEMPLATE PF_FN pf_real imp_rate_weight(PF_GLOBAL const pf_real* x, PF_GLOBAL const pf_real* props, long E, long L) {
  return props[IMP_P_BW * E + L] * x[IMP_C_MW] + props[IMP_P_BO * E + L] * x[IMP_C_MO];
}

/* Well wp on rate control, between SOR sweeps: each completion's row sees the BHP of the iterate
   p^n + dp less its own share (which its diagonal holds); its right-hand side moves with it. The
   completion's IMP_C_PW is that BHP plus its head (the finish step sets the true one). */
PF_TEMPLATE PF_FN void imp_well_couple(PF_GLOBAL const pf_real* wp, PF_GLOBAL const long* cidx, PF_GLOBAL pf_real* comp,
                                       PF_GLOBAL const pf_real* props, long E, long m2, PF_GLOBAL const pf_real* p,
                                       PF_GLOBAL const pf_real* dp, PF_GLOBAL const pf_real* pv0, pf_real dt,
                                       PF_GLOBAL pf_real* coef) {
  const long first = (long)wp[IMP_W_FIRST], count = (long)wp[IMP_W_COUNT];
  if (!(wp[IMP_W_OPEN] > (pf_real)0.5)) return;
  pf_real s[2] = {(pf_real)0, (pf_real)0}, sw = (pf_real)0, swd = (pf_real)0;
  for (long c = first; c < first + count; ++c) {
    PF_GLOBAL const pf_real* x = comp + c * IMP_NCP;
    const long L = cidx[2 * c];
    imp_rate_terms(x, p[L], s);
    const pf_real w = imp_rate_weight(x, props, E, L);
    sw += w;
    swd += w * dp[L];
  }
  if (!(s[0] > (pf_real)0) || !(sw > (pf_real)0)) return;
  const pf_real bhp = imp_rate_bhp(wp, s[0], s[1]) + swd / sw;
  for (long c = first; c < first + count; ++c) {
    PF_GLOBAL pf_real* x = comp + c * IMP_NCP;
    const long L = cidx[2 * c], q = cidx[2 * c + 1];
    const pf_real w = imp_rate_weight(x, props, E, L);
    const pf_real pw = bhp - w * dp[L] / sw + x[IMP_C_H];
    coef[q + PF_SOR_R * m2] += dt * w * (pw - x[IMP_C_PW]) / pv0[L];
    x[IMP_C_PW] = pw;
  }
}

/* Well wp on rate control in an operator whose rows are multiplied by the pore volumes: the others'
   shares of the BHP, y_c += sign dt w_c (sum_d w_d x_d - w_c x_c) / sum_d w_d (sign -1: A x;
   +1: b - A x). Symmetric. */
PF_TEMPLATE PF_FN void imp_well_apply(PF_GLOBAL const pf_real* wp, PF_GLOBAL const long* cidx, PF_GLOBAL const pf_real* comp,
                                      PF_GLOBAL const pf_real* props, long E, pf_real dt, pf_real sign,
                                      PF_GLOBAL const pf_real* x, PF_GLOBAL pf_real* y) {
  const long first = (long)wp[IMP_W_FIRST], count = (long)wp[IMP_W_COUNT];
  if (!(wp[IMP_W_OPEN] > (pf_real)0.5)) return;
  pf_real sr = (pf_real)0, sw = (pf_real)0, swx = (pf_real)0;
  for (long c = first; c < first + count; ++c) {
    PF_GLOBAL const pf_real* xc = comp + c * IMP_NCP;
    const long L = cidx[2 * c];
    const pf_real w = imp_rate_weight(xc, props, E, L);
    sr += xc[IMP_C_R];
    sw += w;
    swx += w * x[L];
  }
  if (!(sr > (pf_real)0) || !(sw > (pf_real)0)) return;
  for (long c = first; c < first + count; ++c) {
    const long L = cidx[2 * c];
    const pf_real w = imp_rate_weight(comp + c * IMP_NCP, props, E, L);
    y[L] += sign * dt * w * (swx - w * x[L]) / sw;
  }
}

/* After the pressure solve: each completion's rates at p^{n+1} into comp (the update adds them to
   the cells' masses), the well's total rates (and on rate control its BHP) into its output words. */
PF_TEMPLATE PF_FN void imp_well_finish(PF_GLOBAL const pf_real* wp, PF_GLOBAL const long* cidx, PF_GLOBAL pf_real* comp,
                                       PF_GLOBAL const pf_real* p, PF_GLOBAL pf_u64* out) {
  const long first = (long)wp[IMP_W_FIRST], count = (long)wp[IMP_W_COUNT];
  /* a well on rate control: the BHP that delivers the rate at p^{n+1} */
  pf_real s[2] = {(pf_real)0, (pf_real)0};
  for (long c = first; c < first + count; ++c) imp_rate_terms(comp + c * IMP_NCP, p[cidx[2 * c]], s);
  const int rate = wp[IMP_W_OPEN] > (pf_real)0.5 && s[0] > (pf_real)0;
  const pf_real bhp = rate ? imp_rate_bhp(wp, s[0], s[1]) : (pf_real)0;
  pf_real sw = (pf_real)0, so = (pf_real)0;
  for (long c = first; c < first + count; ++c) {
    PF_GLOBAL pf_real* x = comp + c * IMP_NCP;
    if (rate) x[IMP_C_PW] = bhp + x[IMP_C_H];
    const pf_real d = x[IMP_C_PW] - p[cidx[2 * c]];
    const pf_real qw = x[IMP_C_MW] * d, qo = x[IMP_C_MO] * d;
    x[IMP_C_RW] = qw;
    x[IMP_C_RO] = qo;
    sw += qw;
    so += qo;
  }
  out[IMP_O_QW] = PF_TO_WORD(sw);
  out[IMP_O_QO] = PF_TO_WORD(so);
  if (rate) out[IMP_O_BHP] = PF_TO_WORD(bhp);
}

PF_NAMESPACE_END

#endif
