#include "tests/mpi/mpi_harness.hpp"

#include <cmath>
#include <map>
#include <random>

#include "tests/harness.hpp"

namespace poreflow::test {

mpi::Session*& mpi_session() {
  static mpi::Session* s = nullptr;
  return s;
}

const Communicator& world(Backend& be) {
  static std::map<Backend*, std::unique_ptr<Communicator>> comms;
  auto& c = comms[&be];
  if (!c) c = mpi_session()->world(be);
  return *c;
}

GlobalProblem make_global_problem(long gx, long gy, long gz, unsigned holes, double decades) {
  GlobalProblem p;
  p.gx = gx, p.gy = gy, p.gz = gz;
  const std::size_t n = static_cast<std::size_t>(p.cells());
  std::uniform_real_distribution<double> u(-1, 1);
  p.active.resize(n);
  for (auto& a : p.active) a = holes == 0 || rng()() % holes != 0;
  auto face = [&]() { return std::pow(10.0, 0.5 * decades * u(rng())); };
  p.tx.resize(n), p.ty.resize(n), p.tz.resize(n);
  for (std::size_t c = 0; c < n; ++c) p.tx[c] = face(), p.ty[c] = face(), p.tz[c] = 0.3 * face();
  p.xstar.assign(n, 0.0);
  for (std::size_t c = 0; c < n; ++c)
    if (p.active[c]) p.xstar[c] = u(rng());
  // b = A x*, from the local rows of one box holding the whole grid
  const LocalRows all = local_rows(p, RankBox{0, 0, 0, gx, gy, gz}, 1);
  const Box3& bx = all.box;
  const std::size_t e = bx.extent();
  const long off[7] = {0, -1, 1, -bx.sy, bx.sy, -bx.sz, bx.sz};
  p.b.assign(n, 0.0);
  for (std::size_t L = 0; L < e; ++L) {
    if (!all.active[L]) continue;
    double y = 0;
    for (int q = 0; q < 7; ++q) {
      const long N = static_cast<long>(L) + off[q];
      const long g = all.global[static_cast<std::size_t>(N)];
      if (g >= 0) y += all.coef[q * e + L] * p.xstar[static_cast<std::size_t>(g)];
    }
    p.b[static_cast<std::size_t>(all.global[L])] = y;
  }
  return p;
}

LocalRows local_rows(const GlobalProblem& p, const RankBox& r, long halo) {
  LocalRows o;
  o.box = Box3::standalone(r.nx, r.ny, r.nz, halo);
  const Box3& bx = o.box;
  const std::size_t e = bx.extent();
  o.coef.assign(7 * e, 0.0);
  o.active.assign(e, 0);
  o.b.assign(e, 0.0);
  o.global.assign(e, -1);
  auto inside = [&](long I, long J, long K) { return I >= 0 && J >= 0 && K >= 0 && I < p.gx && J < p.gy && K < p.gz; };
  for (long k = -halo; k < r.nz + halo; ++k)
    for (long j = -halo; j < r.ny + halo; ++j)
      for (long i = -halo; i < r.nx + halo; ++i) {
        const long I = r.i0 + i, J = r.j0 + j, K = r.k0 + k;
        if (inside(I, J, K)) o.global[static_cast<std::size_t>(bx.at(i, j, k))] = p.at(I, J, K);
      }
  for (long k = 0; k < r.nz; ++k)
    for (long j = 0; j < r.ny; ++j)
      for (long i = 0; i < r.nx; ++i) {
        const long I = r.i0 + i, J = r.j0 + j, K = r.k0 + k, g = p.at(I, J, K);
        const std::size_t L = static_cast<std::size_t>(bx.at(i, j, k));
        if (!p.active[static_cast<std::size_t>(g)]) continue;
        o.active[L] = 1;
        o.b[L] = p.b.empty() ? 0.0 : p.b[static_cast<std::size_t>(g)];
        // the six faces: the transmissibility of the face, stored at its lower cell
        const long di[7] = {0, -1, 1, 0, 0, 0, 0}, dj[7] = {0, 0, 0, -1, 1, 0, 0}, dk[7] = {0, 0, 0, 0, 0, -1, 1};
        double diag = 0;
        for (int q = 1; q < 7; ++q) {
          const long In = I + di[q], Jn = J + dj[q], Kn = K + dk[q];
          const long lo = q % 2 ? (inside(In, Jn, Kn) ? p.at(In, Jn, Kn) : -1) : g;  // the face's lower cell
          const int axis = (q - 1) / 2;
          double t;
          if (q % 2 && lo < 0) t = (axis == 0 ? p.tx : axis == 1 ? p.ty : p.tz)[static_cast<std::size_t>(g)];  // the grid's low edge
          else t = (axis == 0 ? p.tx : axis == 1 ? p.ty : p.tz)[static_cast<std::size_t>(lo)];
          diag += t;  // Dirichlet 0 beyond the grid and at holes: the face still counts in the diagonal
          if (inside(In, Jn, Kn) && p.active[static_cast<std::size_t>(p.at(In, Jn, Kn))]) o.coef[q * e + L] = -t;
        }
        o.coef[L] = diag;
      }
  return o;
}

}  // namespace poreflow::test
