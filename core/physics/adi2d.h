/* Three-phase (water w, oil o, gas g), four-component physics of papers 002/004, written once for
   C++, CUDA and OpenCL C. Component 1 lives only in water, 2 only in gas, 3 in oil and gas
   (split by the equilibrium ratio K3 = C_g3 / C_o3), 4 only in oil (paper 002, Table 1).

   The parameters travel as one small array (PF_GLOBAL const pf_real* prm) indexed by the
   ADI_* constants below, so every backend reads them the same way. */
#ifndef PF_PHYSICS_ADI2D_H
#define PF_PHYSICS_ADI2D_H

#include "core/base/common.h"

#define ADI_MU_W 0
#define ADI_MU_O 1
#define ADI_MU_G 2
#define ADI_RHO_W 3 /* reference densities at ADI_P_REF */
#define ADI_RHO_O 4
#define ADI_RHO_G 5
#define ADI_C_W 6 /* compressibilities: rho = rho_ref (1 + c (p - p_ref)) */
#define ADI_C_O 7
#define ADI_C_G 8
#define ADI_P_REF 9
#define ADI_SWR 10 /* residual saturations */
#define ADI_SOR 11
#define ADI_SGR 12
#define ADI_NEXP 13     /* the exponent n of the Stone and Parker laws (3.25 in paper 002) */
#define ADI_INV_ZETA 14 /* Parker's 1 / zeta: capillary pressure scale, 0 = none */
#define ADI_PC_SMIN 15  /* effective saturation below which Parker's law is held constant */
#define ADI_K3 16       /* K3 at p_ref */
#define ADI_K3_BETA 17  /* K3(p) = K3 exp(-beta (p - p_ref)) */
#define ADI_PERM 18     /* absolute permeability K */
#define ADI_PORO 19     /* porosity m */
#define ADI_DIFF 20     /* molecular diffusion coefficient D, the same for every component and phase */
#define ADI_NPARAMS 21

PF_NAMESPACE_BEGIN

/* ---- relative permeabilities: modified Stone model (Aziz-Settari form), paper 002 ---------- */

/* effective saturation (S - S_r) / (1 - S_wr - S_or - S_gr) */
PF_TEMPLATE PF_FN pf_real adi_effective(pf_real s, pf_real s_r, pf_real denom) { return (s - s_r) / denom; }

/* the wetting-phase law used for k_rw(S_w), k_rg(S_g) and k_og: S^1/2 [1 - (1 - S^(n/(n-1)))^((n-1)/n)]^2 */
PF_TEMPLATE PF_FN pf_real adi_kr_wetting(pf_real se, pf_real n) {
  if (se <= (pf_real)0) return (pf_real)0;
  if (se >= (pf_real)1) return (pf_real)1;
  pf_real m = (n - (pf_real)1) / n;
  pf_real t = (pf_real)1 - pow((pf_real)1 - pow(se, (pf_real)1 / m), m);
  return sqrt(se) * t * t;
}

/* k_rw(S_w) (the wetting law) and k_ow(S_w), oil in the oil-water system,
   (1 - S)^1/2 [1 - S^(n/(n-1))]^(2(n-1)/n), together: they share their powers (pow() is most of
   the flash's time on GPUs in double) */
PF_TEMPLATE PF_FN void adi_kr_water_ow(pf_real sw_e, pf_real n, pf_real* krw, pf_real* kow) {
  if (sw_e <= (pf_real)0) {
    *krw = (pf_real)0;
    *kow = (pf_real)1;
    return;
  }
  if (sw_e >= (pf_real)1) {
    *krw = (pf_real)1;
    *kow = (pf_real)0;
    return;
  }
  pf_real m = (n - (pf_real)1) / n;
  pf_real q = (pf_real)1 - pow(sw_e, (pf_real)1 / m);
  pf_real qm = pow(q, m);
  pf_real t = (pf_real)1 - qm;
  *krw = sqrt(sw_e) * t * t;
  *kow = sqrt((pf_real)1 - sw_e) * qm * qm; /* q^(2m) */
}

/* Three-phase oil (kow = k_ow(S_w) from adi_kr_water_ow): k_ro = S_o k_ow(S_w) k_og(S_L) / ((1 - S_w)(S_w + S_o)), effective saturations.
   Two corrections to paper 002's printed form, so that with no gas k_ro = k_ow: k_og is taken at
   the liquid saturation S_L = S_w + S_o = 1 - S_g (the oil saturation of the gas-oil system, with
   connate water), and the law holds whenever S_w < 1 and S_o > 0 (the printed condition
   S_w + S_o < 1 would switch it off exactly when there is no gas). */
PF_TEMPLATE PF_FN pf_real adi_kr_oil(pf_real sw_e, pf_real so_e, pf_real kow, pf_real n) {
  if (sw_e >= (pf_real)1 || so_e <= (pf_real)0) return (pf_real)0;
  pf_real sl = sw_e + so_e;
  pf_real kog = adi_kr_wetting(sl, n);
  pf_real k = so_e * kow * kog / (((pf_real)1 - sw_e) * sl);
  return fmin(fmax(k, (pf_real)0), (pf_real)1);
}

/* ---- capillary pressure: Parker's model, paper 002 ------------------------------------------
   p_cow = p_o - p_w = (1/zeta) (S_w^(-n/(n-1)) - 1)^(1/n), p_cog = p_g - p_o likewise in 1 - S_g.
   The printed exponent n/(n-1) lacks its minus sign (the bracket would be negative); the law is
   van Genuchten's with m = 1 - 1/n. Below ADI_PC_SMIN it is held constant so it stays finite.
   Gives p_c and its slope together (they share the powers: the flash evaluates both per node). */
PF_TEMPLATE PF_FN void adi_parker(pf_real se, pf_real n, pf_real inv_zeta, pf_real smin, pf_real* pc, pf_real* slope) {
  *pc = (pf_real)0;
  *slope = (pf_real)0;
  if (inv_zeta == (pf_real)0) return;
  pf_real s = fmin(fmax(se, smin), (pf_real)1);
  pf_real m = (n - (pf_real)1) / n;
  pf_real sp = pow(s, -(pf_real)1 / m);
  pf_real t = sp - (pf_real)1;
  if (!(t > (pf_real)0)) return;
  pf_real tn = pow(t, (pf_real)1 / n);
  *pc = inv_zeta * tn;
  /* |dp_c/dS_e| = (1/zeta) / (n m) t^(1/n - 1) s^(-1/m - 1), from the same powers; 0 where the law
     is held constant. The stiffness of the explicit capillary flux, for the substep limit. */
  if (se >= smin && se < (pf_real)1) *slope = inv_zeta / (n * m) * (tn / t) * (sp / s);
}

/* ---- phase behaviour -------------------------------------------------------------------------- */

/* slightly compressible phases, at the oil pressure (capillary corrections neglected here) */
PF_TEMPLATE PF_FN pf_real adi_density(pf_real rho_ref, pf_real c, pf_real p, pf_real p_ref) {
  return rho_ref * ((pf_real)1 + c * (p - p_ref));
}

PF_TEMPLATE PF_FN pf_real adi_k3(PF_GLOBAL const pf_real* prm, pf_real p) {
  return prm[ADI_K3] * exp(-prm[ADI_K3_BETA] * (p - prm[ADI_P_REF]));
}

/* Split of components 2, 3, 4 (masses u2, u3, u4 per unit pore volume) into oil and gas with
   C_g3 = k3 C_o3. Writing x = C_o3, the oil mass is u4 / (1 - x), the gas mass u2 / (1 - k3 x), and
   component 3 balances when k3 U x^2 - P x + u3 = 0, U = u2 + u3 + u4, P = u4 + k3 u2 + (1 + k3) u3;
   its smaller root (the stable form below) is the physical one. Outputs phase masses per pore
   volume and the mass fractions of component 3; mo + mg = u2 + u3 + u4 exactly. */
PF_TEMPLATE PF_FN void adi_split(pf_real u2, pf_real u3, pf_real u4, pf_real k3, pf_real* mo, pf_real* mg, pf_real* co3,
                                 pf_real* cg3) {
  const pf_real eps = (pf_real)1e-12;
  pf_real u = u2 + u3 + u4;
  if (u3 <= (pf_real)0) {
    *mo = u4;
    *mg = u2;
    *co3 = (pf_real)0;
    *cg3 = (pf_real)0;
    return;
  }
  pf_real pq = u4 + k3 * u2 + ((pf_real)1 + k3) * u3;
  pf_real disc = fmax(pq * pq - (pf_real)4 * k3 * u * u3, (pf_real)0);
  pf_real x = (pf_real)2 * u3 / (pq + sqrt(disc));
  x = fmin(fmax(x, (pf_real)0), (pf_real)1);
  pf_real o, g;
  if ((pf_real)1 - x > eps) {
    o = u4 / ((pf_real)1 - x);
    g = u - o;
  } else { /* no component 4: the oil is pure component 3 */
    pf_real y = k3 * x;
    g = (pf_real)1 - y > eps ? u2 / ((pf_real)1 - y) : u2 + u3;
    o = u - g;
  }
  o = fmin(fmax(o, (pf_real)0), u);
  *mo = o;
  *mg = u - o;
  *co3 = x;
  *cg3 = *mg > (pf_real)0 ? fmin(fmax((u3 - x * o) / *mg, (pf_real)0), (pf_real)1) : k3 * x;
}

/* Phase state of a node from its component masses (per unit pore volume) and pressure: the
   saturations are the phase volume fractions, normalised to sum to 1; `vol` is the unnormalised
   sum (the volume balance the pressure equation drives to 1). */
PF_TEMPLATE PF_FN void adi_flash(PF_GLOBAL const pf_real* prm, pf_real u1, pf_real u2, pf_real u3, pf_real u4, pf_real p,
                                 pf_real* sw, pf_real* so, pf_real* sg, pf_real* co3, pf_real* cg3, pf_real* vol) {
  pf_real pr = prm[ADI_P_REF];
  pf_real rw = adi_density(prm[ADI_RHO_W], prm[ADI_C_W], p, pr);
  pf_real ro = adi_density(prm[ADI_RHO_O], prm[ADI_C_O], p, pr);
  pf_real rg = adi_density(prm[ADI_RHO_G], prm[ADI_C_G], p, pr);
  pf_real mo, mg;
  adi_split(u2, u3, u4, adi_k3(prm, p), &mo, &mg, co3, cg3);
  pf_real vw = u1 / rw, vo = mo / ro, vg = mg / rg;
  pf_real v = vw + vo + vg;
  *vol = v;
  pf_real inv = v > (pf_real)0 ? (pf_real)1 / v : (pf_real)0;
  *sw = vw * inv;
  *so = vo * inv;
  *sg = vg * inv;
}

/* Mobilities k_r / mu of the three phases at saturations (s_w, s_o, s_g). */
PF_TEMPLATE PF_FN void adi_mobilities(PF_GLOBAL const pf_real* prm, pf_real sw, pf_real so, pf_real sg, pf_real* lw,
                                      pf_real* lo, pf_real* lg) {
  pf_real denom = (pf_real)1 - prm[ADI_SWR] - prm[ADI_SOR] - prm[ADI_SGR];
  pf_real n = prm[ADI_NEXP];
  pf_real we = adi_effective(sw, prm[ADI_SWR], denom);
  pf_real oe = adi_effective(so, prm[ADI_SOR], denom);
  pf_real ge = adi_effective(sg, prm[ADI_SGR], denom);
  pf_real krw, kow;
  adi_kr_water_ow(we, n, &krw, &kow);
  *lw = krw / prm[ADI_MU_W];
  *lo = adi_kr_oil(we, oe, kow, n) / prm[ADI_MU_O];
  *lg = adi_kr_wetting(ge, n) / prm[ADI_MU_G];
}

/* Capillary offsets of the phase pressures from the oil pressure, p_w = p - p_cow and
   p_g = p + p_cog, and the slopes |dp_cow/dS_w|, |dp_cog/dS_g| in physical saturations. */
PF_TEMPLATE PF_FN void adi_capillary(PF_GLOBAL const pf_real* prm, pf_real sw, pf_real sg, pf_real* pcw, pf_real* pcg,
                                     pf_real* dw, pf_real* dg) {
  pf_real denom = (pf_real)1 - prm[ADI_SWR] - prm[ADI_SOR] - prm[ADI_SGR];
  pf_real n = prm[ADI_NEXP];
  pf_real we = adi_effective(sw, prm[ADI_SWR], denom);
  pf_real ge = adi_effective(sg, prm[ADI_SGR], denom);
  pf_real cw, cg, sl_w, sl_g;
  adi_parker(we, n, prm[ADI_INV_ZETA], prm[ADI_PC_SMIN], &cw, &sl_w);
  adi_parker((pf_real)1 - ge, n, prm[ADI_INV_ZETA], prm[ADI_PC_SMIN], &cg, &sl_g);
  *pcw = -cw;
  *pcg = cg;
  *dw = sl_w / denom;
  *dg = sl_g / denom;
}

/* ---- per-node stencils: the whole computation of one node, so the backends only supply the
   parallel loop over nodes. Grid: nx x ny nodes, node (i, j) at j * nx + i, spacing h. ---------- */

/* the control volume of a node is h^2, halved on an edge and quartered in a corner (a macro: it
   is used inside the templates, where pf_real is the template parameter) */
#define ADI_EDGE(i, n) (((i) == 0 || (i) == (n) - 1) ? (pf_real)0.5 : (pf_real)1)

/* What faces need of one node: phase potentials (the phase pressures), mobilities, densities,
   the capillary slopes |dp_cow/dS_w|, |dp_cog/dS_g| and the mass fraction of each component (1..4)
   in each phase (w, o, g). */
PF_STRUCT(AdiNode) {
  pf_real phi[3], lam[3], rho[3], s[3], dpc[2];
  pf_real cmp[4][3];
};

/* The saturation-dependent properties of a node, the costly part (a dozen pow()): the flash
   stores them per node (ADI_NPROPS arrays of nx ny values) so that the face kernels, which see
   every node five times, read them instead of recomputing. */
#define ADI_NPROPS 7 /* lambda_w, lambda_o, lambda_g, p_cow offset, p_cog offset, two slopes */
PF_TEMPLATE PF_FN void adi_node_props(PF_GLOBAL const pf_real* prm, pf_real sw, pf_real so, pf_real sg,
                                      pf_real q[ADI_NPROPS]) {
  adi_mobilities(prm, sw, so, sg, &q[0], &q[1], &q[2]);
  adi_capillary(prm, sw, sg, &q[3], &q[4], &q[5], &q[6]);
}

PF_TEMPLATE PF_FN void adi_node(PF_GLOBAL const pf_real* prm, pf_real p, pf_real sw, pf_real so, pf_real sg, pf_real co3,
                                pf_real cg3, const pf_real q[ADI_NPROPS], PF_T(AdiNode) * nd) {
  pf_real pr = prm[ADI_P_REF];
  nd->phi[0] = p + q[3];
  nd->phi[1] = p;
  nd->phi[2] = p + q[4];
  nd->lam[0] = q[0];
  nd->lam[1] = q[1];
  nd->lam[2] = q[2];
  nd->dpc[0] = q[5];
  nd->dpc[1] = q[6];
  nd->rho[0] = adi_density(prm[ADI_RHO_W], prm[ADI_C_W], p, pr);
  nd->rho[1] = adi_density(prm[ADI_RHO_O], prm[ADI_C_O], p, pr);
  nd->rho[2] = adi_density(prm[ADI_RHO_G], prm[ADI_C_G], p, pr);
  nd->s[0] = sw;
  nd->s[1] = so;
  nd->s[2] = sg;
  for (int j = 0; j < 4; ++j)
    for (int a = 0; a < 3; ++a) nd->cmp[j][a] = (pf_real)0;
  nd->cmp[0][0] = (pf_real)1;               /* component 1: water only */
  nd->cmp[1][2] = (pf_real)1 - cg3;         /* component 2: gas only */
  nd->cmp[2][1] = co3;                      /* component 3: oil and gas */
  nd->cmp[2][2] = cg3;
  nd->cmp[3][1] = (pf_real)1 - co3;         /* component 4: oil only */
}

/* node k from the state arrays and the stored properties (props: ADI_NPROPS arrays of nn) */
PF_TEMPLATE PF_FN void adi_load_node(PF_GLOBAL const pf_real* prm, PF_GLOBAL const pf_real* p, PF_GLOBAL const pf_real* sw,
                                     PF_GLOBAL const pf_real* so, PF_GLOBAL const pf_real* sg,
                                     PF_GLOBAL const pf_real* co3, PF_GLOBAL const pf_real* cg3,
                                     PF_GLOBAL const pf_real* props, long nn, long k, PF_T(AdiNode) * nd) {
  pf_real q[ADI_NPROPS];
  for (int i = 0; i < ADI_NPROPS; ++i) q[i] = props[i * nn + k];
  adi_node(prm, p[k], sw[k], so[k], sg[k], co3[k], cg3[k], q, nd);
}

/* Upwind transmissibilities of a face from node `a` towards node `b`: t[j][alpha] such that the
   mass of component j entering `a` per unit time is sum_alpha t[j][alpha] (phi_b - phi_a)[alpha].
   geo = face length / h. The upwind node of a phase is the one its potential flows from. */
PF_TEMPLATE PF_FN void adi_face_trans(PF_GLOBAL const pf_real* prm, const PF_T(AdiNode) * a, const PF_T(AdiNode) * b,
                                      pf_real geo, pf_real t[4][3]) {
  for (int al = 0; al < 3; ++al) {
    int from_b = b->phi[al] > a->phi[al];
    pf_real lam = from_b ? b->lam[al] : a->lam[al];
    pf_real rho = from_b ? b->rho[al] : a->rho[al];
    pf_real base = geo * prm[ADI_PERM] * lam * rho;
    for (int j = 0; j < 4; ++j) t[j][al] = base * (from_b ? b->cmp[j][al] : a->cmp[j][al]);
  }
}

/* The total volumetric flux from node lo to node hi (lo west or south of hi) by the phase
   potentials of the pressure just solved for, each phase upwinded by its potential, as the
   pressure equation counts it. Transport holds it fixed over the step's substeps. */
PF_TEMPLATE PF_FN pf_real adi_face_total(PF_GLOBAL const pf_real* prm, const PF_T(AdiNode) * lo, const PF_T(AdiNode) * hi,
                                         pf_real geo) {
  pf_real ut = (pf_real)0;
  for (int al = 0; al < 3; ++al) {
    pf_real dphi = lo->phi[al] - hi->phi[al];
    ut += geo * prm[ADI_PERM] * (dphi > (pf_real)0 ? lo->lam[al] : hi->lam[al]) * dphi;
  }
  return ut;
}

/* One capillary pair (a, b) of a face, p_c of oil 0: with d = (p_a - p_b)(lo) - (p_a - p_b)(hi),
   phase a moves lo -> hi and b hi -> lo when d > 0 (the other way when d < 0), each with the
   mobility of the node it leaves. a and b are literals at every call: with the node values picked
   by value (not by pointer), the nodes stay in registers on GPUs (a pointer chosen at run time
   put both nodes in local memory and made the face kernels three times slower). */
PF_TEMPLATE PF_FN void adi_capillary_pair(const PF_T(AdiNode) * lo, const PF_T(AdiNode) * hi, pf_real k, int a, int b,
                                          pf_real mflux[4], pf_real out_lo[3], pf_real out_hi[3]) {
  const int g = 3 - a - b;
  pf_real d = ((lo->phi[a] - lo->phi[1]) - (hi->phi[a] - hi->phi[1])) -
              ((lo->phi[b] - lo->phi[1]) - (hi->phi[b] - hi->phi[1]));
  if (d == (pf_real)0) return;
  const int fwd = d > (pf_real)0; /* a leaves lo, b leaves hi */
  pf_real la = fwd ? lo->lam[a] : hi->lam[a], lb = fwd ? hi->lam[b] : lo->lam[b];
  pf_real lsum = la + lb + (pf_real)0.5 * (lo->lam[g] + hi->lam[g]);
  if (!(la > (pf_real)0 && lb > (pf_real)0 && lsum > (pf_real)0)) return;
  pf_real f = k * la * lb / lsum * d; /* volume of a lo -> hi; of b hi -> lo */
  pf_real ra = fwd ? lo->rho[a] : hi->rho[a], rb = fwd ? hi->rho[b] : lo->rho[b];
  for (int c = 0; c < 4; ++c) {
    pf_real ca = fwd ? lo->cmp[c][a] : hi->cmp[c][a], cb = fwd ? hi->cmp[c][b] : lo->cmp[c][b];
    mflux[c] += f * (ra * ca - rb * cb);
  }
  if (fwd) {
    out_lo[a] += f;
    out_hi[b] += f;
  } else {
    out_hi[a] -= f;
    out_lo[b] -= f;
  }
}

/* The flow through the face from node lo to node hi with the total flux ut fixed, in the
   fractional-flow form U_a = (lam_a / lam_t) ut + sum_b (lam_a lam_b / lam_t) K (dpc_a - dpc_b)
   (dpc = p_c(lo) - p_c(hi), p_c of oil 0), so the phases share ut and only the capillary part
   moves them against each other. Hybrid upwinding: the viscous part takes the fractions of the
   node ut leaves, each capillary pair the mobility of the node each phase leaves; so a phase only
   leaves a node through its own mobility (positivity), and the phase fluxes sum to ut (volume).
   Outputs: mass flux of each component lo -> hi, the volume of each phase leaving lo and hi. */
PF_TEMPLATE PF_FN void adi_face_flow(PF_GLOBAL const pf_real* prm, const PF_T(AdiNode) * lo, const PF_T(AdiNode) * hi,
                                     pf_real geo, pf_real ut, pf_real mflux[4], pf_real out_lo[3], pf_real out_hi[3]) {
  for (int c = 0; c < 4; ++c) mflux[c] = (pf_real)0;
  for (int al = 0; al < 3; ++al) out_lo[al] = out_hi[al] = (pf_real)0;
  /* viscous part from the upwind node of ut (the other one if no phase moves there) */
  pf_real lt_lo = lo->lam[0] + lo->lam[1] + lo->lam[2], lt_hi = hi->lam[0] + hi->lam[1] + hi->lam[2];
  const int use_lo = ut >= (pf_real)0 ? lt_lo > (pf_real)0 : !(lt_hi > (pf_real)0);
  pf_real lt = use_lo ? lt_lo : lt_hi;
  if (lt > (pf_real)0 && ut != (pf_real)0) {
    for (int al = 0; al < 3; ++al) {
      pf_real v = (use_lo ? lo->lam[al] : hi->lam[al]) / lt * ut;
      pf_real rho = use_lo ? lo->rho[al] : hi->rho[al];
      for (int c = 0; c < 4; ++c) mflux[c] += v * rho * (use_lo ? lo->cmp[c][al] : hi->cmp[c][al]);
      if (ut > (pf_real)0) out_lo[al] += v;
      else out_hi[al] -= v;
    }
  }
  /* capillary pairs (w, o), (w, g), (o, g) */
  pf_real k = geo * prm[ADI_PERM];
  adi_capillary_pair(lo, hi, k, 0, 1, mflux, out_lo, out_hi);
  adi_capillary_pair(lo, hi, k, 0, 2, mflux, out_lo, out_hi);
  adi_capillary_pair(lo, hi, k, 1, 2, mflux, out_lo, out_hi);
}

/* An upper bound of the explicit capillary stiffness of a face, volume per unit time per unit
   saturation: explicit capillary transport is stable for dt sum_faces (this) / pore volume <= 1,
   a limit the outflow rate alone does not see where the saturation field is smooth. */
PF_TEMPLATE PF_FN pf_real adi_face_capillary_stiffness(PF_GLOBAL const pf_real* prm, const PF_T(AdiNode) * a,
                                                       const PF_T(AdiNode) * b, pf_real geo) {
  if (prm[ADI_INV_ZETA] == (pf_real)0) return (pf_real)0;
  pf_real dw = fmax(a->dpc[0], b->dpc[0]), dg = fmax(a->dpc[1], b->dpc[1]);
  pf_real l[3];
  for (int al = 0; al < 3; ++al) l[al] = fmax(a->lam[al], b->lam[al]);
  /* x y / (x + y) bounds every pair coefficient la lb / lsum above */
  pf_real hwo = l[0] + l[1] > (pf_real)0 ? l[0] * l[1] / (l[0] + l[1]) : (pf_real)0;
  pf_real hwg = l[0] + l[2] > (pf_real)0 ? l[0] * l[2] / (l[0] + l[2]) : (pf_real)0;
  pf_real hog = l[1] + l[2] > (pf_real)0 ? l[1] * l[2] / (l[1] + l[2]) : (pf_real)0;
  return geo * prm[ADI_PERM] * (hwo * dw + hog * dg + hwg * (dw + dg));
}

/* Volume-balance weights of a node: the pore volume each unit of component mass occupies, per
   unit of control volume (its partial specific volume over m A), and the total compressibility
   c_t = -dV/dp of the normalised phase volumes. vol is the unnormalised volume sum. */
PF_TEMPLATE PF_FN void adi_weights(PF_GLOBAL const pf_real* prm, const PF_T(AdiNode) * nd, pf_real vol, pf_real area,
                                   pf_real w[4], pf_real* ct) {
  pf_real pv = prm[ADI_PORO] * area;
  pf_real vo = nd->s[1] * vol, vg = nd->s[2] * vol;
  pf_real num = nd->cmp[2][1] * vo + nd->cmp[2][2] * vg;
  pf_real den = nd->cmp[2][1] * vo * nd->rho[1] + nd->cmp[2][2] * vg * nd->rho[2];
  w[0] = (pf_real)1 / (nd->rho[0] * pv);
  w[1] = (pf_real)1 / (nd->rho[2] * pv);
  w[2] = (den > (pf_real)0 ? num / den : (pf_real)1 / nd->rho[1]) / pv;
  w[3] = (pf_real)1 / (nd->rho[1] * pv);
  pf_real p = nd->phi[1], pr = prm[ADI_P_REF];
  pf_real cw = prm[ADI_C_W], co = prm[ADI_C_O], cg = prm[ADI_C_G];
  *ct = nd->s[0] * vol * cw / ((pf_real)1 + cw * (p - pr)) + vo * co / ((pf_real)1 + co * (p - pr)) +
        vg * cg / ((pf_real)1 + cg * (p - pr));
}

/* Producer phase mass rates (leaving the node, >= 0) at pressure p: J lambda rho (p - p_bh)+. */
PF_TEMPLATE PF_FN pf_real adi_prod_rate(const PF_T(AdiNode) * nd, int al, pf_real j_index, pf_real p_bh) {
  pf_real dp = nd->phi[1] - p_bh;
  return dp > (pf_real)0 ? j_index * nd->lam[al] * nd->rho[al] * dp : (pf_real)0;
}

/* The pressure equation of node (i, j) for one time step dt: off-diagonals a_f >= 0 towards each
   neighbour, the own diagonal d0 (compressibility and producer) and the right-hand side, from the
   linearised volume balance V(p^{n+1}, masses^{n+1}) = 1 with explicit mobilities and capillarity,
   written for the increment dp = p^{n+1} - p^n:
     d0 dp_i + sum_f a_f (dp_i - dp_f) = (V_i^n - 1) + dt sum_j w_j (capillary and well terms at p^n)
                                         - sum_f a_f (p_i^n - p_f^n).
   The right-hand side is the residual of the current pressure, formed from small terms without
   the c_t p^n that would cancel: in float the increment then keeps its relative accuracy, where
   solving for p itself loses the digits of p that the nearly singular operator amplifies. */
PF_TEMPLATE PF_FN void adi_coefficients_node(
    PF_GLOBAL const pf_real* prm, long i, long j, long nx, long ny, pf_real h, pf_real dt, PF_GLOBAL const pf_real* p,
    PF_GLOBAL const pf_real* sw, PF_GLOBAL const pf_real* so, PF_GLOBAL const pf_real* sg, PF_GLOBAL const pf_real* co3,
    PF_GLOBAL const pf_real* cg3, PF_GLOBAL const pf_real* props, PF_GLOBAL const pf_real* vol, PF_GLOBAL const pf_real* inj, PF_GLOBAL const pf_real* prod,
    pf_real p_bh, PF_GLOBAL pf_real* aw, PF_GLOBAL pf_real* ae, PF_GLOBAL pf_real* as, PF_GLOBAL pf_real* an,
    PF_GLOBAL pf_real* d0, PF_GLOBAL pf_real* rhs) {
  long k = j * nx + i;
  PF_T(AdiNode) me, nb;
  adi_load_node(prm, p, sw, so, sg, co3, cg3, props, nx * ny, k, &me);
  pf_real fx = ADI_EDGE(i, nx), fy = ADI_EDGE(j, ny);
  pf_real w[4], ct;
  adi_weights(prm, &me, vol[k], h * h * fx * fy, w, &ct);
  pf_real coef[4] = {(pf_real)0, (pf_real)0, (pf_real)0, (pf_real)0}; /* west, east, south, north */
  pf_real cap = (pf_real)0, flow = (pf_real)0;
  for (int f = 0; f < 4; ++f) {
    long ii = i + (f == 0 ? -1 : f == 1 ? 1 : 0), jj = j + (f == 2 ? -1 : f == 3 ? 1 : 0);
    if (ii < 0 || ii >= nx || jj < 0 || jj >= ny) continue;
    adi_load_node(prm, p, sw, so, sg, co3, cg3, props, nx * ny, jj * nx + ii, &nb);
    /* face length / h: a face along an edge of the grid is half as long */
    pf_real geo = f < 2 ? fy : fx;
    pf_real t[4][3];
    adi_face_trans(prm, &me, &nb, geo, t);
    pf_real a = (pf_real)0;
    for (int c = 0; c < 4; ++c)
      for (int al = 0; al < 3; ++al) {
        a += w[c] * t[c][al];
        /* the capillary part of the potential difference is explicit */
        cap += w[c] * t[c][al] * ((nb.phi[al] - nb.phi[1]) - (me.phi[al] - me.phi[1]));
      }
    coef[f] = dt * a;
    flow -= coef[f] * (me.phi[1] - nb.phi[1]);
  }
  /* too much volume (V > 1) raises the pressure, which compresses the fluids and drives them out */
  pf_real diag = ct, r = (vol[k] - (pf_real)1) + dt * cap + flow;
  pf_real q_in = inj[k];
  if (q_in != (pf_real)0) r += dt * w[0] * q_in;
  pf_real jidx = prod[k];
  if (jidx != (pf_real)0) {
    pf_real wp = (pf_real)0;
    for (int c = 0; c < 4; ++c)
      for (int al = 0; al < 3; ++al) wp += w[c] * me.cmp[c][al] * jidx * me.lam[al] * me.rho[al];
    diag += dt * wp;
    r += dt * wp * (p_bh - me.phi[1]);
  }
  aw[k] = coef[0];
  ae[k] = coef[1];
  as[k] = coef[2];
  an[k] = coef[3];
  d0[k] = diag;
  rhs[k] = r;
}

/* The tridiagonal row of node k for a Peaceman-Rachford half step with parameter r, in correction
   form: x sweep (H + r) e = rhs - A q, y sweep (V + r) e = rhs - A q, then q' = q + e (A = H + V,
   d0 split evenly). The same iteration as (H + r) q' = rhs - (V - r) q, but the solve's rounding
   is relative to the correction e, which vanishes as ADI converges, not to q: in float, on the
   nearly singular systems of small r, PCR otherwise stalls at relative changes of 1e-2. Returns the
   residual, which ADI's convergence check reduces. */
PF_TEMPLATE PF_FN pf_real adi_sweep_node(long i, long j, long nx, long ny, int x_sweep, pf_real r, PF_GLOBAL const pf_real* aw,
                                      PF_GLOBAL const pf_real* ae, PF_GLOBAL const pf_real* as,
                                      PF_GLOBAL const pf_real* an, PF_GLOBAL const pf_real* d0,
                                      PF_GLOBAL const pf_real* rhs, PF_GLOBAL const pf_real* q, PF_GLOBAL pf_real* a,
                                      PF_GLOBAL pf_real* b, PF_GLOBAL pf_real* c, PF_GLOBAL pf_real* d) {
  long k = j * nx + i;
  pf_real dh = (pf_real)0.5 * d0[k]; /* d0 split evenly between the two directions */
  pf_real qk = q[k];
  /* the residual rhs - A q, each neighbour term as a difference so no large products cancel */
  pf_real res = rhs[k] - d0[k] * qk;
  if (i > 0) res -= aw[k] * (qk - q[k - 1]);
  if (i < nx - 1) res -= ae[k] * (qk - q[k + 1]);
  if (j > 0) res -= as[k] * (qk - q[k - nx]);
  if (j < ny - 1) res -= an[k] * (qk - q[k + nx]);
  d[k] = res;
  if (x_sweep) {
    a[k] = -aw[k];
    c[k] = -ae[k];
    b[k] = aw[k] + ae[k] + dh + r;
  } else {
    a[k] = -as[k];
    c[k] = -an[k];
    b[k] = as[k] + an[k] + dh + r;
  }
  return res;
}

/* The total volumetric flux through the east face (ux) and the north face (uy) of node (i, j), by
   the potentials of the pressure just solved for; 0 on the faces of the last column and row. */
PF_TEMPLATE PF_FN void adi_total_velocity_node(PF_GLOBAL const pf_real* prm, long i, long j, long nx, long ny,
                                               PF_GLOBAL const pf_real* p, PF_GLOBAL const pf_real* sw,
                                               PF_GLOBAL const pf_real* so, PF_GLOBAL const pf_real* sg,
                                               PF_GLOBAL const pf_real* co3, PF_GLOBAL const pf_real* cg3, PF_GLOBAL const pf_real* props,
                                               PF_GLOBAL pf_real* ux, PF_GLOBAL pf_real* uy) {
  long k = j * nx + i;
  PF_T(AdiNode) me, nb;
  adi_load_node(prm, p, sw, so, sg, co3, cg3, props, nx * ny, k, &me);
  pf_real u = (pf_real)0;
  if (i + 1 < nx) {
    adi_load_node(prm, p, sw, so, sg, co3, cg3, props, nx * ny, k + 1, &nb);
    u = adi_face_total(prm, &me, &nb, ADI_EDGE(j, ny));
  }
  ux[k] = u;
  u = (pf_real)0;
  if (j + 1 < ny) {
    adi_load_node(prm, p, sw, so, sg, co3, cg3, props, nx * ny, k + nx, &nb);
    u = adi_face_total(prm, &me, &nb, ADI_EDGE(i, nx));
  }
  uy[k] = u;
}

/* Face f of node (i, j) (0 west, 1 east, 2 south, 3 north) as that node sees it: loads the
   neighbour into nb, and gives the mass of each component entering the node (m_in) and the
   volume of each phase leaving it (pout) through the face (adi_face_flow, computed from the
   face's west/south node on both sides, so both see the same flux).
   Returns 0 on the grid's edge, where there is no face. */
PF_TEMPLATE PF_FN int adi_node_face(PF_GLOBAL const pf_real* prm, long i, long j, long nx, long ny, int f,
                                    PF_GLOBAL const pf_real* p, PF_GLOBAL const pf_real* sw,
                                    PF_GLOBAL const pf_real* so, PF_GLOBAL const pf_real* sg,
                                    PF_GLOBAL const pf_real* co3, PF_GLOBAL const pf_real* cg3,
                                    PF_GLOBAL const pf_real* props, PF_GLOBAL const pf_real* ux,
                                    PF_GLOBAL const pf_real* uy, const PF_T(AdiNode) * me, PF_T(AdiNode) * nb,
                                    pf_real m_in[4], pf_real pout[3]) {
  long ii = i + (f == 0 ? -1 : f == 1 ? 1 : 0), jj = j + (f == 2 ? -1 : f == 3 ? 1 : 0);
  if (ii < 0 || ii >= nx || jj < 0 || jj >= ny) return 0;
  long kn = jj * nx + ii;
  adi_load_node(prm, p, sw, so, sg, co3, cg3, props, nx * ny, kn, nb);
  int me_lo = f == 1 || f == 3; /* this node is the face's west/south node */
  long klo = me_lo ? j * nx + i : kn;
  pf_real ut = f < 2 ? ux[klo] : uy[klo]; /* fixed total flux, west/south -> east/north */
  pf_real geo = f < 2 ? ADI_EDGE(j, ny) : ADI_EDGE(i, nx);
  pf_real mf[4], olo[3], ohi[3];
  if (me_lo)
    adi_face_flow(prm, me, nb, geo, ut, mf, olo, ohi);
  else
    adi_face_flow(prm, nb, me, geo, ut, mf, olo, ohi);
  for (int c = 0; c < 4; ++c) m_in[c] = me_lo ? -mf[c] : mf[c];
  for (int al = 0; al < 3; ++al) pout[al] = me_lo ? olo[al] : ohi[al];
  return 1;
}

/* One explicit step of dt for node (i, j): every component moves with the phases through each
   face at the face's fixed total flux (adi_face_flow: the fractions and capillary parts of the
   current state), plus molecular diffusion m D S_alpha grad(rho_alpha C_alpha,j) and the wells;
   acc gathers the well masses. A face's flux is computed from its west/south node's view on both
   sides, so the masses are conserved to rounding. */
PF_TEMPLATE PF_FN void adi_transport_node(
    PF_GLOBAL const pf_real* prm, long i, long j, long nx, long ny, pf_real dt, PF_GLOBAL const pf_real* p,
    PF_GLOBAL const pf_real* sw, PF_GLOBAL const pf_real* so, PF_GLOBAL const pf_real* sg, PF_GLOBAL const pf_real* co3,
    PF_GLOBAL const pf_real* cg3, PF_GLOBAL const pf_real* props, PF_GLOBAL const pf_real* ux, PF_GLOBAL const pf_real* uy,
    PF_GLOBAL const pf_real* inj, PF_GLOBAL const pf_real* prod, pf_real p_bh, PF_GLOBAL const pf_real* m1,
    PF_GLOBAL const pf_real* m2, PF_GLOBAL const pf_real* m3, PF_GLOBAL const pf_real* m4, PF_GLOBAL pf_real* o1,
    PF_GLOBAL pf_real* o2, PF_GLOBAL pf_real* o3, PF_GLOBAL pf_real* o4, PF_GLOBAL pf_real* acc1,
    PF_GLOBAL pf_real* acc2, PF_GLOBAL pf_real* acc3, PF_GLOBAL pf_real* acc4) {
  long k = j * nx + i;
  PF_T(AdiNode) me, nb;
  adi_load_node(prm, p, sw, so, sg, co3, cg3, props, nx * ny, k, &me);
  pf_real fx = ADI_EDGE(i, nx), fy = ADI_EDGE(j, ny);
  pf_real dm[4] = {(pf_real)0, (pf_real)0, (pf_real)0, (pf_real)0};
  pf_real dif = prm[ADI_DIFF] * prm[ADI_PORO];
  for (int f = 0; f < 4; ++f) {
    pf_real m_in[4], pout[3];
    if (!adi_node_face(prm, i, j, nx, ny, f, p, sw, so, sg, co3, cg3, props, ux, uy, &me, &nb, m_in, pout)) continue;
    pf_real geo = f < 2 ? fy : fx;
    for (int c = 0; c < 4; ++c) dm[c] += m_in[c];
    if (dif != (pf_real)0)
      for (int al = 0; al < 3; ++al) {
        /* diffusion within phase alpha needs the phase on both sides: the face saturation is the
           smaller one, which also keeps the explicit step positive */
        pf_real ds = dif * fmin(me.s[al], nb.s[al]) * geo;
        for (int c = 0; c < 4; ++c) dm[c] += ds * (nb.rho[al] * nb.cmp[c][al] - me.rho[al] * me.cmp[c][al]);
      }
  }
  pf_real well[4] = {(pf_real)0, (pf_real)0, (pf_real)0, (pf_real)0};
  if (inj[k] != (pf_real)0) well[0] += inj[k];
  if (prod[k] != (pf_real)0)
    for (int al = 0; al < 3; ++al) {
      pf_real q = adi_prod_rate(&me, al, prod[k], p_bh);
      for (int c = 0; c < 4; ++c) well[c] -= q * me.cmp[c][al];
    }
  o1[k] = m1[k] + dt * (dm[0] + well[0]);
  o2[k] = m2[k] + dt * (dm[1] + well[1]);
  o3[k] = m3[k] + dt * (dm[2] + well[2]);
  o4[k] = m4[k] + dt * (dm[3] + well[3]);
  if (inj[k] != (pf_real)0 || prod[k] != (pf_real)0) {
    acc1[k] += dt * well[0];
    acc2[k] += dt * well[1];
    acc3[k] += dt * well[2];
    acc4[k] += dt * well[3];
  }
}

/* The rate that limits the explicit substep of node (i, j): the largest fraction of any phase's
   volume that leaves per unit time (through its faces, by production and by diffusion), so
   dt <= cfl / rate cannot drive a component mass negative (a phase leaves a node only through its
   own mobility); plus the capillary stiffness over the pore volume, so the explicit capillary
   part stays stable where the saturation field is smooth. vol is the unnormalised volume sum. */
PF_TEMPLATE PF_FN pf_real adi_rate_node(PF_GLOBAL const pf_real* prm, long i, long j, long nx, long ny, pf_real h,
                                        PF_GLOBAL const pf_real* p, PF_GLOBAL const pf_real* sw,
                                        PF_GLOBAL const pf_real* so, PF_GLOBAL const pf_real* sg,
                                        PF_GLOBAL const pf_real* co3, PF_GLOBAL const pf_real* cg3, PF_GLOBAL const pf_real* props,
                                        PF_GLOBAL const pf_real* ux, PF_GLOBAL const pf_real* uy,
                                        PF_GLOBAL const pf_real* vol, PF_GLOBAL const pf_real* prod, pf_real p_bh) {
  long k = j * nx + i;
  PF_T(AdiNode) me, nb;
  adi_load_node(prm, p, sw, so, sg, co3, cg3, props, nx * ny, k, &me);
  pf_real fx = ADI_EDGE(i, nx), fy = ADI_EDGE(j, ny);
  pf_real out[3] = {(pf_real)0, (pf_real)0, (pf_real)0};
  pf_real dif = (pf_real)0, stiff = (pf_real)0;
  for (int f = 0; f < 4; ++f) {
    pf_real m_in[4], pout[3];
    if (!adi_node_face(prm, i, j, nx, ny, f, p, sw, so, sg, co3, cg3, props, ux, uy, &me, &nb, m_in, pout)) continue;
    pf_real geo = f < 2 ? fy : fx;
    for (int al = 0; al < 3; ++al) out[al] += pout[al];
    stiff += adi_face_capillary_stiffness(prm, &me, &nb, geo);
    dif += prm[ADI_DIFF] * geo;
  }
  pf_real pv = prm[ADI_PORO] * h * h * fx * fy, v = vol[k];
  pf_real rate = (pf_real)0;
  for (int al = 0; al < 3; ++al) {
    pf_real q = out[al];
    if (prod[k] != (pf_real)0) q += adi_prod_rate(&me, al, prod[k], p_bh) / me.rho[al];
    pf_real phase_volume = me.s[al] * v * pv;
    if (q > (pf_real)0 && phase_volume > (pf_real)0) rate = fmax(rate, q / phase_volume);
  }
  /* diffusion: at most 2 D / (m A) of the node's content per face (face saturation <= own) */
  return rate + stiff / pv + (pf_real)2 * dif / (h * h * fx * fy);
}

/* The flash of node k from its component masses (mass in the control volume). */
PF_TEMPLATE PF_FN void adi_flash_node(PF_GLOBAL const pf_real* prm, long i, long j, long nx, long ny, pf_real h,
                                      PF_GLOBAL const pf_real* m1, PF_GLOBAL const pf_real* m2,
                                      PF_GLOBAL const pf_real* m3, PF_GLOBAL const pf_real* m4,
                                      PF_GLOBAL const pf_real* p, PF_GLOBAL pf_real* sw, PF_GLOBAL pf_real* so,
                                      PF_GLOBAL pf_real* sg, PF_GLOBAL pf_real* co3, PF_GLOBAL pf_real* cg3,
                                      PF_GLOBAL pf_real* vol, PF_GLOBAL pf_real* props) {
  long k = j * nx + i, nn = nx * ny;
  pf_real inv_pv = (pf_real)1 / (prm[ADI_PORO] * h * h * ADI_EDGE(i, nx) * ADI_EDGE(j, ny));
  pf_real a, b, c, d, e, v;
  adi_flash(prm, m1[k] * inv_pv, m2[k] * inv_pv, m3[k] * inv_pv, m4[k] * inv_pv, p[k], &a, &b, &c, &d, &e, &v);
  sw[k] = a;
  so[k] = b;
  sg[k] = c;
  co3[k] = d;
  cg3[k] = e;
  vol[k] = v;
  pf_real q[ADI_NPROPS];
  adi_node_props(prm, a, b, c, q);
  for (int n = 0; n < ADI_NPROPS; ++n) props[n * nn + k] = q[n];
}

PF_NAMESPACE_END

#endif
