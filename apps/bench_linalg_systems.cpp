// poreflow bench linalg, the systems: 3D Poisson, the SPE10-like pressure system and a two-phase
// 2 x 2 Jacobian on the same field, each solved from x = 0 to a relative residual of 1e-8 in double
// by red-black SOR (every sor3d design of the backend), CG + Jacobi, CG + ILU(0), CG + AMG, and
// BiCGSTAB + CPR (or + ILU(0)) for the 2 x 2 system. Each row: the iterations, the setup (the
// preconditioner's update, AMG's host setup included), the median of a few solves doing the same
// work, the true relative residual of the returned solution computed again on the host in double,
// and on the printed table the speedup over the best SOR of the backend (docs/linalg.md).
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <numbers>

#include "apps/bench_linalg.hpp"
#include "apps/common.hpp"
#include "core/base/error.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/sor3d.hpp"
#include "core/kernels/vec.hpp"
#include "core/linalg/amg.hpp"
#include "core/linalg/cpr.hpp"
#include "core/linalg/float_preconditioner.hpp"
#include "core/linalg/ilu.hpp"
#include "core/linalg/jacobi.hpp"
#include "core/linalg/krylov.hpp"
#include "core/linalg/stencil7.hpp"
#include "core/io/case_file.hpp"
#include "core/models/impes3d.hpp"
#include "core/models/impes3d_step.hpp"
#include "core/models/memory.hpp"
#include "core/models/spe10_fields.hpp"
#include "core/physics/sor3d.h"
#include "core/physics/stencil7_sor.h"
#include "core/run/registry.hpp"

namespace poreflow::app {

namespace {

using Clock = std::chrono::steady_clock;
constexpr long kKrylovLimit = 20000;     // iterations, when no budget says less
constexpr long kSorLimit = 200000;
constexpr long kProbeIterations = 4;     // a short solve that times an iteration

// ---- the systems on the host ----------------------------------------------------------------


std::uint64_t mix64(std::uint64_t z) {  // splitmix64's finaliser
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
// a fixed value in [0, 1) for (stream, index)
double u01(std::uint64_t stream, std::uint64_t i) {
  return static_cast<double>(mix64(mix64(stream) ^ i) >> 11) * 0x1.0p-53;
}

// D p_C - sum_f T_f p_f = R for every cell: face(i, j, k, d) the coupling across the + face of
// (i, j, k) in direction d (0 x, 1 y, 2 z; interior faces only, >= 0), extra(i, j, k) the diagonal's
// own part (accumulation, wells, a Dirichlet boundary) and R. The stencil's planes and sor3d's
// colour-packed arrays hold the same numbers (D summed in the same order).
// a scalar system's arrays on h.box, zero (every cell inactive)
void zero_scalar(HostSystem& h) {
  const std::size_t E = h.box.extent();
  h.block = 1;
  h.coef.assign(7 * E, 0.0);
  h.rhs.assign(E, 0.0);
  h.active.assign(E, 0);
}

template <class Face, class Extra>
void fill_scalar(HostSystem& h, Face face, Extra extra) {
  const Box3& b = h.box;
  const std::size_t E = b.extent();
  zero_scalar(h);
  h.sor.assign(sor3d_coef_values(b), 0.0);
  const pf_box3 v = b.view();
  const long m2 = 2 * phys::pf_rb_m(v);
#pragma omp parallel for schedule(static)
  for (long k = 0; k < b.nz; ++k)
    for (long j = 0; j < b.ny; ++j)
      for (long i = 0; i < b.nx; ++i) {
        const double t[6] = {i > 0 ? face(i - 1, j, k, 0) : 0.0,        i + 1 < b.nx ? face(i, j, k, 0) : 0.0,
                             j > 0 ? face(i, j - 1, k, 1) : 0.0,        j + 1 < b.ny ? face(i, j, k, 1) : 0.0,
                             k > 0 ? face(i, j, k - 1, 2) : 0.0,        k + 1 < b.nz ? face(i, j, k, 2) : 0.0};
        const auto [d0, r] = extra(i, j, k);
        double d = d0;
        for (double x : t) d += x;
        const long L = b.at(i, j, k), q = phys::pf_rb_of(v, i, j, k);
        h.active[L] = 1;
        h.coef[L] = d;
        for (int f = 0; f < 6; ++f) {
          h.coef[(f + 1) * E + L] = -t[f];
          h.sor[q + f * m2] = t[f];
        }
        h.rhs[L] = r;
        h.sor[q + PF_SOR_D * m2] = d;
        h.sor[q + PF_SOR_R * m2] = r;
      }
}

// -Laplace u = 1 on the unit cube, u = 0 on its boundary: 6 on the diagonal, -1 to each neighbour
// (the boundary's neighbours are the Dirichlet values, 0), right-hand side 1 (h^2 scaled)
HostSystem poisson(long n) {
  HostSystem h;
  h.box = Box3::standalone(n, n, n, 1);
  h.poisson = true;
  h.label = fmt::format("poisson{}", n);
  h.what = fmt::format("-Laplace u = 1 on {0}^3 cells, Dirichlet u = 0 (7-point, 6 on the diagonal)", n);
  fill_scalar(
      h, [](long, long, long, int) { return 1.0; },
      [n](long i, long j, long k) {
        const int missing = (i == 0) + (i == n - 1) + (j == 0) + (j == n - 1) + (k == 0) + (k == n - 1);
        return std::pair<double, double>(missing, 1.0);
      });
  return h;
}

// SPE10 model 2's geometry and a five-spot: cells of 20 x 10 x 2 ft, an injector in the middle
// column and producers in the four corner columns, completed in every layer
struct Spe10Geometry {
  static constexpr double dx = 20, dy = 10, dz = 2;  // ft
  static constexpr double darcy = 0.001127;          // mD ft -> bbl/(day psi cP)
  static constexpr double ct = 1e-5;                 // total compressibility, 1/psi
  static constexpr double dt = 1;                    // days
  static constexpr double rw = 5.0 / 12;             // well radius, ft
  long nx, ny, nz;
  const Spe10Fields* f;
  long idx(long i, long j, long k) const { return i + nx * (j + ny * k); }
  // the transmissibility across the + face of (i, j, k) in direction d (harmonic k)
  double face(long i, long j, long k, int d) const {
    const long a = idx(i, j, k), b = d == 0 ? a + 1 : d == 1 ? a + nx : a + nx * ny;
    const std::vector<double>& kk = d == 0 ? f->kx : d == 1 ? f->ky : f->kz;
    const double geom = d == 0 ? dy * dz / dx : d == 1 ? dx * dz / dy : dx * dy / dz;
    return darcy * geom * 2 * kk[a] * kk[b] / (kk[a] + kk[b]);
  }
  // 0: none, 1: the injector, 2: a producer
  int well(long i, long j) const {
    if (i == nx / 2 && j == ny / 2) return 1;
    return ((i == 0 || i == nx - 1) && (j == 0 || j == ny - 1)) ? 2 : 0;
  }
  // Peaceman's well index of the cell (kx = ky)
  double wi(long i, long j, long k) const {
    const double r0 = 0.14 * std::sqrt(dx * dx + dy * dy);
    return darcy * 2 * std::numbers::pi * f->kx[idx(i, j, k)] * dz / std::log(r0 / rw);
  }
  // the pore volume over dt, bbl/day
  double pv_dt(long i, long j, long k) const { return dx * dy * dz * f->poro[idx(i, j, k)] / (5.615 * dt); }
};

// The pressure increment of a slightly compressible single-phase step (dt 1 day, c_t 1e-5/psi,
// 1 cP) on the SPE10-like field: accumulation on the diagonal, two-point transmissibilities, the
// producers at a bottom-hole pressure 1000 psi below the cells' (their well index on the diagonal)
// and the injector's 5000 bbl/day split over its layers by well index: the right-hand side sits in
// the five well columns only.
HostSystem spe10(long nx, long ny, long nz) {
  HostSystem h;
  h.box = Box3::standalone(nx, ny, nz, 1);
  h.label = fmt::format("spe10 {}x{}x{}", nx, ny, nz);
  const Spe10Fields f = generate_spe10_like(static_cast<int>(nx), static_cast<int>(ny), static_cast<int>(nz), 1);
  const Spe10Geometry g{nx, ny, nz, &f};
  double inj_wi = 0;
  for (long k = 0; k < nz; ++k) inj_wi += g.wi(nx / 2, ny / 2, k);
  const double rate = 5000, drawdown = 1000;
  h.what = fmt::format("pressure increment of a step of 1 day on the SPE10-like field {}x{}x{} (seed 1; 20x10x2 ft cells, "
                       "c_t 1e-5/psi, 1 cP), five-spot: injector {} bbl/day at ({}, {}), producers 1000 psi below in the "
                       "corners, all layers",
                       nx, ny, nz, rate, nx / 2, ny / 2);
  fill_scalar(
      h, [&](long i, long j, long k, int d) { return g.face(i, j, k, d); },
      [&](long i, long j, long k) {
        double d0 = g.pv_dt(i, j, k) * Spe10Geometry::ct, r = 0;
        const int w = g.well(i, j);
        if (w == 2) {
          d0 += g.wi(i, j, k);
          r = -g.wi(i, j, k) * drawdown;
        } else if (w == 1) {
          r = rate * g.wi(i, j, k) / inj_wi;
        }
        return std::pair<double, double>(d0, r);
      });
  return h;
}

// A two-phase (water, oil) Jacobian on the same field, unknowns (p, S_w) per cell, in the shape of
// tests/test_cpr.cpp's two_phase(): accumulation (c_t pv s_w, pv; c_t pv s_o, -pv), upstream
// mobilities (fixed pseudo-random per cell, 0.05 to 1.05 /cP) with their saturation derivatives
// times the pressure difference (cell pressures 0 to 100 psi), the producers' well terms; a
// pseudo-random right-hand side in [-1, 1].
HostSystem spe10_two_phase(long nx, long ny, long nz) {
  HostSystem h;
  h.box = Box3::standalone(nx, ny, nz, 1);
  h.block = 2;
  h.label = fmt::format("spe10-2p {}x{}x{}", nx, ny, nz);
  h.what = fmt::format("two-phase (p, S_w) Jacobian of a 1-day step on the SPE10-like field {}x{}x{}: upstream mobilities "
                       "and their derivatives, accumulation, the five-spot's producers; 2x2 blocks",
                       nx, ny, nz);
  const Spe10Fields f = generate_spe10_like(static_cast<int>(nx), static_cast<int>(ny), static_cast<int>(nz), 1);
  const Spe10Geometry g{nx, ny, nz, &f};
  const Box3& b = h.box;
  const std::size_t E = b.extent();
  h.coef.assign(7 * 4 * E, 0.0);
  h.rhs.assign(2 * E, 0.0);
  h.active.assign(E, 0);
  const auto cells = static_cast<std::size_t>(b.cells());
  std::vector<double> lw(cells), lo(cells), dlw(cells), dlo(cells), p(cells);
  for (std::size_t c = 0; c < cells; ++c) {
    lw[c] = 0.05 + u01(1, c);
    lo[c] = 0.05 + u01(2, c);
    dlw[c] = 2 * u01(3, c);
    dlo[c] = -2 * u01(4, c);
    p[c] = 100 * u01(5, c);
  }
  auto at = [&](int q, long L, int r, int c) -> double& { return h.coef[(q * E + static_cast<std::size_t>(L)) * 4 + r * 2 + c]; };
  const long coff[7] = {0, -1, 1, -nx, nx, -nx * ny, nx * ny};
#pragma omp parallel for schedule(static)
  for (long k = 0; k < nz; ++k)
    for (long j = 0; j < ny; ++j)
      for (long i = 0; i < nx; ++i) {
        const long L = b.at(i, j, k), c = g.idx(i, j, k);
        h.active[L] = 1;
        const double pv = g.pv_dt(i, j, k), sw = u01(6, c);
        at(0, L, 0, 0) += Spe10Geometry::ct * pv * sw;
        at(0, L, 0, 1) += pv;
        at(0, L, 1, 0) += Spe10Geometry::ct * pv * (1 - sw);
        at(0, L, 1, 1) -= pv;
        for (int q = 1; q < 7; ++q) {
          const bool inside = q == 1 ? i > 0 : q == 2 ? i + 1 < nx : q == 3 ? j > 0 : q == 4 ? j + 1 < ny : q == 5 ? k > 0 : k + 1 < nz;
          if (!inside) continue;
          const int d = (q - 1) / 2;
          const double t = (q & 1) ? g.face(d == 0 ? i - 1 : i, d == 1 ? j - 1 : j, d == 2 ? k - 1 : k, d) : g.face(i, j, k, d);
          const long n = c + coff[q];
          const bool up_here = p[c] >= p[n];
          const long u = up_here ? c : n;
          const double dp = p[c] - p[n];
          const double lam[2] = {lw[u], lo[u]}, dlam[2] = {dlw[u], dlo[u]};
          for (int r = 0; r < 2; ++r) {
            at(0, L, r, 0) += t * lam[r];
            at(q, L, r, 0) -= t * lam[r];
            if (up_here) at(0, L, r, 1) += t * dlam[r] * dp;
            else at(q, L, r, 1) += t * dlam[r] * dp;
          }
        }
        if (g.well(i, j) == 2) {  // a producer 1000 psi below the cell
          const double wi = g.wi(i, j, k);
          at(0, L, 0, 0) += wi * lw[c];
          at(0, L, 1, 0) += wi * lo[c];
          at(0, L, 0, 1) += wi * dlw[c] * 1000;
          at(0, L, 1, 1) += wi * dlo[c] * 1000;
        }
        h.rhs[2 * L] = 2 * u01(7, c) - 1;
        h.rhs[2 * L + 1] = 2 * u01(8, c) - 1;
      }
  return h;
}

// The pressure system of paper 003's case 2 (cases/impes_case2.toml, 36 x 77 x 33 cells, six
// wells) as impes3d's IMPES step assembles it for the step after `day`: the model run to that day
// on `be` with its defaults (SOR), then the rows of its next step (the last step's dt) as SOR takes
// them between its updates of the rate wells' BHPs: each completion's own share of its rate well
// on its diagonal, its coupling to the well's other completions left out. Every row is multiplied
// by its cell's pore volume, as the model's Krylov path does (stencil7_sor.h), which makes the
// matrix symmetric where neighbouring cells' formation volume factors agree; SOR's arrays hold the
// same rows.
HostSystem impes_case2(Backend& be, const std::string& cases_dir, double day) {
  auto cf = io::CaseFile::load(std::filesystem::path(cases_dir) / "impes_case2.toml");
  auto model = make_model(cf, be, Precision::Double);
  auto& m = dynamic_cast<Impes3D<double>&>(*model);
  if (!(day > 0) || day >= m.end_time())
    throw ConfigError(fmt::format("--sizes: impes-case2:{}: the day must be inside the run's (0, {})", day, m.end_time()));
  while (m.time() < day * (1 - 1e-12)) m.step(day);
  auto* step = dynamic_cast<ImpesStep<double>*>(&m.scheme_part());
  if (!step) throw Error("impes-case2: the case's scheme is not IMPES");
  const double dt = m.clock().last_dt();
  ImpesPressureRows rows = step->pressure_rows(dt);
  HostSystem h;
  h.box = rows.box;
  h.label = fmt::format("impes-case2 day {:g}", day);
  h.what = fmt::format("impes3d case 2's pressure increment system of the step after day {:g} (dt {:.4g} d, {} steps run "
                       "with SOR): 36x77x33 cells, six wells (each completion's own share of its rate well on the "
                       "diagonal, as SOR's rows between its BHP updates), rows times the cells' pore volumes",
                       day, dt, m.steps());
  const Box3& b = h.box;
  const std::size_t E = b.extent();
  zero_scalar(h);
  const pf_box3 v = b.view();
  const long m2 = 2 * phys::pf_rb_m(v);
  for (long c = 0; c < b.cells(); ++c) {
    // the stencil's row as the model's Krylov path makes it, then SOR's arrays scaled alike
    phys::pf_s7_from_sor_cell<double>(v, c, rows.sor.data(), rows.pv.data(), h.coef.data(), h.rhs.data(), static_cast<long>(E));
    const long i = c % b.nx, j = (c / b.nx) % b.ny, k = c / (b.nx * b.ny), L = b.at(i, j, k), q = phys::pf_rb_of(v, i, j, k);
    const double pv = rows.pv[static_cast<std::size_t>(L)];
    if (!(pv > 0)) {  // an inactive cell: a zero row
      for (int f = 0; f < 7; ++f) h.coef[f * E + L] = 0;
      h.rhs[L] = 0;
      continue;
    }
    h.active[L] = 1;
    for (int f = 0; f < PF_SOR_NCOEF; ++f) rows.sor[q + f * m2] *= pv;
  }
  h.sor = std::move(rows.sor);
  return h;
}

// ||b - A x|| / ||b|| on the host in double (the stencil's arithmetic, every active row)
double host_relative_residual(const HostSystem& h, const std::vector<double>& x) {
  const Box3& b = h.box;
  const std::size_t E = h.extent();
  const int B = h.block, b2 = B * B;
  const long off[7] = {0, -1, 1, -b.sy, b.sy, -b.sz, b.sz};
  double rr = 0, bb = 0;
#pragma omp parallel for schedule(static) reduction(+ : rr, bb)
  for (long L = 0; L < static_cast<long>(E); ++L) {
    if (!h.active[L]) continue;
    for (int r = 0; r < B; ++r) {
      double v = h.rhs[B * L + r];
      bb += v * v;
      for (int q = 0; q < 7; ++q)
        for (int c = 0; c < B; ++c)
          v -= h.coef[(q * E + L) * b2 + r * B + c] * x[B * (L + off[q]) + c];
      rr += v * v;
    }
  }
  return std::isfinite(rr) ? std::sqrt(rr / std::max(bb, 1e-300)) : INFINITY;
}

// ---- SOR's omega ------------------------------------------------------------------------------

// Young's optimum for a consistently ordered matrix (red-black points, or z-lines coloured by
// i + j) whose (line) Jacobi iteration has spectral radius rho
double young(double rho) { return 2 / (1 + std::sqrt(std::max(0.0, 1 - rho * rho))); }

// The smallest eigenvalue of M^-1 A (M: the diagonal, or the z-lines' tridiagonal blocks) from
// the Lanczos matrix of a preconditioned CG on the host in double, started from a pseudo-random
// right-hand side (every eigenvector present), run until its smallest Ritz value settles (a
// relative change below 1e-4 over 50 iterations) or 6000 iterations
struct Spectrum {
  double lmin = 0;
  long iterations = 0;
  double seconds = 0;
};

double tridiagonal_min(const std::vector<double>& d, const std::vector<double>& e) {
  // bisection on Sturm counts
  const std::size_t n = d.size();
  double lo = INFINITY, hi = -INFINITY;
  for (std::size_t i = 0; i < n; ++i) {
    const double r = (i > 0 ? std::fabs(e[i - 1]) : 0) + (i + 1 < n ? std::fabs(e[i]) : 0);
    lo = std::min(lo, d[i] - r);
    hi = std::max(hi, d[i] + r);
  }
  auto below = [&](double x) {  // eigenvalues < x
    long count = 0;
    double q = 1;
    for (std::size_t i = 0; i < n; ++i) {
      q = d[i] - x - (i > 0 ? e[i - 1] * e[i - 1] / q : 0);
      if (q == 0) q = 1e-300;
      if (q < 0) ++count;
    }
    return count;
  };
  for (int it = 0; it < 200 && hi - lo > 1e-15 * std::max(1.0, std::fabs(hi)); ++it) {
    const double mid = 0.5 * (lo + hi);
    if (below(mid) >= 1) hi = mid;
    else lo = mid;
  }
  return 0.5 * (lo + hi);
}

Spectrum host_lmin(const HostSystem& h, bool lines) {
  const auto t0 = Clock::now();
  const Box3& b = h.box;
  const long E = static_cast<long>(h.extent());
  const long off[7] = {0, -1, 1, -b.sy, b.sy, -b.sz, b.sz};
  auto apply = [&](const std::vector<double>& x, std::vector<double>& y) {
#pragma omp parallel for schedule(static)
    for (long L = 0; L < E; ++L) {
      double v = 0;
      if (h.active[L])
        for (int q = 0; q < 7; ++q) v += h.coef[q * E + L] * x[L + off[q]];
      y[L] = v;
    }
  };
  auto precondition = [&](const std::vector<double>& r, std::vector<double>& z) {
    if (!lines) {
#pragma omp parallel for schedule(static)
      for (long L = 0; L < E; ++L) z[L] = h.active[L] ? r[L] / h.coef[L] : 0.0;
      return;
    }
    // Thomas along k in each column: sub-diagonal coef[5], super-diagonal coef[6]
#pragma omp parallel
    {
      std::vector<double> cp(static_cast<std::size_t>(b.nz)), dp(static_cast<std::size_t>(b.nz));
#pragma omp for schedule(static)
      for (long c = 0; c < b.nx * b.ny; ++c) {
        const long i = c % b.nx, j = c / b.nx;
        for (long k = 0; k < b.nz; ++k) {
          const long L = b.at(i, j, k);
          const double a = k > 0 ? h.coef[5 * E + L] : 0.0;
          const double den = h.coef[L] - a * (k > 0 ? cp[k - 1] : 0.0);
          cp[k] = h.coef[6 * E + L] / den;
          dp[k] = (r[L] - a * (k > 0 ? dp[k - 1] : 0.0)) / den;
        }
        double x = 0;
        for (long k = b.nz - 1; k >= 0; --k) {
          x = dp[k] - (k + 1 < b.nz ? cp[k] * x : 0.0);
          z[b.at(i, j, k)] = x;
        }
      }
    }
  };
  auto dot = [&](const std::vector<double>& x, const std::vector<double>& y) {
    double s = 0;
#pragma omp parallel for schedule(static) reduction(+ : s)
    for (long L = 0; L < E; ++L) s += x[L] * y[L];
    return s;
  };
  std::vector<double> r(E, 0.0), z(E, 0.0), p(E, 0.0), q(E, 0.0);  // (the iterate itself is not needed)
  for (long L = 0; L < E; ++L)
    if (h.active[L]) r[L] = 2 * u01(99, static_cast<std::uint64_t>(L)) - 1;
  const double r0 = std::sqrt(dot(r, r));
  precondition(r, z);
  p = z;
  double rz = dot(r, z), alpha_prev = 0, beta_prev = 0, last = INFINITY;
  std::vector<double> d, e;
  Spectrum s;
  for (long it = 0; it < 6000; ++it) {
    apply(p, q);
    const double alpha = rz / dot(p, q);
#pragma omp parallel for schedule(static)
    for (long L = 0; L < E; ++L) r[L] -= alpha * q[L];
    precondition(r, z);
    const double rz_new = dot(r, z), beta = rz_new / rz;
    d.push_back(1 / alpha + (it > 0 ? beta_prev / alpha_prev : 0.0));
    e.push_back(std::sqrt(beta) / alpha);
    alpha_prev = alpha, beta_prev = beta, rz = rz_new;
#pragma omp parallel for schedule(static)
    for (long L = 0; L < E; ++L) p[L] = z[L] + beta * p[L];
    s.iterations = it + 1;
    const bool done = std::sqrt(dot(r, r)) <= 1e-10 * r0;
    if ((it + 1) % 50 == 0 || done) {
      const double now = tridiagonal_min(d, std::vector<double>(e.begin(), e.end() - 1));
      const bool settled = std::fabs(now - last) <= 1e-4 * std::fabs(now);
      last = now;
      if (settled || done) break;
    }
  }
  s.lmin = last;
  s.seconds = since(t0);
  return s;
}

// ---- one solver on one backend ----------------------------------------------------------------

struct Outcome {
  long iterations = 0;
  bool converged = false;
  double relative = -1;  // the solver's own relative residual at the stop
  std::string why;
};

class Runner {
 public:
  virtual ~Runner() = default;
  virtual double setup() { return 0; }    // seconds, waited for
  virtual double refresh() { return -1; } // a second update with the same values; -1: none
  virtual void reset() = 0;               // x = 0, waited for
  virtual Outcome solve(long max_iterations) = 0;
  virtual std::vector<double> solution() = 0;
  virtual std::string facts() const { return ""; }  // what the setup made, for the note
  // the part of the setup done on the host (AMG's hierarchy), the same on every backend; 0: none
  virtual double host_setup_seconds() const { return 0; }
};

// the system's matrix, right-hand side and iterate on a backend
struct DeviceSystem {
  DeviceSystem(Backend& be, const HostSystem& h) : m(be, h.box, h.block), op(m), b(be, h.vector_size()), x(be, h.vector_size()) {
    m.coef.upload(h.coef);
    be.upload(*m.active, h.active.data(), h.active.size() * sizeof(int));
    b.upload(h.rhs);
    x.fill(0.0);
  }
  linalg::Stencil7Matrix<double> m;
  linalg::Stencil7Operator<double> op;
  Field<double> b, x;
};

class KrylovRunner final : public Runner {
 public:
  KrylovRunner(Backend& be, const HostSystem& h, linalg::KrylovMethod method, std::unique_ptr<linalg::Preconditioner<double>> M,
               bool cuda_graphs)
      : be_(be), s_(be, h), M_(std::move(M)) {
    ko_.method = method;
    ko_.tolerance = kLinalgTol;
    ko_.record = cuda_graphs;
  }
  double setup() override { return update(); }
  double refresh() override { return update(); }
  void reset() override {
    s_.x.fill(0.0);
    be_.sync();
  }
  Outcome solve(long max_iterations) override {
    if (!solver_ || ko_.max_iterations != max_iterations) {
      solver_.reset();
      ko_.max_iterations = max_iterations;
      solver_ = std::make_unique<linalg::KrylovSolver<double>>(s_.op, ko_);
    }
    const auto res = solver_->solve(s_.b, s_.x, *M_);
    return Outcome{res.iterations, res.converged, res.true_relative_residual, linalg::to_string(res.reason)};
  }
  std::vector<double> solution() override { return s_.x.download(); }
  double host_setup_seconds() const override {
    if (auto* amg = dynamic_cast<const linalg::Amg<double>*>(M_.get())) return amg->setup_seconds();
    if (auto* amg = float_amg()) return amg->setup_seconds();
    if (auto* cpr = dynamic_cast<const linalg::Cpr<double>*>(M_.get())) return cpr->pressure_setup_seconds();
    return 0;
  }
  std::string facts() const override {
    if (auto* amg = dynamic_cast<const linalg::Amg<double>*>(M_.get()))
      return fmt::format("AMG {} (host setup {:.3f} s of the update)", amg->hierarchy().describe(), amg->setup_seconds());
    if (auto* amg = float_amg())
      return fmt::format("AMG in float {} (host setup {:.3f} s of the update)", amg->hierarchy().describe(),
                         amg->setup_seconds());
    if (auto* cpr = dynamic_cast<const linalg::Cpr<double>*>(M_.get()))
      return fmt::format("CPR's pressure AMG{} {} (host setup {:.3f} s)", cpr->pressure_amg() ? "" : " in float",
                         cpr->pressure_hierarchy().describe(), cpr->pressure_setup_seconds());
    return "";
  }

 private:
  const linalg::Amg<float>* float_amg() const {
    auto* f = dynamic_cast<const linalg::FloatPreconditioner*>(M_.get());
    return f ? dynamic_cast<const linalg::Amg<float>*>(&f->inner()) : nullptr;
  }
  double update() {
    be_.sync();
    const auto t0 = Clock::now();
    M_->update(s_.op);
    be_.sync();
    return since(t0);
  }
  Backend& be_;
  DeviceSystem s_;
  std::unique_ptr<linalg::Preconditioner<double>> M_;
  linalg::KrylovOptions ko_;
  std::unique_ptr<linalg::KrylovSolver<double>> solver_;
};

// Red-black SOR (sor3d, one design) to the relative 2-norm residual: every `every` iterations the
// residual b - A p by the stencil7 family and its square by the vec family's dot, read on the host
// (the sweeps' own max-norm check is off)
class SorRunner final : public Runner {
 public:
  SorRunner(Backend& be, const HostSystem& h, SorDesign design, const std::string& shape, double omega, int every)
      : be_(be),
        s_(be, h),
        coef_(be, h.sor.size()),
        p_(be, h.extent()),
        r_(be, h.extent()),
        dot_(be, 2),
        scratch_(be, design == SorDesign::Zline ? 3 * h.extent() : 1),
        every_(every) {
    coef_.upload(h.sor);
    ctrl_ = be.alloc(kControlBytes);
    a_.prec = Precision::Double;
    a_.box = h.box;
    a_.p = &p_.buffer();
    a_.coef = &coef_.buffer();
    a_.omega = omega;
    a_.threshold = 0;
    a_.check_every = 1 << 30;  // no fused check: the residual is checked here
    a_.design = design;
    a_.shape = parse_box_shape(shape);
    a_.ctrl = ctrl_.get();
    a_.scratch = design == SorDesign::Zline ? &scratch_.buffer() : nullptr;
    for (double v : h.rhs) bb_ += v * v;
    scratch_.fill(0.0);
  }
  void reset() override {
    p_.fill(0.0);
    be_.sync();
  }
  Outcome solve(long max_iterations) override {
    auto sor = be_.sor3d();
    auto vec = be_.vec();
    sor.reset(a_);
    Outcome out;
    double rr = INFINITY;
    long it = 0;
    while (it < max_iterations) {
      const long count = std::min<long>(every_, max_iterations - it);
      sor.iterate(a_, it, count);
      it += count;
      s_.op.residual(s_.b, p_, r_, {});
      vec.dot({Precision::Double, r_.size(), &r_.buffer(), &r_.buffer(), 0, nullptr, nullptr, -1, &dot_.buffer(), nullptr});
      rr = dot_.download()[0];
      if (!std::isfinite(rr)) {
        out.why = "non-finite residual";
        break;
      }
      if (rr <= kLinalgTol * kLinalgTol * bb_) {
        out.converged = true;
        out.why = "converged";
        break;
      }
    }
    if (!out.converged && out.why.empty()) out.why = "limit";
    out.iterations = it;
    out.relative = std::sqrt(rr / std::max(bb_, 1e-300));
    return out;
  }
  std::vector<double> solution() override { return p_.download(); }

 private:
  Backend& be_;
  DeviceSystem s_;  // the stencil of the residual check, b
  Field<double> coef_, p_, r_, dot_, scratch_;
  std::unique_ptr<Buffer> ctrl_;
  Sor3DArgs a_;
  int every_;
  double bb_ = 0;
};

// ---- the rows ---------------------------------------------------------------------------------

struct Solver {
  std::string key;      // --solvers: sor, jacobi, ilu0, amg, amg-w, amg-f, cpr, cpr-f
  std::string variant;  // the row's
  SorDesign design = SorDesign::Simple;
  std::string shape;
  linalg::KrylovMethod method = linalg::KrylovMethod::CG;
};

std::vector<Solver> solvers_for(const HostSystem& h, const std::string& backend) {
  using linalg::KrylovMethod;
  std::vector<Solver> out;
  if (h.block == 1) {
    const bool host = backend == "serial" || backend == "omp";
    out.push_back({"sor", "sor simple", SorDesign::Simple, "march:32x8"});
    if (!host) out.push_back({"sor", "sor tiled", SorDesign::Tiled, "march:32x8"});
    out.push_back({"sor", "sor zline", SorDesign::Zline, "march:32x4"});
    out.push_back({"jacobi", "cg+jacobi", {}, {}, KrylovMethod::CG});
    out.push_back({"ilu0", "cg+ilu0", {}, {}, KrylovMethod::CG});
    out.push_back({"amg", "cg+amg", {}, {}, KrylovMethod::CG});
    out.push_back({"amg-w", "cg+amg(W)", {}, {}, KrylovMethod::CG});  // W-cycle below the finest level
    out.push_back({"amg-f", "cg+amg(float)", {}, {}, KrylovMethod::CG});  // the V-cycle in float under CG in double
  } else {
    out.push_back({"ilu0", "bicgstab+ilu0", {}, {}, KrylovMethod::BiCGSTAB});
    out.push_back({"cpr", "bicgstab+cpr", {}, {}, KrylovMethod::BiCGSTAB});
    out.push_back({"cpr-f", "bicgstab+cpr(f)", {}, {}, KrylovMethod::BiCGSTAB});  // its pressure AMG in float
  }
  return out;
}

// what a solver needs on the backend, counted before anything is allocated
MemoryNeed need_of(const HostSystem& h, const Solver& s) {
  const std::size_t E = h.extent(), B = static_cast<std::size_t>(h.block), vec = B * E * sizeof(double);
  const std::size_t planes = 7 * B * B * E * sizeof(double);
  MemoryNeed need;
  need.what = fmt::format("{} with {} ({} unknowns)", h.label, s.variant, h.unknowns());
  need.total = planes + E * sizeof(int) + 2 * vec;  // the matrix, b, x
  need.largest = std::max(planes, h.sor.size() * sizeof(double));
  if (s.key == "sor") {
    need.total += h.sor.size() * sizeof(double) + 2 * vec + (s.design == SorDesign::Zline ? 3 * vec : 0);  // p, r
  } else {
    need.total += (s.method == linalg::KrylovMethod::CG ? 4 : 7) * vec;
    if (s.key == "jacobi" || s.key == "ilu0") need.total += B * B * E * sizeof(double);
    // AMG: the finest level as CSR (values, columns, the stencil map), the coarse levels and their
    // vectors: about 300 bytes a row of the finest level
    if (s.key == "amg" || s.key == "amg-w") need.total += 300 * E;
    // in float: the hierarchy's values and vectors halved, the operator's float copy, r and z
    if (s.key == "amg-f") need.total += 200 * E + 7 * E * sizeof(float) + 2 * E * sizeof(float);
    if (s.key == "cpr" || s.key == "cpr-f") need.total += 7 * E * sizeof(double) + 300 * E + 4 * E * sizeof(double) + 4 * vec;
  }
  return need;
}

std::unique_ptr<Runner> make_runner(Backend& be, const HostSystem& h, const Solver& s, double omega,
                                    const BenchOptions& o) {
  if (s.key == "sor") return std::make_unique<SorRunner>(be, h, s.design, s.shape, omega, o.sor_check_every);
  std::unique_ptr<linalg::Preconditioner<double>> M;
  const bool cpr = s.key == "cpr" || s.key == "cpr-f";
  linalg::AmgConfig amg = cpr ? linalg::cpr_pressure_amg() : linalg::AmgConfig{};
  amg.degree = o.amg_degree;
  amg.coarse_degree = o.amg_coarse_degree;
  amg.kind = *linalg::chebyshev_of(o.amg_chebyshev);  // checked by the option
  amg.fused = o.amg_fused;
  amg.tail_rows = o.amg_tail_rows;
  amg.upper = o.amg_upper;
  if (o.amg_coarse_size > 0) amg.setup.coarse_size = static_cast<std::size_t>(o.amg_coarse_size);
  amg.w_cycle = s.key == "amg-w";
  if (s.key == "jacobi") M = std::make_unique<linalg::JacobiPreconditioner<double>>();
  else if (s.key == "ilu0") M = std::make_unique<linalg::Ilu0<double>>();
  else if (s.key == "amg" || s.key == "amg-w") M = std::make_unique<linalg::Amg<double>>(amg);
  else if (s.key == "amg-f") M = std::make_unique<linalg::FloatPreconditioner>(std::make_unique<linalg::Amg<float>>(amg));
  else {
    linalg::CprOptions c;
    c.amg = amg;
    c.float_pressure = s.key == "cpr-f";
    M = std::make_unique<linalg::Cpr<double>>(c);
  }
  return std::make_unique<KrylovRunner>(be, h, s.method, std::move(M), o.cuda_graphs);
}

std::string seconds_text(double s) { return s < 1 ? fmt::format("{:.1f} ms", s * 1e3) : fmt::format("{:.2f} s", s); }

}  // namespace

HostSystem linalg_host_system(const LinalgSystem& spec) {
  switch (spec.kind) {
    case LinalgSystem::Kind::Poisson: return poisson(spec.nx);
    case LinalgSystem::Kind::Spe10: return spe10(spec.nx, spec.ny, spec.nz);
    case LinalgSystem::Kind::TwoPhase: return spe10_two_phase(spec.nx, spec.ny, spec.nz);
    case LinalgSystem::Kind::ImpesCase2: break;
  }
  throw ConfigError("--sizes: " + spec.label() + " is built by a model run (bench linalg's systems only)");
}

std::string LinalgSystem::label() const {
  switch (kind) {
    case Kind::Poisson: return fmt::format("poisson{}", nx);
    case Kind::Spe10: return fmt::format("spe10 {}x{}x{}", nx, ny, nz);
    case Kind::TwoPhase: return fmt::format("spe10-2p {}x{}x{}", nx, ny, nz);
    case Kind::ImpesCase2: return fmt::format("impes-case2 day {:g}", day);
  }
  return "";
}

bool parse_linalg_system(const std::string& item, LinalgSystem& out) {
  const int len = static_cast<int>(item.size());
  int used = -1;
  LinalgSystem s;
  if (std::sscanf(item.c_str(), "poisson%ld%n", &s.nx, &used) == 1 && used == len) {
    if (s.nx < 3 || s.nx > 1024) throw ConfigError("--sizes: '" + item + "': a Poisson grid side in [3, 1024]");
    s.kind = LinalgSystem::Kind::Poisson;
    s.ny = s.nz = s.nx;
    out = s;
    return true;
  }
  if (item.rfind("impes-case2", 0) == 0) {
    const std::string rest = item.substr(std::string("impes-case2").size());
    s.kind = LinalgSystem::Kind::ImpesCase2;
    s.day = 225;  // half of the run's 450 days
    if (!rest.empty()) {
      if (used = -1; std::sscanf(rest.c_str(), ":%lf%n", &s.day, &used) != 1 || used != static_cast<int>(rest.size()) ||
                     !(s.day > 0))
        throw ConfigError("--sizes: '" + item + "': impes-case2 or impes-case2:DAY with a day > 0");
    }
    out = s;
    return true;
  }
  for (const auto& [prefix, kind] : {std::pair<std::string, LinalgSystem::Kind>{"spe10-2p", LinalgSystem::Kind::TwoPhase},
                                     {"spe10", LinalgSystem::Kind::Spe10}}) {
    if (item.rfind(prefix, 0) != 0) continue;
    s.kind = kind;
    const std::string rest = item.substr(prefix.size());
    if (rest.empty()) {
      s.nx = 60, s.ny = 220, s.nz = 85;
    } else if (used = -1; std::sscanf(rest.c_str(), ":%ldx%ldx%ld%n", &s.nx, &s.ny, &s.nz, &used) == 3 &&
                          used == static_cast<int>(rest.size())) {
      if (s.nx < 3 || s.ny < 3 || s.nz < 2 || s.nx > 1024 || s.ny > 1024 || s.nz > 1024)
        throw ConfigError("--sizes: '" + item + "': sides in [3, 1024] (nz from 2)");
    } else {
      continue;  // "spe10x": not ours
    }
    out = s;
    return true;
  }
  return false;
}

void bench_linalg_systems(const BenchOptions& o, const std::vector<LinalgSystem>& systems, NamedBackends& backends,
                          std::vector<BenchRow>& rows) {
  if (systems.empty()) return;
  // the solvers asked for
  const auto wanted = split_list(o.solvers);
  for (const auto& w : wanted)
    if (w != "sor" && w != "jacobi" && w != "ilu0" && w != "amg" && w != "amg-w" && w != "amg-f" && w != "cpr" &&
        w != "cpr-f")
      throw ConfigError("--solvers: '" + w + "' is not sor, jacobi, ilu0, amg, amg-w, amg-f, cpr or cpr-f");
  double forced_omega = 0;
  const bool lanczos_always = o.sor_omega == "lanczos";  // the host estimate on Poisson too (checks it)
  if (o.sor_omega != "auto" && !lanczos_always) {
    try {
      std::size_t pos = 0;
      forced_omega = std::stod(o.sor_omega, &pos);
      if (pos != o.sor_omega.size()) throw std::invalid_argument(o.sor_omega);
    } catch (const std::exception&) {
      forced_omega = -1;
    }
    if (!(forced_omega > 0 && forced_omega < 2)) throw ConfigError("--sor-omega: '" + o.sor_omega + "' is not auto, lanczos or a number in (0, 2)");
  }
  if (o.sor_check_every < 1) throw ConfigError("--sor-check-every must be at least 1");
  // impes3d case 2's system needs its case file: said before any system runs
  const auto case2 = std::filesystem::path(o.cases_dir) / "impes_case2.toml";
  for (const auto& spec : systems)
    if (spec.kind == LinalgSystem::Kind::ImpesCase2 && !std::filesystem::exists(case2))
      throw ConfigError("--sizes: " + spec.label() + " needs '" + case2.string() +
                        "' (--cases-dir names the folder of impes_case2.toml)");
  // the backends of the systems: the GPU ones first (their iteration counts let the CPU ones
  // estimate their time before they start), serial only where it was asked for
  const bool serial = serial_asked(o);
  std::vector<std::pair<std::string, Backend*>> order;
  for (auto& [name, be] : backends)
    if (!be->is_host()) order.emplace_back(name, be.get());
  for (auto& [name, be] : backends)
    if (be->is_host() && (name != "serial" || serial)) order.emplace_back(name, be.get());

  auto is_wanted = [&](const std::string& key) {
    // amg-w (the W-cycle), amg-f and cpr-f (in float) only when named: another AMG setup of every system
    if (key == "amg-w" || key == "amg-f" || key == "cpr-f") return std::find(wanted.begin(), wanted.end(), key) != wanted.end();
    return wanted.empty() || std::find(wanted.begin(), wanted.end(), key) != wanted.end();
  };
  // every solver once on a small system of each kind asked for, untimed, so that no setup or solve
  // below pays a program build (OpenCL builds a program at its first use) or a library's first call
  {
    std::vector<HostSystem> small;
    if (std::any_of(systems.begin(), systems.end(), [](const auto& x) { return x.kind != LinalgSystem::Kind::TwoPhase; }))
      small.push_back(poisson(12));
    if (std::any_of(systems.begin(), systems.end(), [](const auto& x) { return x.kind == LinalgSystem::Kind::TwoPhase; }))
      small.push_back(spe10_two_phase(10, 10, 6));
    const auto t0 = Clock::now();
    for (auto& [name, bep] : order)
      for (const HostSystem& h : small)
        for (const Solver& s : solvers_for(h, name)) {
          if (!is_wanted(s.key)) continue;
          try {
            auto run = make_runner(*bep, h, s, 1.5, o);
            run->setup();
            run->refresh();
            run->reset();
            run->solve(200);
          } catch (const Error& e) {
            spdlog::warn("bench linalg: {} {} on a warm-up system: {}", name, s.variant, e.what());
          }
        }
    spdlog::info("bench linalg: the solvers' warm-up took {:.2f} s", since(t0));
  }
  for (const LinalgSystem& spec : systems) {
    const auto t_build = Clock::now();
    // impes3d case 2's system comes from a run of the model, on the first backend (a GPU's where one is benched)
    const HostSystem h = spec.kind == LinalgSystem::Kind::ImpesCase2 ? impes_case2(*order.front().second, o.cases_dir, spec.day)
                                                                      : linalg_host_system(spec);
    spdlog::info("bench linalg: {} built in {:.2f} s ({} unknowns)", h.label, since(t_build), h.unknowns());
    // SOR's omega per kind of design: points (simple, tiled) and z-lines
    double omega_point = forced_omega, omega_line = forced_omega;
    std::string omega_point_how = "given", omega_line_how = "given";
    if (h.block == 1 && is_wanted("sor") && forced_omega == 0) {
      if (h.poisson && !lanczos_always) {
        const double c = std::cos(std::numbers::pi / static_cast<double>(spec.nx + 1));
        omega_point = young(c);
        omega_line = young(4 * c / (6 - 2 * c));
        omega_point_how = "Young's optimum for Poisson, rho_J = cos(pi h)";
        omega_line_how = "Young's optimum for Poisson's z-lines, rho = 4 cos(pi h) / (6 - 2 cos(pi h))";
      } else {
        for (bool lines : {false, true}) {
          const Spectrum sp = host_lmin(h, lines);
          const double w = young(1 - sp.lmin);
          (lines ? omega_line : omega_point) = w;
          (lines ? omega_line_how : omega_point_how) =
              fmt::format("auto: Young's optimum with rho = 1 - lambda_min({}^-1 A) = 1 - {:.4e}, lambda_min from the "
                          "Lanczos matrix of a host PCG ({} iterations, {:.1f} s, not counted)",
                          lines ? "M_zlines" : "D", sp.lmin, sp.iterations, sp.seconds);
          spdlog::info("bench linalg: {}: SOR omega ({}) {:.4f}: {}", h.label, lines ? "z-lines" : "points", w,
                       lines ? omega_line_how : omega_point_how);
        }
      }
    }
    std::map<std::string, std::pair<long, std::string>> known;  // iterations per variant, and the backend that ran it
    std::map<std::string, std::pair<double, std::string>> known_host_setup;  // AMG's host setup seconds, the same
    for (auto& name_bep : order) {
      auto& name = name_bep.first;  // named: lambdas below capture it (clang cannot capture bindings)
      auto& bep = name_bep.second;
      Backend& be = *bep;
      const bool cpu = be.is_host();
      const double budget = cpu ? o.serial_budget : o.device_budget;
      for (const Solver& s : solvers_for(h, name)) {
        if (!is_wanted(s.key)) continue;
        BenchRow row = make_row("linalg", name, be.device_name(), s.variant, "-", "double", h.unknowns(), Timing{}, 0);
        row.layout = h.label;
        row.set("part", std::string("system"));
        row.set("system", h.what);
        row.set("solver", s.key);
        row.set("tolerance", kLinalgTol);
        const bool sor = s.key == "sor";
        const double omega = s.design == SorDesign::Zline ? omega_line : omega_point;
        if (sor) {
          row.set("design", std::string(to_string(s.design)));
          row.set("shape", s.shape);
          row.set("omega", omega);
          row.set("omega_how", s.design == SorDesign::Zline ? omega_line_how : omega_point_how);
          row.set("check_every", static_cast<long>(o.sor_check_every));
        }
        if (s.key == "amg" || s.key == "amg-w" || s.key == "amg-f" || s.key == "cpr" || s.key == "cpr-f") {
          row.set("amg_degree", static_cast<long>(o.amg_degree));
          row.set("amg_coarse_degree", static_cast<long>(o.amg_coarse_degree > 0 ? o.amg_coarse_degree : o.amg_degree));
          row.set("amg_chebyshev", o.amg_chebyshev);
          row.set("amg_fused", o.amg_fused);
          row.set("amg_tail_rows", o.amg_tail_rows);
          row.set("amg_upper", o.amg_upper);
          if (o.amg_coarse_size > 0) row.set("amg_coarse_size", o.amg_coarse_size);
        }
        // whether the Krylov iterations were replayed as CUDA graphs (cuda only: docs/linalg.md)
        if (!sor) row.set("cuda_graphs", o.cuda_graphs && be.can_record());
        auto not_run = [&](const std::string& why) {
          row.ran = false;
          row.note = "not run: " + why;
          spdlog::warn("bench linalg: {} {} {}: {}", name, s.variant, h.label, row.note);
          rows.push_back(row);
        };
        try {
          check_memory(need_of(h, s), Precision::Double, be);
        } catch (const ConfigError& e) {
          not_run(e.what());
          continue;
        }
        if (const auto ks = known_host_setup.find(s.variant); cpu && ks != known_host_setup.end() && ks->second.first > budget) {
          not_run(fmt::format("its setup alone would take more than the CPU budget of {} s a row (--cpu-budget): AMG's "
                              "setup on the host took {} for {}, and it is the same here",
                              budget, seconds_text(ks->second.first), ks->second.second));
          continue;
        }
        try {
          std::unique_ptr<Runner> run = make_runner(be, h, s, omega, o);
          const double setup_s = run->setup();
          if (run->host_setup_seconds() > 0 && !known_host_setup.count(s.variant))
            known_host_setup[s.variant] = {run->host_setup_seconds(), name};
          // a second update with the same values (a new Newton iterate's): on a CPU backend only where
          // the first left budget
          const double refresh_s = !cpu || setup_s <= budget ? run->refresh() : -1;
          // an iteration's time from a short solve (the second: the first builds programs)
          double t_it = 0;
          for (int k = 0; k < 2; ++k) {
            run->reset();
            const auto t0 = Clock::now();
            const Outcome pr = run->solve(kProbeIterations);
            t_it = since(t0) / static_cast<double>(std::max<long>(pr.iterations, 1));
          }
          const long limit = sor ? kSorLimit : kKrylovLimit;
          long cap = limit;
          const auto k = known.find(s.variant);
          if (k != known.end()) {
            const double est = static_cast<double>(k->second.first) * t_it;
            if (est > budget) {
              not_run(fmt::format("a solve would take about {} ({} iterations, as on {}, x {:.3g} ms each) and the "
                                  "{} budget is {} s a row (--{}-budget)",
                                  seconds_text(est), k->second.first, k->second.second, t_it * 1e3, cpu ? "CPU" : "GPU",
                                  budget, cpu ? "cpu" : "gpu"));
              continue;
            }
          } else {
            cap = std::clamp<long>(static_cast<long>(budget / std::max(t_it, 1e-9)), kProbeIterations, limit);
          }
          // the first solve: the iteration count and the time of the repeats
          run->reset();
          auto t0 = Clock::now();
          const Outcome first = run->solve(cap);
          const double t_first = since(t0);
          if (!first.converged && first.why == "limit" && cap < limit) {
            not_run(fmt::format("not at the tolerance within the {} budget of {} s: stopped after {} iterations at a "
                                "relative residual of {:.3e} (--{}-budget)",
                                cpu ? "CPU" : "GPU", budget, first.iterations, first.relative, cpu ? "cpu" : "gpu"));
            continue;
          }
          if (!first.converged) {  // a solver that does not converge within its limit: the row says so
            row.t.median = row.t.min = t_first;
            row.t.reps = 1;
            row.verified = false;
            row.set("iterations", first.iterations);
            row.set("converged", false);
            row.set("setup_s", setup_s);
            row.set("solver_rel_residual", first.relative);
            const double host_rel = host_relative_residual(h, run->solution());
            row.set("rel_residual", host_rel);
            row.note = fmt::format("{}: did not converge: stopped ({}) after {} iterations at a relative residual of "
                                   "{:.3e} ({:.3e} on the host), in {} (the limit: {} iterations)",
                                   s.variant, first.why, first.iterations, first.relative, host_rel, seconds_text(t_first), cap);
            spdlog::error("bench linalg: {} {} {}: {}", name, s.variant, h.label, row.note);
            rows.push_back(row);
            continue;
          }
          // the timed solves: each from x = 0, the same iterations as the first (Krylov: the same batches,
          // which the first solve's count sets)
          const long repeats = std::clamp<long>(static_cast<long>(budget / std::max(t_first, 1e-9)) - 1, 1, o.solves);
          std::vector<double> times;
          Outcome last = first;
          bool same = true;
          for (long r = 0; r < repeats; ++r) {
            run->reset();
            t0 = Clock::now();
            last = run->solve(cap);
            times.push_back(since(t0));
            same = same && last.iterations == first.iterations && last.converged == first.converged;
          }
          std::sort(times.begin(), times.end());
          const double host_rel = host_relative_residual(h, run->solution());
          row.t.median = times[times.size() / 2];
          row.t.min = times.front();
          row.t.reps = static_cast<long>(times.size());
          row.verified = last.converged && same && host_rel <= kLinalgVerifyFactor * kLinalgTol;
          if (last.converged && !known.count(s.variant)) known[s.variant] = {last.iterations, name};
          row.set("iterations", last.iterations);
          row.set("converged", last.converged);
          row.set("setup_s", setup_s);
          if (refresh_s >= 0) row.set("refresh_s", refresh_s);
          if (run->host_setup_seconds() > 0) row.set("host_setup_s", run->host_setup_seconds());
          row.set("solve_s", row.t.median);
          row.set("solves", static_cast<long>(times.size()));
          row.set("first_solve_s", t_first);
          row.set("rel_residual", host_rel);
          row.set("solver_rel_residual", last.relative);
          const std::string facts = run->facts();
          row.note = fmt::format(
              "{}: {} iterations ({}), setup {} ({}), solve {} (median of {} solves from x = 0, each {} iterations{}; "
              "the first, untimed here, took {}), relative residual {:.2e} by the solver, {:.2e} from the solution on "
              "the host in double (verified <= {:.0e}){}{}",
              s.variant, last.iterations, last.why, seconds_text(setup_s),
              sor ? "none: sor3d's colour-packed coefficients are built on the host and uploaded, not timed"
                  : fmt::format("the preconditioner's update, waited for{}",
                                refresh_s >= 0 ? fmt::format("; a second update with the same values {}", seconds_text(refresh_s)) : ""),
              seconds_text(row.t.median), times.size(), last.iterations, same ? "" : ", BUT THE SOLVES DIFFERED",
              seconds_text(t_first), last.relative, host_rel, kLinalgVerifyFactor * kLinalgTol,
              sor ? fmt::format("; omega {:.6f} ({}); the residual b - A p (stencil7) and its square (vec dot, read on "
                                "the host) every {} iterations, so the count is a multiple of {}{}",
                                omega, s.design == SorDesign::Zline ? omega_line_how : omega_point_how, o.sor_check_every,
                                o.sor_check_every,
                                s.design == SorDesign::Zline ? "; zline's column factors are computed in each solve's "
                                                               "first iteration (timed)"
                                                             : "")
                  : "",
              facts.empty() ? "" : "; " + facts);
          if (!row.verified)
            spdlog::error("bench linalg: {} {} {}: not verified: {}", name, s.variant, h.label, row.note);
          spdlog::info("bench linalg: {} {} {}: {} iterations, setup {}, solve {}, residual {:.2e}", name, s.variant,
                       h.label, last.iterations, seconds_text(setup_s), seconds_text(row.t.median), host_rel);
          rows.push_back(row);
        } catch (const Error& e) {
          row.verified = false;
          row.note = std::string("failed: ") + e.what();
          spdlog::error("bench linalg: {} {} {}: {}", name, s.variant, h.label, e.what());
          rows.push_back(row);
        }
      }
    }
  }
  // the speedups over the best SOR of the same system and backend
  for (auto& r : rows) {
    const auto* part = r.get("part");
    if (!part || std::get<std::string>(*part) != "system" || !(r.t.median > 0)) continue;
    const BenchRow* best = nullptr;
    for (const auto& s : rows) {
      const auto* sp = s.get("solver");
      if (s.backend == r.backend && s.layout == r.layout && sp && std::get<std::string>(*sp) == "sor" && s.verified &&
          s.t.median > 0 && (!best || s.t.median < best->t.median))
        best = &s;
    }
    if (!best) continue;
    const auto setup_of = [](const BenchRow& x) {
      const auto* v = x.get("setup_s");
      return v ? std::get<double>(*v) : 0.0;
    };
    r.set("best_sor", best->variant);
    r.set("speedup_vs_best_sor", best->t.median / r.t.median);
    r.set("speedup_vs_best_sor_with_setup", (best->t.median + setup_of(*best)) / (r.t.median + setup_of(r)));
  }
}

void print_linalg_tables(const std::vector<BenchRow>& rows) {
  std::vector<BenchRow> ops, sys;
  for (const auto& r : rows) {
    const auto* p = r.get("part");
    (p && std::get<std::string>(*p) == "system" ? sys : ops).push_back(r);
  }
  if (!ops.empty()) print_rows(ops, "us");
  if (sys.empty()) return;
  fmt::print("\nsystems to a relative residual of 1e-8 in double (solve: median from x = 0; x SOR: the best SOR of the "
             "backend's solve time over this row's; +setup: both with their setups)\n");
  fmt::print("{:<22} {:<7} {:<14} {:>7} {:>10} {:>10} {:>6} {:>9} {:>4} {:>8} {:>8}\n", "system", "backend", "solver",
             "iters", "setup s", "solve s", "solves", "residual", "ok", "x SOR", "+setup");
  auto num = [](const BenchRow& r, const char* key) {
    const auto* v = r.get(key);
    if (!v) return -1.0;
    if (auto* d = std::get_if<double>(v)) return *d;
    if (auto* l = std::get_if<long>(v)) return static_cast<double>(*l);
    return -1.0;
  };
  for (const auto& r : sys) {
    fmt::print("{:<22.22} {:<7} {:<14}", r.layout, r.backend, r.variant);
    if (!(r.t.median > 0)) {
      fmt::print(" {}\n", r.note);
      continue;
    }
    const double sp = num(r, "speedup_vs_best_sor"), sps = num(r, "speedup_vs_best_sor_with_setup");
    fmt::print(" {:>7} {:>10.4f} {:>10.4f} {:>6} {:>9.2e} {:>4} {:>8} {:>8}\n", static_cast<long>(num(r, "iterations")),
               num(r, "setup_s"), r.t.median, r.t.reps, num(r, "rel_residual"), r.verified ? "yes" : "NO",
               sp > 0 ? fmt::format("{:.2f}", sp) : "-", sps > 0 ? fmt::format("{:.2f}", sps) : "-");
  }
}

}  // namespace poreflow::app
