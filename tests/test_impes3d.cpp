// The impes3d family: every kernel of the IMPES step on every backend against the serial double
// reference, on grids that are no multiple of any block, with inactive cells, gravity, capillary
// pressure, rate- and BHP-controlled wells and a shut one; outputs poisoned with NaN first.
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "core/kernels/impes3d.hpp"
#include "core/kernels/sor3d.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {


// parameters and tables: SWOF of 11 rows, PVDO of 5, PVTW and ROCK of paper 003's case 2
std::vector<double> make_prm() {
  std::vector<double> prm(IMP_NPARAMS, 0.0);
  prm[IMP_RHO_W] = 1000.1;
  prm[IMP_RHO_O] = 889.5;
  prm[IMP_GRAV] = 9.80665e-5;
  prm[IMP_PVTW_PREF] = 20;
  prm[IMP_PVTW_BW] = 1.02;
  prm[IMP_PVTW_CW] = 3.25e-6;
  prm[IMP_PVTW_MUW] = 1.029 / 1.02;
  prm[IMP_PVTW_CVW] = 0.86e-6;
  prm[IMP_ROCK_PREF] = 39;
  prm[IMP_ROCK_CR] = 5e-5;
  const int ns = 11, np = 5;
  prm[IMP_SWOF_N] = ns;
  prm[IMP_SWOF_AT] = static_cast<double>(prm.size());
  std::vector<double> sw(ns), krw(ns), kro(ns), pc(ns);
  for (int r = 0; r < ns; ++r) {
    sw[r] = 0.2 + 0.6 * r / (ns - 1);
    const double se = (sw[r] - 0.2) / 0.6;
    krw[r] = 0.6 * se * se;
    kro[r] = (1 - se) * (1 - se);
    pc[r] = 0.4 * (1 - se);
  }
  for (auto* col : {&sw, &krw, &kro, &pc}) prm.insert(prm.end(), col->begin(), col->end());
  prm[IMP_PVDO_N] = np;
  prm[IMP_PVDO_AT] = static_cast<double>(prm.size());
  const double pp[np] = {50, 100, 150, 200, 300}, bo[np] = {1.12, 1.11, 1.10, 1.095, 1.085}, mu[np] = {2.0, 2.1, 2.2, 2.3, 2.5};
  for (int r = 0; r < np; ++r) prm.push_back(pp[r]);
  for (int r = 0; r < np; ++r) prm.push_back(1 / bo[r]);
  for (int r = 0; r < np; ++r) prm.push_back(1 / (bo[r] * mu[r]));
  return prm;
}

// whether S_w lies within d of one of make_prm's SWOF knots (0.2 + 0.06 r)
bool near_knot(double sw, double d) {
  const double r = std::round((sw - 0.2) / 0.06);
  return std::abs(sw - (0.2 + 0.06 * r)) <= d;
}

// A random reservoir on a box with a halo of 1, in double; zeros in the halo.
struct Scene {
  Box3 box;
  std::size_t E = 0;
  std::vector<double> tx, ty, tz, depth, pv0, p, mw, mo, p_new;
  std::vector<double> prm = make_prm();
  long wells = 3, completions = 0;
  std::vector<double> wp, cwi, cdepth;
  std::vector<long> cidx;
  std::vector<int> ccell;  // the completion in each cell, or -1
};

Scene make_scene(long nx, long ny, long nz) {
  Scene s;
  s.box = Box3::standalone(nx, ny, nz, 1);
  s.E = s.box.extent();
  for (auto* v : {&s.tx, &s.ty, &s.tz, &s.depth, &s.pv0, &s.p, &s.mw, &s.mo, &s.p_new}) v->assign(s.E, 0.0);
  auto u = random_vector<double>(s.E * 8, 0, 1);
  std::size_t r = 0;
  auto active = [&](long i, long j, long k) {
    return i >= 0 && j >= 0 && k >= 0 && i < nx && j < ny && k < nz && s.pv0[s.box.at(i, j, k)] > 0;
  };
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long L = s.box.at(i, j, k);
        const bool on = u[r++] > 0.1 || (i < 2 && j < 2) || (i >= nx - 2 && j >= ny - 2);  // the wells' cells stay active
        s.pv0[L] = on ? 50 + 100 * u[r++] : 0.0;
        s.depth[L] = 2000 + 4 * k + 0.5 * u[r++];
        // gradients in every direction keep the phase potentials of neighbours apart, so float and
        // double upwind alike
        s.p[L] = 150 + 1.0 * i + 0.7 * j + 2.0 * k + 0.05 * u[r++];
        const double sw = 0.2 + 0.6 * u[r++];
        s.mw[L] = on ? s.pv0[L] * sw / 1.02 : 0.0;
        s.mo[L] = on ? s.pv0[L] * (1 - sw) / 1.1 : 0.0;
        s.p_new[L] = s.p[L] + 0.1 * (u[r++] - 0.5);
      }
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long L = s.box.at(i, j, k);
        if (!active(i, j, k)) continue;
        if (active(i + 1, j, k)) s.tx[L] = 5 + 20 * u[r++];
        if (active(i, j + 1, k)) s.ty[L] = 5 + 20 * u[r++];
        if (active(i, j, k + 1)) s.tz[L] = 0.5 + 2 * u[r++];
      }
  // wells: a rate-controlled producer (LRAT) on two completions, a BHP-limited injector, a shut one
  auto complete = [&](long i, long j, long k, double wi) {
    s.cidx.push_back(s.box.at(i, j, k));
    s.cidx.push_back(phys::pf_rb_of(s.box.view(), i, j, k));
    s.cwi.push_back(wi);
    s.cdepth.push_back(s.depth[s.box.at(i, j, k)]);
  };
  auto well = [&](double inj, double open, double rate, double ao, double aw, double bhp, double dref, long first, long count) {
    s.wp.insert(s.wp.end(), {inj, open, rate, ao, aw, bhp, dref, double(first), double(count)});
  };
  complete(nx - 1, ny - 1, 0, 30);
  complete(nx - 1, ny - 1, nz - 1, 25);
  well(0, 1, 40, 1, 1, 120, 2000, 0, 2);
  complete(0, 0, nz - 1, 40);
  well(1, 1, 500, 0, 1, 190, 2000, 2, 1);
  complete(1, 0, 0, 10);
  well(0, 0, 10, 1, 0, 100, 2000, 3, 1);
  s.completions = static_cast<long>(s.cwi.size());
  s.ccell.assign(s.E, -1);
  for (long c = 0; c < s.completions; ++c) s.ccell[s.cidx[2 * c]] = static_cast<int>(c);
  return s;
}

template <class T>
struct OnDevice {
  Field<T> tx, ty, tz, depth, pv0, p, mw, mo, p_new, dp, y, prm, props, coef, wp, cwi, cdepth, comp, mw2, mo2, sw;
  std::unique_ptr<Buffer> cidx, ccell, words;
  Impes3DGrid grid;
  Impes3DTables tables;
};

template <class T>
OnDevice<T> upload(Backend& be, const Scene& s, TableSpace space) {
  OnDevice<T> d;
  auto f = [&](const std::vector<double>& v) { return make_field(be, convert<T>(v)); };
  auto poison = [&](std::size_t n) { return make_field(be, std::vector<T>(n, T(kNaN))); };
  d.tx = f(s.tx);
  d.ty = f(s.ty);
  d.tz = f(s.tz);
  d.depth = f(s.depth);
  d.pv0 = f(s.pv0);
  d.p = f(s.p);
  d.mw = f(s.mw);
  d.mo = f(s.mo);
  d.p_new = f(s.p_new);
  std::vector<double> dp(s.E), y(s.E);
  for (std::size_t L = 0; L < s.E; ++L) {
    dp[L] = s.p_new[L] - s.p[L];
    y[L] = std::sin(double(L));  // wells_apply adds to it
  }
  d.dp = f(dp);
  d.y = f(y);
  d.prm = f(s.prm);
  d.props = poison(IMP_NPROPS * s.E);
  d.coef = poison(sor3d_coef_values(s.box));
  d.wp = f(s.wp);
  d.cwi = f(s.cwi);
  d.cdepth = f(s.cdepth);
  d.comp = poison(IMP_NCP * s.completions);
  d.mw2 = poison(s.E);
  d.mo2 = poison(s.E);
  d.sw = poison(s.E);
  d.cidx = be.alloc(s.cidx.size() * sizeof(long));
  be.upload(*d.cidx, s.cidx.data(), s.cidx.size() * sizeof(long));
  d.ccell = be.alloc(s.ccell.size() * sizeof(int));
  be.upload(*d.ccell, s.ccell.data(), s.ccell.size() * sizeof(int));
  d.words = be.alloc(impes3d_words(s.wells) * 8);
  be.fill(*d.words, Precision::Double, 0.0, impes3d_words(s.wells));
  d.grid = {s.box, &d.tx.buffer(), &d.ty.buffer(), &d.tz.buffer(), &d.depth.buffer(), &d.pv0.buffer()};
  d.tables = {&d.prm.buffer(), s.prm.size(), space};
  return d;
}

// One IMPES step's kernels with p_new standing in for the solve. Returns every output.
struct Outputs {
  std::vector<double> props, coef, comp, coef_coupled, comp_coupled, y, comp_after, mw, mo, mw2, mo2, sw;
  std::vector<double> stats, well_out;
};

template <class T>
Outputs run_step(Backend& be, const Scene& s, TableSpace space, const char* shape) {
  auto d = upload<T>(be, s, space);
  const Precision prec = precision_of<T>();
  const BoxShape sh = parse_box_shape(shape);
  const double dt = 0.05;
  auto k = be.impes3d();
  k.props({prec, d.grid, d.tables, &d.p.buffer(), &d.mw.buffer(), &d.mo.buffer(), &d.props.buffer(), sh});
  k.assemble({prec, d.grid, dt, &d.p.buffer(), &d.props.buffer(), &d.coef.buffer(), sh});
  Impes3DWellArgs w;
  w.prec = prec;
  w.grid = d.grid;
  w.tables = d.tables;
  w.wells = s.wells;
  w.completions = s.completions;
  w.wp = &d.wp.buffer();
  w.cidx = d.cidx.get();
  w.cwi = &d.cwi.buffer();
  w.cdepth = &d.cdepth.buffer();
  w.comp = &d.comp.buffer();
  w.props = &d.props.buffer();
  w.p = &d.p.buffer();
  w.dt = dt;
  w.coef = &d.coef.buffer();
  w.words = d.words.get();
  k.wells_prepare(w);
  Outputs o;
  o.coef = convert<double>(d.coef.download());
  o.comp = convert<double>(d.comp.download());
  for (long c = 0; c < s.completions; ++c)  // the rates are written by finish
    o.comp[c * IMP_NCP + IMP_C_RW] = o.comp[c * IMP_NCP + IMP_C_RO] = 0;
  // the rate well's BHP at the iterate p + dp (p_new), and its coupling applied to dp
  w.dp = &d.dp.buffer();
  k.wells_couple(w);
  o.coef_coupled = convert<double>(d.coef.download());
  o.comp_coupled = convert<double>(d.comp.download());
  for (long c = 0; c < s.completions; ++c)
    o.comp_coupled[c * IMP_NCP + IMP_C_RW] = o.comp_coupled[c * IMP_NCP + IMP_C_RO] = 0;
  w.x = &d.dp.buffer();
  w.y = &d.y.buffer();
  w.sign = 1;
  k.wells_apply(w);
  o.y = convert<double>(d.y.download());
  w.p = &d.p_new.buffer();
  k.wells_finish(w);
  o.comp_after = convert<double>(d.comp.download());
  Impes3DUpdateArgs u;
  u.prec = prec;
  u.grid = d.grid;
  u.tables = d.tables;
  u.dt = dt;
  u.p_old = &d.p.buffer();
  u.p_new = &d.p_new.buffer();
  u.props = &d.props.buffer();
  u.mw_in = &d.mw.buffer();
  u.mo_in = &d.mo.buffer();
  u.ccell = d.ccell.get();
  u.comp = &d.comp.buffer();
  u.completions = s.completions;
  u.mw_out = &d.mw2.buffer();
  u.mo_out = &d.mo2.buffer();
  u.sw = &d.sw.buffer();
  u.words = d.words.get();
  u.shape = sh;
  k.update(u);
  o.props = convert<double>(d.props.download());
  o.mw = convert<double>(d.mw.download());
  o.mo = convert<double>(d.mo.download());
  o.mw2 = convert<double>(d.mw2.download());
  o.mo2 = convert<double>(d.mo2.download());
  o.sw = convert<double>(d.sw.download());
  std::vector<unsigned long long> words(impes3d_words(s.wells));
  be.download(*d.words, words.data(), words.size() * 8);
  auto value = [&](unsigned long long x) {
    return prec == Precision::Float ? double(phys::pf_from_word<float>(x)) : phys::pf_from_word<double>(x);
  };
  for (int i = 0; i < IMP_NSTAT; ++i) o.stats.push_back(value(words[i]));
  for (std::size_t i = IMP_NSTAT; i < words.size(); ++i) o.well_out.push_back(value(words[i]));
  return o;
}

// the cells' values of a box array (the halo is not the kernels')
std::vector<double> cells(const Scene& s, const std::vector<double>& v, int arrays = 1) {
  std::vector<double> out;
  for (int a = 0; a < arrays; ++a)
    for (long k = 0; k < s.box.nz; ++k)
      for (long j = 0; j < s.box.ny; ++j)
        for (long i = 0; i < s.box.nx; ++i) out.push_back(v[a * s.E + s.box.at(i, j, k)]);
  return out;
}

// the used slots of the colour-packed coefficients
std::vector<double> rows(const Scene& s, const std::vector<double>& coef) {
  std::vector<double> out;
  const pf_box3 b = s.box.view();
  const long m2 = 2 * phys::pf_rb_m(b);
  for (int q = 0; q < PF_SOR_NCOEF; ++q)
    for (long k = 0; k < b.nz; ++k)
      for (long j = 0; j < b.ny; ++j)
        for (long i = 0; i < b.nx; ++i) out.push_back(coef[q * m2 + phys::pf_rb_of(b, i, j, k)]);
  return out;
}

}  // namespace

TEST_CASE("impes3d: table interpolation, PVT and the pore volume") {
  const auto prm = make_prm();
  double slope = 0;
  const long n = long(prm[IMP_SWOF_N]), at = long(prm[IMP_SWOF_AT]);
  // inside: linear between the rows; outside: clamped
  CHECK(phys::imp_table<double>(prm.data(), at, at + n, n, 0.5, 1, &slope) == doctest::Approx(0.6 * 0.25));
  // between the rows 0.50 (k_rw 0.15) and 0.56 (0.216)
  CHECK(phys::imp_table<double>(prm.data(), at, at + n, n, 0.53, 1, &slope) == doctest::Approx(0.183));
  CHECK(slope == doctest::Approx(1.1));
  CHECK(phys::imp_table<double>(prm.data(), at, at + n, n, 0.1, 1, &slope) == 0.0);
  CHECK(slope == 0.0);
  CHECK(phys::imp_table<double>(prm.data(), at, at + n, n, 0.95, 1, &slope) == doctest::Approx(0.6));
  // PVDO extrapolates the end segments' lines
  const auto v = phys::imp_pvt_at<double>(prm.data(), 400.0);
  const double ib = 1 / 1.085 + (1 / 1.085 - 1 / 1.095) / 100 * 100;
  CHECK(v.bo == doctest::Approx(1 / ib));
  // paper 003 eq. 3-5
  const auto w = phys::imp_pvt_at<double>(prm.data(), 120.0);
  const double x = 100;
  CHECK(w.bw == doctest::Approx(1.02 / (1 + 3.25e-6 * x + 5.28e-12 * x * x)).epsilon(1e-10));
  CHECK(w.bw * w.muw == doctest::Approx(1.029 / (1 + 2.39e-6 * x + 2.85e-12 * x * x)).epsilon(1e-9));
  double df = 0;
  CHECK(phys::imp_pore_factor<double>(prm.data(), 139.0, &df) == doctest::Approx(1 + 5e-5 * 100 + 1.25e-9 * 1e4).epsilon(1e-12));
  // derivatives against central differences
  const double h = 1e-3;
  const auto a = phys::imp_pvt_at<double>(prm.data(), 175.0 - h), b = phys::imp_pvt_at<double>(prm.data(), 175.0 + h);
  const auto c = phys::imp_pvt_at<double>(prm.data(), 175.0);
  CHECK(c.dbw == doctest::Approx((b.bw - a.bw) / (2 * h)).epsilon(1e-6));
  CHECK(c.dbo == doctest::Approx((b.bo - a.bo) / (2 * h)).epsilon(1e-6));
}

TEST_SUITE("backend") {

// RES's difference from the reference in units of the last place (2^-24 in float, 2^-53 in double)
// of its terms' sum |m_w B_w| + |m_o B_o| + |V_p f|: measured at most 2.9 in float (serial, omp,
// PoCL) and 1.5 in double (PoCL). The old bound, 200 tol<T> of max(200, |RES|), allowed 0.8 m3 in
// float, the size of RES itself.
constexpr double kResUlps = 16;

TEST_CASE_TEMPLATE("impes3d: the step's kernels match the double reference", T, float, double) {
  for (auto [nx, ny, nz] : {std::array<long, 3>{17, 9, 5}, {33, 31, 7}, {41, 37, 9}}) {
    const Scene s = make_scene(nx, ny, nz);
    const Outputs ref = run_step<double>(reference(), s, TableSpace::Global, "3d:32x4x2");
    // the reference itself: wells' terms and rates, and mass conservation of the fluxes
    REQUIRE(ref.well_out.size() == 3 * IMP_NWO);
    // the LRAT producer produces 40 sm3/day of liquid at p_new while it runs at its rate: its BHP
    // is the one of p_new (wells_couple), not of p (its completions' random pressures may make one
    // of them take fluid in: crossflow)
    REQUIRE(ref.well_out[IMP_O_CTRL] == IMP_CTRL_RATE);  // the scene's producer is on rate control
    CHECK(ref.well_out[IMP_O_QW] + ref.well_out[IMP_O_QO] == doctest::Approx(-40).epsilon(1e-12));
    // the Krylov form of the coupling is the SOR form's linearisation: the coupled right-hand side
    // moved by wells_apply(dp) / V_p in the rate well's rows, nowhere else
    {
      const auto rc = rows(s, ref.coef_coupled), rp = rows(s, ref.coef);
      const std::size_t nc = rc.size() / PF_SOR_NCOEF;
      std::vector<double> y_in(s.E);  // what upload() gave wells_apply's y
      for (std::size_t L = 0; L < s.E; ++L) y_in[L] = std::sin(double(L));
      const auto y0 = cells(s, y_in);
      const auto y1 = cells(s, ref.y), pv = cells(s, s.pv0);
      double moved = 0;
      for (std::size_t n = 0; n < nc; ++n) {
        const double dr = rc[PF_SOR_R * nc + n] - rp[PF_SOR_R * nc + n], dy = y1[n] - y0[n];
        CHECK(dr * pv[n] == doctest::Approx(dy).epsilon(1e-9).scale(1));
        moved += std::fabs(dy);
      }
      CHECK(moved > 0);  // the producer's BHP moved with dp
    }
    CHECK(ref.well_out[IMP_NWO + IMP_O_QW] > 0);  // the injector injects water only
    CHECK(ref.well_out[IMP_NWO + IMP_O_QO] == 0.0);
    CHECK(ref.well_out[2 * IMP_NWO + IMP_O_CTRL] == IMP_CTRL_SHUT);
    for (double x : cells(s, ref.sw)) REQUIRE(x >= 0);  // a step the scene can take
    for (double x : cells(s, ref.sw)) REQUIRE(x <= 1);
    for (auto v : {&ref.props, &ref.mw2, &ref.mo2, &ref.sw})
      for (double x : cells(s, *v, v == &ref.props ? IMP_NPROPS : 1)) REQUIRE(std::isfinite(x));
    for (double x : rows(s, ref.coef)) REQUIRE(std::isfinite(x));
    double dw = 0, dwo = 0;
    const auto m0w = cells(s, s.mw), m1w = cells(s, ref.mw2), m0o = cells(s, s.mo), m1o = cells(s, ref.mo2);
    for (std::size_t c = 0; c < m0w.size(); ++c) {
      dw += m1w[c] - m0w[c];
      dwo += m1o[c] - m0o[c];
    }
    const double qw = ref.well_out[IMP_O_QW] + ref.well_out[IMP_NWO + IMP_O_QW];
    const double qo = ref.well_out[IMP_O_QO] + ref.well_out[IMP_NWO + IMP_O_QO];
    CHECK(dw == doctest::Approx(0.05 * qw).epsilon(1e-9));  // the faces move water, the wells add it
    CHECK(dwo == doctest::Approx(0.05 * qo).epsilon(1e-9));
    for_each_backend([&](Backend& be) {
      for (TableSpace space : {TableSpace::Global, TableSpace::Constant})
        for (const char* shape : {"3d:32x4x2", "march:32x8", "3d:8x8x8"}) {
          CAPTURE(s.box.describe());
          INFO("tables ", std::string(to_string(space)), " shape ", std::string(shape));
          const Outputs got = run_step<T>(be, s, space, shape);
          const double tl = 200 * tol<T>();
          for (int q = 0; q < IMP_NPROPS; ++q) {
            CAPTURE(q);
            std::vector<double> a(got.props.begin() + q * s.E, got.props.begin() + (q + 1) * s.E);
            std::vector<double> b(ref.props.begin() + q * s.E, ref.props.begin() + (q + 1) * s.E);
            // dfw/dSw jumps at the SWOF knots: where float's S_w may fall on the other side of
            // one, both sides are right, so those cells are left out
            if (q == IMP_P_FWD)
              for (std::size_t L = 0; L < s.E; ++L)
                if (near_knot(ref.props[IMP_P_SW * s.E + L], 10 * tol<T>())) a[L] = b[L];
            if (q == IMP_P_RES) {
              // RES = m_w B_w + m_o B_o - V_p f is a small difference of large volumes: each cell's
              // error is rounding of its terms, so it is held to units of the last place of the
              // terms' sum (the reference's), cell by cell (RES itself may be near 0)
              const auto ga = cells(s, a), rb = cells(s, b), w = cells(s, s.mw), o = cells(s, s.mo);
              const auto bw = cells(s, std::vector<double>(ref.props.begin() + IMP_P_BW * s.E, ref.props.begin() + (IMP_P_BW + 1) * s.E));
              const auto bo = cells(s, std::vector<double>(ref.props.begin() + IMP_P_BO * s.E, ref.props.begin() + (IMP_P_BO + 1) * s.E));
              double worst = 0;
              for (std::size_t c = 0; c < rb.size(); ++c) {
                const double vw = w[c] * bw[c], vo = o[c] * bo[c], vp = vw + vo - rb[c];  // V_p f
                const double terms = std::fabs(vw) + std::fabs(vo) + std::fabs(vp);
                if (terms > 0) worst = std::max(worst, std::fabs(ga[c] - rb[c]) / terms);
                else worst = std::max(worst, std::fabs(ga[c] - rb[c]) > 0 ? INFINITY : 0.0);
              }
              const double ulp = sizeof(T) == 4 ? 0x1p-24 : 0x1p-53;
              CHECK(worst <= kResUlps * ulp);
              continue;
            }
            CHECK(max_rel_diff(cells(s, a), cells(s, b)) <= tl);
          }
          const auto rg = rows(s, got.coef), rr = rows(s, ref.coef);
          const std::size_t nc = rr.size() / PF_SOR_NCOEF;
          for (int q = 0; q < PF_SOR_NCOEF; ++q) {
            CAPTURE(q);
            std::vector<double> a(rg.begin() + q * nc, rg.begin() + (q + 1) * nc), b(rr.begin() + q * nc, rr.begin() + (q + 1) * nc);
            CHECK(max_rel_diff(a, b) <= tl);
          }
          CHECK(max_rel_diff(got.comp, ref.comp) <= tl);
          CHECK(max_rel_diff(rows(s, got.coef_coupled), rows(s, ref.coef_coupled)) <= tl);
          CHECK(max_rel_diff(got.comp_coupled, ref.comp_coupled) <= tl);
          CHECK(max_rel_diff(cells(s, got.y), cells(s, ref.y)) <= tl);
          CHECK(max_rel_diff(got.comp_after, ref.comp_after) <= tl);
          CHECK(cells(s, got.mw) == cells(s, convert<double>(convert<T>(s.mw))));  // inputs untouched
          CHECK(cells(s, got.mo) == cells(s, convert<double>(convert<T>(s.mo))));
          CHECK(max_rel_diff(cells(s, got.mw2), cells(s, ref.mw2)) <= tl);
          CHECK(max_rel_diff(cells(s, got.mo2), cells(s, ref.mo2)) <= tl);
          CHECK(max_rel_diff(cells(s, got.sw), cells(s, ref.sw)) <= tl);
          CHECK(max_rel_diff(got.well_out, ref.well_out) <= tl);
          for (int i = 0; i < IMP_NSTAT; ++i) {
            CAPTURE(i);
            CHECK(got.stats[i] == doctest::Approx(ref.stats[i]).epsilon(1e3 * tol<T>()).scale(1e-6));
          }
        }
    });
  }
}

TEST_CASE_TEMPLATE("impes3d: a NaN pressure shows in the step's statistics", T, float, double) {
  Scene s = make_scene(17, 9, 5);
  s.p_new[s.box.at(8, 4, 2)] = kNaN;
  s.pv0[s.box.at(8, 4, 2)] = 80;  // active
  for_each_backend([&](Backend& be) {
    const Outputs got = run_step<T>(be, s, TableSpace::Global, "3d:32x4x2");
    CHECK(std::isnan(got.stats[IMP_S_DSW]));
  });
}

}  // TEST_SUITE
