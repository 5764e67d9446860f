#pragma once
// A random fim problem for the kernel tests (tests/test_fim_assemble.cpp, tests/test_fim_wells.cpp):
// an odd box with inactive cells, random transmissibilities, states inside the tables' segments,
// start-of-step masses of a nearby state, and optionally four wells on columns of their own: an
// LRAT producer and a rate injector (rate control), a BHP producer and a shut well. The BHPs are
// set so that every completion flows its own way (no crossflow closes one).
#include <algorithm>
#include <random>
#include <vector>

#include "core/kernels/fim.hpp"
#include "core/models/impes3d_setup.hpp"
#include "core/physics/fim.h"
#include "tests/fim_fluid.hpp"
#include "tests/harness.hpp"

namespace poreflow::test {

struct FimProblem {
  Box3 box;
  std::vector<double> tx, ty, tz, depth, pv0, x, mw_n, mo_n, prm;
  // wells: IMP_NWP parameters and FIM_NWS state a well; per completion its cell (box index and a
  // 0 where impes3d keeps the colour-packed index), well index, depth and well
  std::vector<double> wp, ws, cwi, cdepth;
  std::vector<long> cidx;
  std::vector<int> cwell, ccell;
  long wells = 0, completions = 0;
};

inline FimProblem fim_problem(long nx, long ny, long nz, unsigned seed, bool with_wells) {
  FimProblem P;
  P.box = Box3::standalone(nx, ny, nz, 1);
  const Box3& b = P.box;
  const std::size_t E = b.extent();
  for (auto* v : {&P.tx, &P.ty, &P.tz, &P.depth, &P.pv0, &P.mw_n, &P.mo_n}) v->assign(E, 0.0);
  P.x.assign(2 * E, 0.0);
  std::mt19937_64 g(seed);
  std::uniform_real_distribution<double> u(0, 1);
  // the wells' columns: (i, j) and the layers completed
  struct Col {
    long i, j, k0, k1;
  };
  const std::vector<Col> cols = {{nx - 2, ny - 2, 0, 2}, {1, 1, nz - 2, nz - 1}, {nx - 3, 1, 0, 1}, {1, ny - 3, 2, 2}};
  auto in_col = [&](long i, long j, long k) {
    if (!with_wells) return false;
    for (const auto& c : cols)
      if (c.i == i && c.j == j && k >= c.k0 && k <= c.k1) return true;
    return false;
  };
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long L = b.at(i, j, k);
        const double on = u(g);
        P.pv0[L] = on < 0.04 && !in_col(i, j, k) ? 0.0 : 500 + 1000 * u(g);
        P.depth[L] = 2000 + 4 * k + 0.1 * i;
        // states inside the tables' segments away from the knots (0.2 .. 0.8 in S_w)
        P.x[2 * L] = 150 + 100 * u(g);
        P.x[2 * L + 1] = 0.22 + 0.56 * u(g);
      }
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long L = b.at(i, j, k);
        if (!(P.pv0[L] > 0)) continue;
        auto face = [&](long N, bool inside) { return inside && P.pv0[N] > 0 ? 0.5 + 3 * u(g) : 0.0; };
        P.tx[L] = face(L + 1, i + 1 < nx);
        P.ty[L] = face(L + b.sy, j + 1 < ny);
        P.tz[L] = face(L + b.sz, k + 1 < nz);
      }
  P.prm = build_prm(fim_fluid());
  // masses at the start of the step: those of a nearby state
  for (std::size_t L = 0; L < E; ++L)
    if (P.pv0[L] > 0) {
      const auto c = phys::fim_cell_at<double>(P.prm.data(), P.pv0[L], P.x[2 * L] - 3 * u(g), P.x[2 * L + 1] - 0.01 * u(g));
      P.mw_n[L] = c.mw;
      P.mo_n[L] = c.mo;
    }
  P.ccell.assign(E, -1);
  if (!with_wells) return P;
  // {inj, ctrl, rate, ao, aw, bhp limit or target}
  struct Spec {
    double inj;
    int ctrl;
    double rate, ao, aw;
  };
  const Spec spec[4] = {{0, IMP_CTRL_RATE, 150, 1, 1}, {1, IMP_CTRL_RATE, 200, 0, 1}, {0, IMP_CTRL_BHP, 0, 1, 1}, {0, IMP_CTRL_SHUT, 0, 1, 1}};
  for (int w = 0; w < 4; ++w) {
    const Col& c = cols[std::size_t(w)];
    const long first = P.completions;
    double pmin = 1e30, pmax = -1e30, top = 1e30;
    for (long k = c.k0; k <= c.k1; ++k) {
      const long L = b.at(c.i, c.j, k);
      P.ccell[std::size_t(L)] = static_cast<int>(P.completions++);
      P.cidx.insert(P.cidx.end(), {L, 0});
      P.cwi.push_back(2 + 6 * u(g));
      P.cdepth.push_back(P.depth[std::size_t(L)]);
      P.cwell.push_back(w);
      pmin = std::min(pmin, P.x[2 * L]);
      pmax = std::max(pmax, P.x[2 * L]);
      top = std::min(top, P.depth[std::size_t(L)]);
    }
    const bool inj = spec[w].inj > 0;
    // a BHP well 40 bar past every completion's pressure: each flows its own way whatever the head
    const double bhp = inj ? pmax + 40 : pmin - 40;
    P.wp.insert(P.wp.end(), {spec[w].inj, spec[w].ctrl == IMP_CTRL_SHUT ? 0.0 : 1.0, spec[w].rate, spec[w].ao, spec[w].aw,
                             spec[w].ctrl == IMP_CTRL_BHP ? bhp : (inj ? 1000.0 : 10.0), top, double(first),
                             double(P.completions - first)});
    std::vector<double> s(FIM_NWS, 0.0);
    s[FIM_WS_BHP] = bhp;
    s[FIM_WS_CTRL] = spec[w].ctrl;
    P.ws.insert(P.ws.end(), s.begin(), s.end());
    ++P.wells;
  }
  return P;
}

// A problem's arrays on a backend, and the fim kernels over them.
template <class T>
struct FimOnDevice {
  FimOnDevice(Backend& be, const FimProblem& P)
      : tx(make_field(be, convert<T>(P.tx))),
        ty(make_field(be, convert<T>(P.ty))),
        tz(make_field(be, convert<T>(P.tz))),
        depth(make_field(be, convert<T>(P.depth))),
        pv0(make_field(be, convert<T>(P.pv0))),
        prm(make_field(be, convert<T>(P.prm))),
        x(make_field(be, convert<T>(P.x))),
        mw_n(make_field(be, convert<T>(P.mw_n))),
        mo_n(make_field(be, convert<T>(P.mo_n))),
        wp(make_field(be, convert<T>(at_least_one(P.wp)))),
        ws(make_field(be, convert<T>(at_least_one(P.ws)))),
        cwi(make_field(be, convert<T>(at_least_one(P.cwi)))),
        cdepth(make_field(be, convert<T>(at_least_one(P.cdepth)))),
        cq(be, std::max<std::size_t>(1, std::size_t(P.completions)) * FIM_NCQ),
        coef(be, 28 * P.box.extent()),
        res(be, 2 * P.box.extent()),
        cnv(be, 2 * P.box.extent()),
        mbw(be, P.box.extent()),
        mbo(be, P.box.extent()),
        viol(be, P.box.extent()),
        box(P.box),
        wells(P.wells),
        completions(P.completions) {
    auto ints = [&](const auto& v, std::size_t bytes) {
      auto buf = be.alloc(std::max<std::size_t>(bytes, 64));
      if (bytes) be.upload(*buf, v.data(), bytes);
      return buf;
    };
    cidx = ints(P.cidx, P.cidx.size() * sizeof(long));
    cwell = ints(P.cwell, P.cwell.size() * sizeof(int));
    ccell = ints(P.ccell, P.ccell.size() * sizeof(int));
    cq.fill(T(0));
    for (Field<T>* f : {&coef, &res, &cnv, &mbw, &mbo, &viol}) f->fill(T(0));
  }
  static std::vector<double> at_least_one(const std::vector<double>& v) { return v.empty() ? std::vector<double>(16, 0.0) : v; }

  Field<T> tx, ty, tz, depth, pv0, prm, x, mw_n, mo_n, wp, ws, cwi, cdepth, cq, coef, res, cnv, mbw, mbo, viol;
  double cnv_tol = 0.01;  // assemble's tolerance of viol
  std::unique_ptr<Buffer> cidx, cwell, ccell;
  Box3 box;
  long wells, completions;

  Impes3DGrid grid() const { return {box, &tx.buffer(), &ty.buffer(), &tz.buffer(), &depth.buffer(), &pv0.buffer()}; }
  FimWells well_arrays() {
    return {wells, completions, &wp.buffer(), cidx.get(), &cwi.buffer(), &cdepth.buffer(), ccell.get(), cwell.get(), &ws.buffer(),
            &cq.buffer()};
  }
  void well_start(Backend& be) {
    be.fim().well_start({precision_of<T>(), &prm.buffer(), prm.size(), well_arrays(), &x.buffer(), &pv0.buffer(), box.extent()});
  }
  void assemble(Backend& be, double dt) {
    be.fim().assemble({precision_of<T>(), grid(), &prm.buffer(), prm.size(), dt, &x.buffer(), &mw_n.buffer(), &mo_n.buffer(),
                       well_arrays(), &coef.buffer(), &res.buffer(), &cnv.buffer(), &mbw.buffer(), &mbo.buffer(), cnv_tol,
                       &viol.buffer()});
  }
  void well_equation(Backend& be, double dt) {
    be.fim().well_equation({precision_of<T>(), well_arrays(), dt, box.extent(), &coef.buffer(), &res.buffer()});
  }
};

}  // namespace poreflow::test
