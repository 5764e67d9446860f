// fluids3d as a model: the physics that must hold whatever the backend (the projection's
// divergence, mass under advection, a uniform field, a symmetric source), every backend against
// serial double over whole steps, and bad cases refused with the key named.
#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/io/cases/cases.hpp"
#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/kernels/fluids3d.hpp"
#include "core/models/fluids3d.hpp"
#include "core/models/memory.hpp"
#include "core/run/registry.hpp"
#include "tests/harness.hpp"

using namespace poreflow;
using namespace poreflow::test;

namespace {

template <class T>
struct Built {
  std::unique_ptr<Model> model;
  Fluids3D<T>& get() { return dynamic_cast<Fluids3D<T>&>(*model); }
};

template <class T>
Built<T> build(Backend& be, const std::string& toml) {
  auto cf = io::CaseFile::parse("model = \"fluids3d\"\n" + toml, "test");
  Built<T> r;
  r.model = make_model(cf, be, precision_of<T>());
  cf.check_all_used();
  return r;
}

// a smooth field over the interior: f(x, y, z) at cell centres of an n^3 grid on [0, 1]^3
template <class F>
std::vector<double> sample(long n, F&& f) {
  std::vector<double> v(static_cast<std::size_t>(n * n * n));
  std::size_t q = 0;
  for (long k = 0; k < n; ++k)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i) v[q++] = f((i + 0.5) / n, (j + 0.5) / n, (k + 0.5) / n);
  return v;
}

double total(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return s;
}

}  // namespace

TEST_SUITE("model") {

TEST_CASE("fluids3d: after project the face divergence is below the solver's tolerance") {
  // On the collocated grid the projection makes the divergence of the face velocities (the cell
  // velocities averaged to the faces minus the compact pressure gradient) zero, up to the
  // residual of the pressure solve: h |div_faces| <= 6 x the last sweep's max change (tol).
  for_each_backend([&](Backend& be) {
    const long n = 12;
    auto m = build<double>(be, "grid.n = 12\nsources = []\n");
    auto& f = m.get();
    const auto u = sample(n, [](double x, double y, double z) { return std::sin(3 * x + y) * std::cos(2 * z) + 0.3 * y; });
    const auto v = sample(n, [](double x, double y, double z) { return std::cos(x * y * 5) + z * z; });
    const auto w = sample(n, [](double x, double y, double z) { return std::sin(4 * x) * y - z; });
    f.flow().set(std::vector<double>(u.size(), 0.0), u, v, w);
    const auto U = f.flow().with_ghosts(1), V = f.flow().with_ghosts(2), W = f.flow().with_ghosts(3);
    const double tol = 1e-12;
    const long sweeps = f.scheme().project(f.flow(), tol, 20000);
    CHECK(sweeps < 20000);  // converged
    const auto h_p = f.flow().u0.download();
    const std::vector<double> P(h_p.begin(), h_p.end());  // the pressure, with its ghosts
    const Box3& b = f.flow().box;
    const double h = 1.0 / n;
    double before = 0, after = 0;
    for (long k = 0; k < n; ++k)
      for (long j = 0; j < n; ++j)
        for (long i = 0; i < n; ++i) {
          const long c = b.at(i, j, k);
          const long d[3] = {1, b.sy, b.sz};
          const std::vector<double>* vel[3] = {&U, &V, &W};
          double div0 = 0, div = 0;
          for (int a = 0; a < 3; ++a) {
            const auto& q = *vel[a];
            const double fe = 0.5 * (q[c] + q[c + d[a]]), fw = 0.5 * (q[c - d[a]] + q[c]);
            div0 += fe - fw;
            div += (fe - (P[c + d[a]] - P[c]) / h) - (fw - (P[c] - P[c - d[a]]) / h);
          }
          before = std::max(before, h * std::fabs(div0));
          after = std::max(after, h * std::fabs(div));
        }
    INFO("h |div_faces| before ", before, ", after ", after, ", sweeps ", sweeps);
    CHECK(before > 1e-3);
    CHECK(after <= 6 * tol + 1e-14);
  });
}

TEST_CASE("fluids3d: advection conserves mass to rounding under a uniform translation") {
  // Semi-Lagrangian advection is not conservative in general: the mass changes by
  // sum_j d0_j (sum_i w_ij - 1), the interpolation weights' column sums minus 1. Under a uniform
  // velocity every cell's departure point is the same shift, so every column sums to 1 while the
  // mass stays clear of the walls (its support grows by up to a cell a step along each moving
  // axis): conserved to rounding (6 steps, relative 1e-12 in double).
  for_each_backend([&](Backend& be) {
    const long n = 20;
    const Box3 b = Box3::standalone(n, n, n, 1);
    std::vector<double> d0(b.extent(), 0.0);
    for (long k = 0; k < n; ++k)
      for (long j = 0; j < n; ++j)
        for (long i = 0; i < n; ++i) {
          const double r2 = (i - 9.3) * (i - 9.3) + (j - 9.6) * (j - 9.6) + (k - 9.4) * (k - 9.4);
          d0[b.at(i, j, k)] = r2 < 9 ? 1 + std::cos(std::sqrt(r2) * 3.14159265 / 3) : 0;
        }
    Field<double> fa = make_field(be, d0), fb(be, b.extent());
    fb.fill(std::nan(""));
    // 0.031 x 20 cells x dt 0.5 = 0.31 cells a step along x, less along y and z
    auto fu = make_field(be, std::vector<double>(b.extent(), 0.031));
    auto fv = make_field(be, std::vector<double>(b.extent(), 0.017));
    auto fw = make_field(be, std::vector<double>(b.extent(), -0.023));
    const double m0 = total(d0);
    FluidsAdvectArgs a;
    a.box = b;
    a.u = &fu.buffer();
    a.v = &fv.buffer();
    a.w = &fw.buffer();
    a.dt = 0.5;
    for (int s = 0; s < 6; ++s) {
      a.d0 = &fa.buffer();
      a.d = &fb.buffer();
      be.fluids3d().advect(a);
      fa.swap(fb);
    }
    const auto d = fa.download();
    double m = 0;
    for (long k = 0; k < n; ++k)
      for (long j = 0; j < n; ++j)
        for (long i = 0; i < n; ++i) m += d[b.at(i, j, k)];
    INFO("mass ", m0, " -> ", m);
    CHECK(std::fabs(m - m0) <= 1e-12 * m0);
  });
}

TEST_CASE("fluids3d: with closed walls, no sources and no diffusion the mass drifts as serial double's does") {
  // A swirling flow (projected every step) carries a blob for 20 steps. Semi-Lagrangian advection
  // with trilinear weights does not conserve mass: the change is sum_j d0_j (sum_i w_ij - 1), the
  // weights' column sums minus one, and in this strongly sheared flow it is not small (serial
  // double: 0.21 at N = 16, 0.14 at N = 24; neither monotone in N nor first order in dt: at N = 48
  // the blob gains 0.15 at dt = 0.05 and loses 0.01 at dt = 0.0125, docs/fluids3d.md). So a bound
  // on the drift alone (steps x eps^2 = 0.49) passes a kernel that loses half the mass. What the
  // arithmetic allows is the same drift as serial double's to rounding: every backend's mass after
  // the 20 steps within 1e-9 of the initial mass of serial double's (measured: 0 on omp, 1e-16 on
  // PoCL). serial double's own drift stays under the old bound; the advection cell it shares with
  // every backend is checked exactly by the uniform-translation case above.
  const double pi = 3.14159265358979;
  auto run = [&](Backend& be, long n) {
    auto m = build<double>(be, "grid.n = " + std::to_string(n) +
                                   "\ntime.dt = 0.05\nfluid.viscosity = 0\nfluid.diffusion = 0\nsolver.max_sweeps = 60\n"
                                   "sources = []\n");
    auto& f = m.get();
    // a stream function psi = sin^2(pi x) sin^2(pi y) / (2 pi): u = dpsi/dy, v = -dpsi/dx, zero on the walls
    const auto u = sample(n, [&](double x, double y, double) { return std::pow(std::sin(pi * x), 2) * std::sin(2 * pi * y) / 2; });
    const auto v = sample(n, [&](double x, double y, double) { return -std::sin(2 * pi * x) * std::pow(std::sin(pi * y), 2) / 2; });
    const auto w = sample(n, [](double, double, double) { return 0.0; });
    const auto d = sample(n, [](double x, double y, double z) {
      const double r2 = (x - 0.35) * (x - 0.35) + (y - 0.5) * (y - 0.5) + (z - 0.5) * (z - 0.5);
      return r2 < 0.04 ? 1 + std::cos(std::sqrt(r2) * 3.14159265 / 0.2) : 0.0;
    });
    f.flow().set(d, u, v, w);
    const double m0 = total(f.flow().interior(0));
    for (int s = 0; s < 20; ++s) f.step(1e9);
    return std::pair<double, double>{m0, total(f.flow().interior(0))};
  };
  std::map<long, std::pair<double, double>> refs;  // serial double's run, once per grid
  for_each_backend([&](Backend& be) {
    const long n = be.name() == "opencl" ? 16 : 24;
    if (!refs.count(n)) refs[n] = run(reference(), n);
    const double r0 = refs[n].first, r1 = refs[n].second;  // named: clang's INFO cannot capture structured bindings
    const double eps = 0.05 * pi;  // dt max |grad u| (u in domain units per time): the departure map's strain
    MESSAGE("fluids3d mass drift at N = ", n, ", serial double: ", (r1 - r0) / r0, " (old bound ", 20 * eps * eps, ")");
    CHECK(std::fabs(r1 - r0) / r0 <= 20 * eps * eps);
    const auto got = run(be, n);
    const double b0 = got.first, b1 = got.second;
    INFO("mass ", b0, " -> ", b1, " on ", be.name(), ", serial double ", r0, " -> ", r1);
    CHECK(b0 == doctest::Approx(r0).epsilon(1e-12));
    MESSAGE("fluids3d mass after 20 steps on ", be.name(), " against serial double: ", std::fabs(b1 - r1) / r0);
    CHECK(std::fabs(b1 - r1) <= 1e-9 * r0);
  });
}

TEST_CASE("fluids3d: a uniform density stays uniform") {
  for_each_backend([&](Backend& be) {
    const long n = 10;
    // the solves converged to rounding: a solve stopped at its tolerance leaves errors of that size
    auto m = build<double>(be, "grid.n = 10\nfluid.diffusion = 0.001\nsolver.tolerance = 1e-15\nsolver.max_sweeps = 100\n"
                               "sources = []\n");
    auto& f = m.get();
    const std::size_t cells = static_cast<std::size_t>(n * n * n);
    auto u = random_vector<double>(cells, -0.5, 0.5), v = random_vector<double>(cells, -0.5, 0.5),
         w = random_vector<double>(cells, -0.5, 0.5);
    f.flow().set(std::vector<double>(cells, 2.5), u, v, w);
    for (int s = 0; s < 5; ++s) f.step(1e9);
    const auto d = f.flow().interior(0);
    double worst = 0;
    for (double x : d) worst = std::max(worst, std::fabs(x - 2.5));
    INFO("max |density - 2.5| = ", worst);
    CHECK(worst <= 1e-12 * 2.5);
  });
}

TEST_CASE("fluids3d: a symmetric source stays symmetric") {
  // source and upward (+y) force at the centre of an odd grid: x -> n-1-x and z -> n-1-z mirror
  // the problem (u, w change sign), and the red-black colouring is mirror-symmetric for odd n
  for_each_backend([&](Backend& be) {
    const long n = 9;
    auto m = build<double>(be, "grid.n = 9\n");
    auto& f = m.get();
    for (int s = 0; s < 12; ++s) f.step(1e9);
    const auto d = f.flow().interior(0), u = f.flow().interior(1), v = f.flow().interior(2), w = f.flow().interior(3);
    auto at = [&](long i, long j, long k) { return static_cast<std::size_t>((k * n + j) * n + i); };
    double scale = 0, worst = 0;
    for (double x : d) scale = std::max(scale, std::fabs(x));
    for (double x : v) scale = std::max(scale, std::fabs(x));
    for (long k = 0; k < n; ++k)
      for (long j = 0; j < n; ++j)
        for (long i = 0; i < n; ++i) {
          const auto p = at(i, j, k), mx = at(n - 1 - i, j, k), mz = at(i, j, n - 1 - k);
          worst = std::max({worst, std::fabs(d[p] - d[mx]), std::fabs(d[p] - d[mz]), std::fabs(v[p] - v[mx]),
                            std::fabs(v[p] - v[mz]), std::fabs(u[p] + u[mx]), std::fabs(w[p] + w[mz]), std::fabs(u[p] - u[mz]),
                            std::fabs(w[p] - w[mx])});
        }
    INFO("max asymmetry ", worst, " of scale ", scale);
    CHECK(scale > 1);
    CHECK(worst <= 1e-10 * scale);
  });
}

TEST_CASE_TEMPLATE("fluids3d: whole steps on every backend match serial double", T, float, double) {
  Backend& ref = reference();
  const std::string toml = "grid.n = 14\ntime.steps = 8\n[[sources]]\nquantity = \"density\"\ncell = [6, 4, 7]\nradius = 1\n"
                           "rate = 300.0\n[[sources]]\nquantity = \"force\"\ncell = [6, 4, 7]\nforce = [5.0, 40.0, -3.0]\n";
  auto want = build<double>(ref, toml);
  for (int s = 0; s < 8; ++s) want.get().step(1e9);
  const auto wf = want.model->fields();
  for_each_backend([&](Backend& be) {
    auto got = build<T>(be, toml);
    for (int s = 0; s < 8; ++s) got.get().step(1e9);
    const auto gf = got.model->fields();
    for (std::size_t q = 0; q < wf.size(); ++q) {
      INFO("field ", wf[q].name);
      CHECK(max_rel_diff(gf[q].values, wf[q].values) <= (sizeof(T) == 4 ? 2e-3 : 1e-9));
    }
    const auto st = got.get().scheme().solve_status();
    for (const auto& s : st) CHECK((s.sweeps >= 1 && s.sweeps <= 20));
  });
}

}  // TEST_SUITE

TEST_CASE("fluids3d: bad cases are refused naming the key") {
  Backend& be = reference();
  auto fails = [&](const std::string& toml, const std::string& text) {
    INFO(toml);
    auto cf = io::CaseFile::parse("model = \"fluids3d\"\n" + toml, "test");
    CHECK_THROWS_WITH_AS(make_model(cf, be, Precision::Double), doctest::Contains(text.c_str()), ConfigError);
  };
  fails("grid.n = 0", "grid.n");
  fails("fluid.viscosity = -1e-4", "fluid.viscosity");
  fails("fluid.diffusion = -1", "fluid.diffusion");
  fails("grid.n = 10\n[[sources]]\ncell = [3, 10, 3]\n", "sources[0].cell");
  fails("grid.n = 10\n[[sources]]\ncell = [1, 1, 1]\nradius = 2\n", "sources[0].cell");
  fails("[[sources]]\nquantity = \"force\"\n", "sources[0].force");
  fails("solver.projection = \"exact\"", "solver.projection");
  fails("solver.shape = \"3d:3x3x3\"", "solver.shape");
  // a grid too large for the backend: refused before anything is allocated, naming the need
  auto big = io::CaseFile::parse("model = \"fluids3d\"\ngrid.n = 60000\n", "test");
  const MemoryNeed need = fluids3d_need(read_fluids3d_config(big), Precision::Float, true);
  CHECK(need.total >= std::size_t(8) * 60002 * 60002 * 60002 * 4);
  auto cf = io::CaseFile::parse("model = \"fluids3d\"\ngrid.n = 60000\n", "test");
  CHECK_THROWS_WITH_AS(make_model(cf, be, Precision::Float), doctest::Contains("needs"), ConfigError);
}
