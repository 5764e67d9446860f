#include "core/models/impes3d_setup.hpp"

#include <algorithm>
#include <cmath>

#include "core/base/error.hpp"
#include "core/physics/impes3d.h"

namespace poreflow {

double peaceman_wi(double kx, double ky, double dx, double dy, double h, double rw, double skin) {
  if (!(kx > 0) || !(ky > 0) || !(h > 0)) return 0;
  const double a = std::sqrt(ky / kx), b = std::sqrt(kx / ky);
  const double ro = 0.28 * std::sqrt(a * dx * dx + b * dy * dy) / (std::sqrt(a) + std::sqrt(b));
  const double denom = std::log(ro / rw) + skin;
  if (!(denom > 0))
    throw ConfigError("Peaceman well index: ln(r_o / r_w) + skin = " + std::to_string(denom) +
                      " is not positive (the wellbore is as large as the cell's equivalent radius); give the well index");
  return kDarcyMetric * 2 * M_PI * std::sqrt(kx * ky) * h / denom;
}

namespace {

double value_or(const std::vector<double>& v, std::size_t c, double def) { return v.empty() ? def : v[c]; }

bool cell_active(const ImpesGrid& g, std::size_t c) {
  if (!g.actnum.empty() && g.actnum[c] == 0) return false;
  return g.dx[c] * g.dy[c] * g.dz[c] * g.poro[c] * value_or(g.ntg, c, 1.0) > 0;
}

// the harmonic combination of two half-transmissibilities
double harmonic(double a, double b) { return a > 0 && b > 0 ? 1.0 / (1.0 / a + 1.0 / b) : 0.0; }

}  // namespace

ImpesGeometry build_geometry(const ImpesGrid& g) {
  ImpesGeometry geo;
  geo.box = Box3::standalone(g.nx, g.ny, g.nz, 1);
  const std::size_t E = geo.box.extent();
  for (auto* v : {&geo.tx, &geo.ty, &geo.tz, &geo.depth, &geo.pv0}) v->assign(E, 0.0);
  std::vector<char> act(g.cells());
  for (long k = 0; k < g.nz; ++k)
    for (long j = 0; j < g.ny; ++j)
      for (long i = 0; i < g.nx; ++i) {
        const std::size_t c = g.index(i, j, k);
        const long L = geo.at(i, j, k);
        act[c] = cell_active(g, c);
        geo.depth[L] = g.tops[c] + 0.5 * g.dz[c];
        if (act[c]) {
          geo.pv0[L] = g.dx[c] * g.dy[c] * g.dz[c] * g.poro[c] * value_or(g.ntg, c, 1.0);
          geo.pore_volume += geo.pv0[L];
          ++geo.active;
        }
      }
  // half-transmissibilities K A / (d / 2): NTG scales the horizontal areas (as Eclipse and OPM do)
  auto half_x = [&](std::size_t c) { return g.permx[c] * g.dy[c] * g.dz[c] * value_or(g.ntg, c, 1.0) / (0.5 * g.dx[c]); };
  auto half_y = [&](std::size_t c) { return g.permy[c] * g.dx[c] * g.dz[c] * value_or(g.ntg, c, 1.0) / (0.5 * g.dy[c]); };
  auto half_z = [&](std::size_t c) { return g.permz[c] * g.dx[c] * g.dy[c] / (0.5 * g.dz[c]); };
  for (long k = 0; k < g.nz; ++k)
    for (long j = 0; j < g.ny; ++j)
      for (long i = 0; i < g.nx; ++i) {
        const std::size_t c = g.index(i, j, k);
        if (!act[c]) continue;
        const long L = geo.at(i, j, k);
        if (i + 1 < g.nx && act[g.index(i + 1, j, k)])
          geo.tx[L] = kDarcyMetric * value_or(g.multx, c, 1.0) * harmonic(half_x(c), half_x(g.index(i + 1, j, k)));
        if (j + 1 < g.ny && act[g.index(i, j + 1, k)])
          geo.ty[L] = kDarcyMetric * value_or(g.multy, c, 1.0) * harmonic(half_y(c), half_y(g.index(i, j + 1, k)));
        if (k + 1 < g.nz && act[g.index(i, j, k + 1)])
          geo.tz[L] = kDarcyMetric * value_or(g.multz, c, 1.0) * harmonic(half_z(c), half_z(g.index(i, j, k + 1)));
      }
  return geo;
}

std::vector<double> build_prm(const ImpesFluid& f) {
  std::vector<double> prm(IMP_NPARAMS, 0.0);
  prm[IMP_RHO_W] = f.rho_w;
  prm[IMP_RHO_O] = f.rho_o;
  prm[IMP_GRAV] = f.gravity ? kGravityMetric : 0.0;
  prm[IMP_PVTW_PREF] = f.pvtw.pref;
  prm[IMP_PVTW_BW] = f.pvtw.bw;
  prm[IMP_PVTW_CW] = f.pvtw.cw;
  prm[IMP_PVTW_MUW] = f.pvtw.muw;
  prm[IMP_PVTW_CVW] = f.pvtw.cvw;
  prm[IMP_ROCK_PREF] = f.rock.pref;
  prm[IMP_ROCK_CR] = f.rock.cr;
  const auto& s = f.swof;
  prm[IMP_SWOF_N] = static_cast<double>(s.sw.size());
  prm[IMP_SWOF_AT] = static_cast<double>(prm.size());
  for (const auto* col : {&s.sw, &s.krw, &s.krow, &s.pcow}) prm.insert(prm.end(), col->begin(), col->end());
  const auto& o = f.pvdo;
  prm[IMP_PVDO_N] = static_cast<double>(o.p.size());
  prm[IMP_PVDO_AT] = static_cast<double>(prm.size());
  prm.insert(prm.end(), o.p.begin(), o.p.end());
  for (double b : o.bo) prm.push_back(1.0 / b);
  for (std::size_t r = 0; r < o.p.size(); ++r) prm.push_back(1.0 / (o.bo[r] * o.muo[r]));
  return prm;
}

ImpesWellArrays build_wells(const ImpesInput& in, const ImpesGeometry& geo) {
  const auto& g = in.grid;
  ImpesWellArrays wa;
  wa.ccell.assign(geo.box.extent(), -1);
  const pf_box3 b = geo.box.view();
  for (const auto& w : in.wells) {
    wa.first.push_back(static_cast<long>(wa.cwi.size()));
    wa.count.push_back(static_cast<long>(w.completions.size()));
    double top = INFINITY;
    for (const auto& x : w.completions) {
      const std::size_t c = g.index(x.i, x.j, x.k);
      const long L = geo.at(x.i, x.j, x.k);
      wa.ccell[L] = static_cast<int>(wa.cwi.size());
      wa.cidx.push_back(L);
      wa.cidx.push_back(phys::pf_rb_of(b, x.i, x.j, x.k));
      const double wi = x.wi > 0 ? x.wi
                                 : peaceman_wi(g.permx[c], g.permy[c], g.dx[c], g.dy[c], g.dz[c] * value_or(g.ntg, c, 1.0),
                                               0.5 * x.diameter, x.skin);
      wa.cwi.push_back(wi);
      wa.cdepth.push_back(geo.depth[L]);
      top = std::min(top, geo.depth[L]);
    }
    wa.ref_depth.push_back(std::isfinite(w.ref_depth) ? w.ref_depth : top);
  }
  return wa;
}

std::vector<double> well_params(const ImpesWell& w, const WellSetting& s, const ImpesWellArrays& wa, std::size_t index) {
  std::vector<double> p(IMP_NWP, 0.0);
  p[IMP_W_INJ] = w.kind == WellKind::Injector ? 1 : 0;
  p[IMP_W_OPEN] = s.open ? 1 : 0;
  p[IMP_W_RATE] = s.rate;
  // which rate: the controlled one; under BHP control a producer's rate limit is on the liquid
  double ao = 1, aw = 1;
  if (s.control == WellControl::Orat) aw = 0;
  if (s.control == WellControl::Wrat) ao = 0;
  p[IMP_W_AO] = ao;
  p[IMP_W_AW] = aw;
  p[IMP_W_BHP] = s.bhp;
  p[IMP_W_DREF] = wa.ref_depth[index];
  p[IMP_W_FIRST] = static_cast<double>(wa.first[index]);
  p[IMP_W_COUNT] = static_cast<double>(wa.count[index]);
  return p;
}

namespace {

// p_cow(S_w) inverted on the table (p_cow non-increasing): S_w clamped to the table's ends; `top`
// says whether it was clamped at the high end (the water zone)
double invert_pc(const SwofTable& s, double pc, bool* top) {
  const std::size_t n = s.sw.size();
  *top = false;
  if (pc >= s.pcow.front()) return s.sw.front();
  if (pc <= s.pcow.back()) {
    *top = true;
    return s.sw.back();
  }
  for (std::size_t r = 0; r + 1 < n; ++r)
    if (pc <= s.pcow[r] && pc >= s.pcow[r + 1] && s.pcow[r] > s.pcow[r + 1])
      return s.sw[r] + (s.sw[r + 1] - s.sw[r]) * (s.pcow[r] - pc) / (s.pcow[r] - s.pcow[r + 1]);
  return s.sw.front();
}

struct Profile {
  double d0 = 0, h = 1;
  std::vector<double> po, pw;
  double at(const std::vector<double>& v, double d) const {
    const double x = std::clamp((d - d0) / h, 0.0, double(v.size() - 1));
    const std::size_t r = std::min(static_cast<std::size_t>(x), v.size() - 2);
    return v[r] + (x - r) * (v[r + 1] - v[r]);
  }
};

}  // namespace

ImpesState initial_state(const ImpesInput& in, const ImpesGeometry& geo, const std::vector<double>& prm) {
  const auto& g = in.grid;
  const auto& ini = in.initial;
  const auto& swof = in.fluid.swof;
  const std::size_t E = geo.box.extent();
  ImpesState st;
  for (auto* v : {&st.p, &st.sw, &st.mw, &st.mo}) v->assign(E, 0.0);
  auto gamma_o = [&](double p) { return prm[IMP_GRAV] * prm[IMP_RHO_O] / phys::imp_pvt_at<double>(prm.data(), p).bo; };
  auto gamma_w = [&](double p) { return prm[IMP_GRAV] * prm[IMP_RHO_W] / phys::imp_pvt_at<double>(prm.data(), p).bw; };
  const bool contact = std::isfinite(ini.owc_depth);
  const double sw_fixed = std::isfinite(ini.sw_uniform) ? ini.sw_uniform : swof.sw.front();
  // the state of a cell from its phase pressures: S_w by capillary equilibrium (with a contact),
  // and the pressure the kernels see (the oil pressure; in the water zone the water pressure plus
  // p_cow, so that water, the mobile phase there, is in equilibrium)
  auto assign = [&](double po, double pw, double* sw) {
    if (!contact) {
      *sw = sw_fixed;
      return po;
    }
    bool top = false;
    *sw = invert_pc(swof, po - pw, &top);
    if (!top) return po;
    double unused;
    const double pc = phys::imp_table<double>(prm.data(), long(prm[IMP_SWOF_AT]), long(prm[IMP_SWOF_AT]) + 3 * long(prm[IMP_SWOF_N]),
                                              long(prm[IMP_SWOF_N]), *sw, 1, &unused);
    return pw + pc;
  };

  const bool explicit_state = !ini.pressure.empty();
  if (!explicit_state && !ini.hydrostatic) {
    for (std::size_t L = 0; L < E; ++L)
      if (geo.pv0[L] > 0) {
        st.p[L] = ini.datum_pressure;
        st.sw[L] = sw_fixed;
      }
  } else if (!explicit_state) {
    // the continuous profiles from the datum (RK2 in depth), over every depth the cells span
    double lo = ini.datum_depth, hi = ini.datum_depth;
    for (std::size_t L = 0; L < E; ++L)
      if (geo.pv0[L] > 0) {
        lo = std::min(lo, geo.depth[L]);
        hi = std::max(hi, geo.depth[L]);
      }
    const bool sublevels = contact && ini.sublevels > 0;
    if (sublevels)  // the cells' tops and bottoms too
      for (long k = 0; k < g.nz; ++k)
        for (long j = 0; j < g.ny; ++j)
          for (long i = 0; i < g.nx; ++i) {
            if (!(geo.pv0[geo.at(i, j, k)] > 0)) continue;
            const std::size_t c = g.index(i, j, k);
            lo = std::min(lo, g.tops[c]);
            hi = std::max(hi, g.tops[c] + g.dz[c]);
          }
    if (contact) {
      lo = std::min(lo, ini.owc_depth);
      hi = std::max(hi, ini.owc_depth);
    }
    Profile pr;
    const std::size_t steps = std::clamp<std::size_t>(static_cast<std::size_t>((hi - lo) / 0.25) + 2, 2, 200000);
    pr.d0 = lo - 1;
    pr.h = (hi - lo + 2) / double(steps);
    auto integrate = [&](std::vector<double>& v, double d_start, double p_start, auto gamma) {
      v.assign(steps + 1, 0.0);
      const double x0 = (d_start - pr.d0) / pr.h;
      std::size_t r0 = std::min(static_cast<std::size_t>(std::max(0.0, std::round(x0))), steps);
      // from d_start to node r0, then both ways
      const double dd = pr.d0 + r0 * pr.h - d_start;
      v[r0] = p_start + dd * gamma(p_start + 0.5 * dd * gamma(p_start));
      for (std::size_t r = r0; r < steps; ++r) v[r + 1] = v[r] + pr.h * gamma(v[r] + 0.5 * pr.h * gamma(v[r]));
      for (std::size_t r = r0; r > 0; --r) v[r - 1] = v[r] - pr.h * gamma(v[r] - 0.5 * pr.h * gamma(v[r]));
    };
    const bool datum_in_water = contact && ini.datum_depth > ini.owc_depth;
    if (!contact) {
      integrate(pr.po, ini.datum_depth, ini.datum_pressure, gamma_o);
      pr.pw = pr.po;
    } else if (!datum_in_water) {
      integrate(pr.po, ini.datum_depth, ini.datum_pressure, gamma_o);
      integrate(pr.pw, ini.owc_depth, pr.at(pr.po, ini.owc_depth) - ini.pc_owc, gamma_w);
    } else {
      integrate(pr.pw, ini.datum_depth, ini.datum_pressure, gamma_w);
      integrate(pr.po, ini.owc_depth, pr.at(pr.pw, ini.owc_depth) + ini.pc_owc, gamma_o);
    }
    // each column from its top active cell down, in discrete equilibrium with the kernels' face
    // densities (the mean of the two cells' gamma) for both phases
    for (long j = 0; j < g.ny; ++j)
      for (long i = 0; i < g.nx; ++i) {
        bool chain = false;
        double po = 0, pw = 0, p_prev = 0, d_prev = 0;
        for (long k = 0; k < g.nz; ++k) {
          const long L = geo.at(i, j, k);
          if (!(geo.pv0[L] > 0)) {
            chain = false;
            continue;
          }
          const double d = geo.depth[L];
          double sw = 0, p = 0;
          const bool connected = chain && geo.tz[geo.at(i, j, k - 1)] > 0;
          if (!connected) {
            po = pr.at(pr.po, d);
            pw = pr.at(pr.pw, d);
            p = assign(po, pw, &sw);
          } else {
            const double po_a = po, pw_a = pw, dd = d - d_prev;
            const double go_a = gamma_o(p_prev), gw_a = gamma_w(p_prev);
            p = p_prev + go_a * dd;
            for (int it = 0; it < 30; ++it) {
              po = po_a + 0.5 * (go_a + gamma_o(p)) * dd;
              pw = pw_a + 0.5 * (gw_a + gamma_w(p)) * dd;
              const double next = assign(po, pw, &sw);
              const bool done = std::fabs(next - p) <= 1e-13 * std::fabs(p);
              p = next;
              if (done) break;
            }
          }
          if (sublevels) {
            // EQUIL item 9 = -N (OPM Flow's default -5): S_w as the mean over 2N equal slices of
            // the cell's thickness, at the phase pressures of the slices' centres (the profiles'
            // differences from the cell's centre added to its own)
            const std::size_t c = g.index(i, j, k);
            const int n = 2 * ini.sublevels;
            const double h = g.dz[c] / n, po_c = pr.at(pr.po, d), pw_c = pr.at(pr.pw, d);
            double sum = 0;
            for (int s = 0; s < n; ++s) {
              const double ds = g.tops[c] + (s + 0.5) * h;
              bool unused = false;
              sum += invert_pc(swof, (po + pr.at(pr.po, ds) - po_c) - (pw + pr.at(pr.pw, ds) - pw_c), &unused);
            }
            if (n > 0 && h > 0) sw = sum / n;
          }
          st.p[L] = p;
          st.sw[L] = sw;
          chain = true;
          p_prev = p;
          d_prev = d;
        }
      }
  } else {
    for (long k = 0; k < g.nz; ++k)
      for (long j = 0; j < g.ny; ++j)
        for (long i = 0; i < g.nx; ++i) {
          const long L = geo.at(i, j, k);
          if (!(geo.pv0[L] > 0)) continue;
          st.p[L] = ini.pressure[g.index(i, j, k)];
          st.sw[L] = ini.sw[g.index(i, j, k)];
        }
  }
  // masses: the pore volume at the cell's pressure filled in the proportions of S_w
  for (std::size_t L = 0; L < E; ++L) {
    if (!(geo.pv0[L] > 0)) continue;
    const auto v = phys::imp_pvt_at<double>(prm.data(), st.p[L]);
    double dfdp;
    const double pv = geo.pv0[L] * phys::imp_pore_factor<double>(prm.data(), st.p[L], &dfdp);
    st.mw[L] = pv * st.sw[L] / v.bw;
    st.mo[L] = pv * (1 - st.sw[L]) / v.bo;
  }
  return st;
}

}  // namespace poreflow
