#pragma once
// Test problems of AMG on every backend (tests/test_amg_solve.cpp, tests/test_amg_tail.cpp): a
// heterogeneous anisotropic finite-volume diffusion on a 7-point stencil, on the device, its random
// right-hand side, and CG preconditioned on it.
#include <cmath>
#include <random>
#include <vector>

#include "core/linalg/krylov.hpp"
#include "core/linalg/stencil7.hpp"
#include "tests/harness.hpp"

namespace poreflow::test {

using namespace poreflow::linalg;

// A finite-volume diffusion on an n x n x n box with Dirichlet 0 outside: face transmissibilities
// k-harmonic (log-normal k of `decades` decades; 0: Poisson), anisotropy kv/kh, an accumulation
// term `acc` on the diagonal.
struct Diffusion {
  Box3 box;
  std::vector<double> coef;
  std::vector<int> active;
};

inline Diffusion diffusion(long nx, long ny, long nz, double decades, double kvkh = 1, double acc = 0, unsigned seed = 1) {
  Diffusion d;
  d.box = Box3::standalone(nx, ny, nz, 1);
  const Box3& b = d.box;
  const std::size_t e = b.extent();
  d.coef.assign(7 * e, 0.0);
  d.active.assign(e, 0);
  std::vector<double> k(e, 1.0);
  std::mt19937 g(seed);
  std::normal_distribution<double> nd(0, decades / 4.0);
  for (long z = 0; z < nz; ++z)
    for (long y = 0; y < ny; ++y)
      for (long x = 0; x < nx; ++x) {
        d.active[b.at(x, y, z)] = 1;
        if (decades > 0) k[b.at(x, y, z)] = std::pow(10.0, nd(g));
      }
  const long off[7] = {0, -1, 1, -b.sy, b.sy, -b.sz, b.sz};
  for (long z = 0; z < nz; ++z)
    for (long y = 0; y < ny; ++y)
      for (long x = 0; x < nx; ++x) {
        const long L = b.at(x, y, z);
        double diag = acc;
        for (int q = 1; q < 7; ++q) {
          const long N = L + off[q];
          const double w = q >= 5 ? kvkh : 1.0;
          const double t = d.active[N] ? w * 2 / (1 / k[L] + 1 / k[N]) : w * 2 * k[L];  // Dirichlet outside
          diag += t;
          if (d.active[N]) d.coef[q * e + L] = -t;
        }
        d.coef[L] = diag;
      }
  return d;
}

// holes: about one cell in `every` no unknown, its couplings gone (the neighbours keep theirs to it
// on the diagonal, as a Dirichlet face)
inline void punch_holes(Diffusion& d, unsigned seed, unsigned every) {
  const Box3& bx = d.box;
  const std::size_t e = bx.extent();
  const long off[7] = {0, -1, 1, -bx.sy, bx.sy, -bx.sz, bx.sz};
  std::mt19937 g(seed);
  for (std::size_t L = 0; L < e; ++L)
    if (d.active[L] && g() % every == 0) d.active[L] = 0;
  for (std::size_t L = 0; L < e; ++L)
    for (int q = 0; q < 7; ++q)
      if (!d.active[L] || (q > 0 && !d.active[static_cast<std::size_t>(static_cast<long>(L) + off[q])]))
        d.coef[q * e + L] = 0;
}

template <class T>
struct OnDevice {
  OnDevice(Backend& be, const Diffusion& d) : m(be, d.box, 1), op(m) {
    m.coef.upload(convert<T>(d.coef));
    be.upload(*m.active, d.active.data(), d.active.size() * sizeof(int));
  }
  Stencil7Matrix<T> m;
  Stencil7Operator<T> op;
};

template <class T>
std::vector<double> random_rhs(const Diffusion& d) {
  std::vector<double> b(d.box.extent(), 0.0);
  std::mt19937 g(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t l = 0; l < b.size(); ++l)
    if (d.active[l]) b[l] = u(g);
  return b;
}

inline double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

// CG preconditioned by M on d's system with a random right-hand side, from 0
template <class T>
KrylovResult cg_amg(Backend& be, const Diffusion& d, OnDevice<T>& dev, const Preconditioner<T>& M, double tol,
                    int max_iterations) {
  KrylovOptions o;
  o.tolerance = tol;
  o.max_iterations = max_iterations;
  KrylovSolver<T> cg(dev.op, o);
  auto b = make_field(be, convert<T>(random_rhs<T>(d)));
  Field<T> x(be, dev.op.size());
  x.fill(T(0));
  return cg.solve(b, x, M);
}


}  // namespace poreflow::test
