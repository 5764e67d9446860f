// CPR on every backend: its kernels (weights, the pressure matrix, restriction, prolongation)
// against the host's double arithmetic on random 2 x 2 blocks; CPR with BiCGSTAB and FGMRES on a
// heterogeneous two-phase system (an oil-water Jacobian's shape: accumulation, upstream
// mobilities and their saturation derivatives) against ILU(0) alone; the stencil and the CSR form
// alike; a refresh with new values equal to a fresh setup.
#include <cmath>
#include <random>
#include <vector>

#include "core/base/error.hpp"
#include "core/kernels/cpr.hpp"
#include "core/linalg/cpr.hpp"
#include "core/linalg/krylov.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::linalg;
using namespace poreflow::test;

namespace {

// The Jacobian of a two-phase (water, oil) finite-volume step on a box, unknowns (p, S_w) per cell:
// accumulation (c_w, a; c_o, -a), two-point fluxes T lambda_up (p_L - p_N) with the upstream cell's
// mobility and its saturation derivative, log-normal permeability of `decades` decades, kv/kh,
// Dirichlet pressure outside the x faces, a few inactive cells.
struct TwoPhase {
  Box3 box;
  std::vector<double> coef;  // 7 planes x 4 x extent
  std::vector<int> active;
};

TwoPhase two_phase(long nx, long ny, long nz, double decades, double kvkh, unsigned seed) {
  TwoPhase d;
  d.box = Box3::standalone(nx, ny, nz, 1);
  const Box3& b = d.box;
  const std::size_t e = b.extent();
  d.coef.assign(7 * 4 * e, 0.0);
  d.active.assign(e, 0);
  std::mt19937 g(seed);
  std::normal_distribution<double> nd(0, decades / 4.0);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> k(e, 1.0), lw(e), lo(e), dlw(e), dlo(e), p(e), acc(e);
  for (long z = 0; z < nz; ++z)
    for (long y = 0; y < ny; ++y)
      for (long x = 0; x < nx; ++x) {
        const long L = b.at(x, y, z);
        d.active[L] = u(g) < 0.03 ? 0 : 1;
        k[L] = std::pow(10.0, nd(g));
        lw[L] = 0.05 + u(g);
        lo[L] = 0.05 + u(g);
        dlw[L] = 2 * u(g);
        dlo[L] = -2 * u(g);
        p[L] = u(g);
        acc[L] = 0.1 + u(g);
      }
  auto at = [&](int q, long L, int r, int c) -> double& { return d.coef[(q * e + L) * 4 + r * 2 + c]; };
  const long off[7] = {0, -1, 1, -b.sy, b.sy, -b.sz, b.sz};
  for (long z = 0; z < nz; ++z)
    for (long y = 0; y < ny; ++y)
      for (long x = 0; x < nx; ++x) {
        const long L = b.at(x, y, z);
        if (!d.active[L]) continue;
        at(0, L, 0, 0) += 1e-3 * acc[L];
        at(0, L, 0, 1) += acc[L];
        at(0, L, 1, 0) += 2e-3 * acc[L];
        at(0, L, 1, 1) -= acc[L];
        for (int q = 1; q < 7; ++q) {
          const long N = L + off[q];
          const double w = q >= 5 ? kvkh : 1.0;
          const bool inside = (q == 1 && x > 0) || (q == 2 && x < nx - 1) || q >= 3;
          if (!inside) {  // Dirichlet p = 0 outside the x faces: the cell's own mobility
            const double t = w * 2 * k[L];
            at(0, L, 0, 0) += t * lw[L];
            at(0, L, 1, 0) += t * lo[L];
            continue;
          }
          if (!d.active[N]) continue;  // no flow to inactive cells or out of the y and z faces
          const double t = w * 2 / (1 / k[L] + 1 / k[N]);
          const bool up_here = p[L] >= p[N];
          const long U = up_here ? L : N;
          const double dp = p[L] - p[N];
          const double lam[2] = {lw[U], lo[U]}, dlam[2] = {dlw[U], dlo[U]};
          for (int r = 0; r < 2; ++r) {
            at(0, L, r, 0) += t * lam[r];
            at(q, L, r, 0) -= t * lam[r];
            if (up_here) at(0, L, r, 1) += t * dlam[r] * dp;
            else at(q, L, r, 1) += t * dlam[r] * dp;
          }
        }
      }
  return d;
}

template <class T>
struct OnDevice {
  OnDevice(Backend& be, const TwoPhase& d) : m(be, d.box, 2), op(m) {
    m.coef.upload(convert<T>(d.coef));
    be.upload(*m.active, d.active.data(), d.active.size() * sizeof(int));
  }
  Stencil7Matrix<T> m;
  Stencil7Operator<T> op;
};

std::vector<double> random_rhs(const TwoPhase& d, unsigned seed) {
  std::vector<double> b(2 * d.box.extent(), 0.0);
  std::mt19937 g(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t l = 0; l < d.active.size(); ++l)
    if (d.active[l]) b[2 * l] = u(g), b[2 * l + 1] = u(g);
  return b;
}

// the quasi-IMPES weights of a 2 x 2 block, in double (core/physics/cpr.h's definition)
void weights_of(const double* D, double* w) {
  const double det = D[0] * D[3] - D[1] * D[2], big = std::max(std::fabs(D[3]), std::fabs(D[1]));
  if (det == 0 || big == 0) {
    w[0] = w[1] = 0;
    return;
  }
  const double s = (det > 0 ? 1.0 : -1.0) / big;
  w[0] = s * D[3];
  w[1] = -s * D[1];
}

}  // namespace

TEST_SUITE("backend") {

TEST_CASE_TEMPLATE("cpr: weights, pressure matrix and transfers equal the host's double arithmetic", T, float, double) {
  for_each_backend([](Backend& be) {
    if (!be.supports(precision_of<T>())) return;
    const std::size_t cells = 4099, entries = 3 * cells + 5;  // CSR-like: entries with rows given
    auto diag = random_vector<double>(4 * cells, -2, 2);
    for (std::size_t i = 0; i < cells; i += 97) diag[4 * i] = diag[4 * i + 1] = diag[4 * i + 2] = diag[4 * i + 3] = 0;
    std::vector<int> pos(cells), rows(entries);
    for (std::size_t i = 0; i < cells; ++i) pos[i] = i % 89 == 5 ? -1 : static_cast<int>(cells - 1 - i);
    for (std::size_t k = 0; k < entries; ++k) rows[k] = static_cast<int>(rng()() % cells);
    auto a = random_vector<double>(4 * entries, -3, 3);
    for (std::size_t i = 0; i < cells; ++i)  // the diagonal blocks at their positions within a
      if (pos[i] >= 0 && static_cast<std::size_t>(pos[i]) < entries)
        for (int c = 0; c < 4; ++c) a[4 * pos[i] + c] = diag[4 * i + c];
    const auto r = random_vector<double>(2 * cells, -1, 1), xp = random_vector<double>(cells, -1, 1);

    // host reference
    std::vector<double> w(2 * cells), ap(entries), rp(cells), z(2 * cells);
    for (std::size_t i = 0; i < cells; ++i) {
      if (pos[i] < 0) w[2 * i] = w[2 * i + 1] = 0;
      else weights_of(&a[4 * pos[i]], &w[2 * i]);
    }
    for (std::size_t k = 0; k < entries; ++k) ap[k] = w[2 * rows[k]] * a[4 * k] + w[2 * rows[k] + 1] * a[4 * k + 2];
    for (std::size_t i = 0; i < cells; ++i) rp[i] = w[2 * i] * r[2 * i] + w[2 * i + 1] * r[2 * i + 1], z[2 * i] = xp[i], z[2 * i + 1] = 0;

    auto d_pos = be.alloc(cells * sizeof(int)), d_rows = be.alloc(entries * sizeof(int));
    be.upload(*d_pos, pos.data(), cells * sizeof(int));
    be.upload(*d_rows, rows.data(), entries * sizeof(int));
    auto d_a = make_field(be, convert<T>(a)), d_r = make_field(be, convert<T>(r)), d_xp = make_field(be, convert<T>(xp));
    Field<T> d_w(be, 2 * cells), d_ap(be, entries), d_rp(be, cells), d_z(be, 2 * cells);
    for (Field<T>* f : {&d_w, &d_ap, &d_rp, &d_z}) f->fill(std::nan(""));  // poison
    const Precision prec = precision_of<T>();
    CprKernels k = be.cpr();
    k.weights({prec, cells, d_pos.get(), &d_a.buffer(), &d_w.buffer(), entries});
    k.pressure({prec, entries, 0, d_rows.get(), &d_w.buffer(), &d_a.buffer(), &d_ap.buffer(), cells});
    k.restrict_residual({prec, cells, &d_w.buffer(), &d_r.buffer(), &d_rp.buffer(), nullptr});
    k.prolong({prec, cells, &d_xp.buffer(), &d_z.buffer(), nullptr});
    const double t = tol<T>();
    CHECK(max_rel_diff(convert<double>(d_w.download()), w) <= t);
    CHECK(max_rel_diff(convert<double>(d_ap.download()), ap, 3) <= 10 * t);
    CHECK(max_rel_diff(convert<double>(d_rp.download()), rp, 1) <= 10 * t);
    for (std::size_t i = 0; i < cells; ++i) z[2 * i] = static_cast<double>(static_cast<T>(xp[i]));  // xp as T holds it
    CHECK(max_rel_diff(convert<double>(d_z.download()), z) == 0);

    // a stencil's planes: the rows of the entries are k % extent, the diagonal blocks the first plane
    const std::size_t ext = 1013;
    std::vector<double> sa = random_vector<double>(4 * 7 * ext, -2, 2), sw(2 * ext), sap(7 * ext);
    for (std::size_t i = 0; i < ext; ++i) weights_of(&sa[4 * i], &sw[2 * i]);
    for (std::size_t e = 0; e < 7 * ext; ++e) sap[e] = sw[2 * (e % ext)] * sa[4 * e] + sw[2 * (e % ext) + 1] * sa[4 * e + 2];
    auto d_sa = make_field(be, convert<T>(sa));
    Field<T> d_sw(be, 2 * ext), d_sap(be, 7 * ext);
    d_sw.fill(std::nan(""));
    d_sap.fill(std::nan(""));
    k.weights({prec, ext, nullptr, &d_sa.buffer(), &d_sw.buffer(), 7 * ext});
    k.pressure({prec, 7 * ext, ext, nullptr, &d_sw.buffer(), &d_sa.buffer(), &d_sap.buffer(), ext});
    CHECK(max_rel_diff(convert<double>(d_sw.download()), sw) <= t);
    CHECK(max_rel_diff(convert<double>(d_sap.download()), sap, 3) <= 10 * t);
  });
}

TEST_CASE_TEMPLATE("cpr: BiCGSTAB and FGMRES with CPR solve a heterogeneous two-phase system where ILU(0) alone struggles", T,
                   double) {
  for_each_backend([](Backend& be) {
    const auto d = two_phase(37, 29, 13, 4, 0.1, 3);
    OnDevice<T> dev(be, d);
    Cpr<T> cpr;
    cpr.update(dev.op);
    INFO(cpr.describe());
    Ilu0<T> ilu;
    ilu.update(dev.op);
    const auto b = make_field(be, convert<T>(random_rhs(d, 11)));
    long its[3] = {0, 0, 0};
    int n = 0;
    for (KrylovMethod m : {KrylovMethod::BiCGSTAB, KrylovMethod::FGMRES}) {
      KrylovOptions o;
      o.method = m;
      o.tolerance = 1e-8;
      o.max_iterations = 200;
      KrylovSolver<T> s(dev.op, o);
      Field<T> x(be, dev.op.size());
      x.fill(T(0));
      const auto res = s.solve(b, x, cpr);
      INFO(to_string(m), ": ", res.describe());
      CHECK(res.converged);
      CHECK(res.true_relative_residual <= 1e-7);
      its[n++] = res.iterations;
      if (m == KrylovMethod::BiCGSTAB) {
        // CPR's launches recorded and replayed (CUDA Graphs) give the same bits as enqueued
        CHECK((res.replays > 0) == be.can_record());
        o.record = false;
        KrylovSolver<T> plain(dev.op, o);
        Field<T> y(be, dev.op.size());
        y.fill(T(0));
        const auto r2 = plain.solve(b, y, cpr);
        CHECK(r2.replays == 0);
        CHECK(r2.history == res.history);
        CHECK(y.download() == x.download());
      }
    }
    KrylovOptions o;
    o.method = KrylovMethod::BiCGSTAB;
    o.tolerance = 1e-8;
    o.max_iterations = 2000;
    KrylovSolver<T> s(dev.op, o);
    Field<T> x(be, dev.op.size());
    x.fill(T(0));
    const auto res = s.solve(b, x, ilu);
    its[2] = res.iterations;
    // the pressure stage's AMG in float: the double solve still reaches 1e-8, a few iterations more at
    // most (BiCGSTAB's count moves with rounding: 13 in double against 15 with the float stage on an
    // H100, 14 against 14 on the host)
    CprOptions fo;
    fo.float_pressure = true;
    Cpr<T> fcpr(fo);
    fcpr.update(dev.op);
    CHECK(fcpr.describe().find("in float") != std::string::npos);
    CHECK(fcpr.pressure_amg() == nullptr);
    CHECK(fcpr.pressure_hierarchy().describe() == cpr.pressure_hierarchy().describe());
    {
      KrylovOptions fo2;
      fo2.method = KrylovMethod::BiCGSTAB;
      fo2.tolerance = 1e-8;
      fo2.max_iterations = 200;
      Field<T> xf(be, dev.op.size());
      xf.fill(T(0));
      const auto rf = KrylovSolver<T>(dev.op, fo2).solve(b, xf, fcpr);
      INFO("float pressure stage: ", rf.describe());
      CHECK(rf.converged);
      CHECK(rf.true_relative_residual <= 1e-7);
      CHECK(rf.iterations <= its[0] + its[0] / 4 + 1);
    }
    INFO("iterations: BiCGSTAB+CPR ", its[0], ", FGMRES+CPR ", its[1], ", BiCGSTAB+ILU0 ", its[2]);
    CHECK(its[0] <= 20);
    CHECK(its[1] <= 30);
    CHECK(3 * its[0] <= its[2]);  // the pressure stage is what CPR adds: it must show
  });
}

TEST_CASE_TEMPLATE("cpr: the stencil and the CSR form of one system are preconditioned alike; a refresh equals a new setup", T,
                   double) {
  for_each_backend([](Backend& be) {
    const auto d = two_phase(19, 17, 11, 2, 0.3, 8);
    OnDevice<T> dev(be, d);
    // the CSR form over the active cells only (ILU needs a diagonal in every row)
    const auto full = csr_pattern_of_stencil7(d.box, d.active);
    const auto map = stencil7_to_csr_map(d.box, d.active);
    std::vector<int> compact(full.rows, -1), cell_of;
    for (std::size_t r = 0; r < full.rows; ++r)
      if (full.ptr[r + 1] > full.ptr[r]) compact[r] = static_cast<int>(cell_of.size()), cell_of.push_back(static_cast<int>(r));
    CsrPattern pat;
    pat.rows = pat.cols = cell_of.size();
    std::vector<double> vals;
    for (int r : cell_of) {
      for (int k = full.ptr[r]; k < full.ptr[r + 1]; ++k) {
        pat.col.push_back(compact[full.col[k]]);
        for (int c = 0; c < 4; ++c) vals.push_back(d.coef[4 * static_cast<std::size_t>(map[k]) + c]);
      }
      pat.ptr.push_back(static_cast<int>(pat.col.size()));
    }
    CsrMatrix<T> m(be, pat, 2);
    m.val.upload(convert<T>(vals));
    CsrOperator<T> op(m);
    Cpr<T> cs, cc;
    cs.update(dev.op);
    cc.update(op);
    // the same weights and the same pressure matrix (its product with a random vector)
    const auto ws = convert<double>(cs.weights().download()), wc = convert<double>(cc.weights().download());
    auto xs = random_vector<double>(d.box.extent(), -1, 1);
    std::vector<double> xc(cell_of.size()), wsc(2 * cell_of.size());
    for (std::size_t i = 0; i < cell_of.size(); ++i) {
      xc[i] = xs[cell_of[i]];
      wsc[2 * i] = ws[2 * cell_of[i]], wsc[2 * i + 1] = ws[2 * cell_of[i] + 1];
    }
    for (std::size_t l = 0; l < xs.size(); ++l)
      if (compact[l] < 0) xs[l] = 0;
    CHECK(max_rel_diff(wc, wsc) <= 1e-14);
    auto fxs = make_field(be, convert<T>(xs)), fxc = make_field(be, convert<T>(xc));
    Field<T> ys(be, xs.size()), yc(be, xc.size());
    cs.pressure_operator().apply(fxs, ys, {});
    cc.pressure_operator().apply(fxc, yc, {});
    const auto hys = convert<double>(ys.download());
    std::vector<double> ysc(cell_of.size());
    for (std::size_t i = 0; i < cell_of.size(); ++i) ysc[i] = hys[cell_of[i]];
    CHECK(max_rel_diff(convert<double>(yc.download()), ysc) <= 1e-12);
    // and the CSR form solves as the stencil form does
    KrylovOptions o;
    o.method = KrylovMethod::BiCGSTAB;
    o.max_iterations = 100;
    auto bs = random_rhs(d, 4);
    std::vector<double> bc(2 * cell_of.size());
    for (std::size_t i = 0; i < cell_of.size(); ++i) bc[2 * i] = bs[2 * cell_of[i]], bc[2 * i + 1] = bs[2 * cell_of[i] + 1];
    auto fbc = make_field(be, convert<T>(bc));
    Field<T> x(be, op.size());
    x.fill(T(0));
    KrylovSolver<T> sc(op, o);
    const auto rc = sc.solve(fbc, x, cc);
    INFO(rc.describe());
    CHECK(rc.converged);
    CHECK(rc.iterations <= 20);

    // new values of the same pattern: the equations swapped in every cell and scaled by 3. Every
    // weight follows (the pressure rows stay the same combination, times 3), so the refreshed CPR
    // must apply to the swapped residual as a fresh one does, and give the old correction / 3
    const auto b0 = make_field(be, convert<T>(bs));
    Field<T> z0(be, dev.op.size());
    cs.apply(b0, z0, {});
    auto c2 = d.coef;
    for (std::size_t e = 0; e < 7 * d.box.extent(); ++e) {
      double* k = &c2[4 * e];
      const double r0[2] = {k[0], k[1]};
      k[0] = 3 * k[2], k[1] = 3 * k[3], k[2] = 3 * r0[0], k[3] = 3 * r0[1];
    }
    auto bsw = bs;
    for (std::size_t l = 0; l < d.box.extent(); ++l) std::swap(bsw[2 * l], bsw[2 * l + 1]);
    dev.m.coef.upload(convert<T>(c2));
    cs.update(dev.op);
    Cpr<T> fresh;
    fresh.update(dev.op);
    const auto b1 = make_field(be, convert<T>(bsw));
    Field<T> z1(be, dev.op.size()), z2(be, dev.op.size());
    cs.apply(b1, z1, {});
    fresh.apply(b1, z2, {});
    const auto h1 = convert<double>(z1.download());
    CHECK(max_rel_diff(h1, convert<double>(z2.download())) <= 1e-10);
    auto h0 = convert<double>(z0.download());
    for (auto& v : h0) v /= 3;
    CHECK(max_rel_diff(h1, h0) <= 1e-10);
  });
}

TEST_CASE_TEMPLATE("cpr: a scalar operator is refused by name", T, double) {
  for_each_backend([](Backend& be) {
    Stencil7Matrix<T> m(be, Box3::standalone(5, 4, 3, 1), 1);
    Stencil7Operator<T> op(m);
    Cpr<T> cpr;
    CHECK_THROWS_WITH_AS(cpr.update(op), doctest::Contains("2 x 2 blocks"), ConfigError);
  });
}

}  // TEST_SUITE
