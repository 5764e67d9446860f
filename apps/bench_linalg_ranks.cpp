// poreflow bench linalg-ranks: the scalar systems of bench linalg (poissonN, spe10[:NXxNYxNZ]) cut
// into one box per MPI process (docs/mpi.md) and solved from x = 0 to a relative residual of 1e-8
// in double. The solvers are CG with Jacobi (the same preconditioner however the grid is cut), CG
// with ILU0 or AMG per process (amg-local: block Jacobi across processes), and CG with AMG whose
// coarse level spans the processes (amg, core/linalg/amg_global.hpp).
//
// Each row records:
// - the iterations;
// - the setup (the slowest process's);
// - the median of the solves (the slowest process's each time);
// - the true relative residual of the whole grid, recomputed from every process's rows.
//
// Run it as `mpirun -n P poreflow bench linalg-ranks ...`, once per process count. Rank 0 prints
// and writes the JSON.
#include <fmt/core.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "apps/bench_linalg.hpp"
#include "apps/bench_kinds.hpp"
#include "apps/common.hpp"
#include "core/base/error.hpp"
#include "core/comm/decomposition.hpp"
#include "core/comm/halo_exchange.hpp"
#include "core/comm/mpi.hpp"
#include "core/linalg/amg.hpp"
#include "core/linalg/ilu.hpp"
#include "core/linalg/jacobi.hpp"
#include "core/linalg/krylov.hpp"
#include "core/linalg/stencil7.hpp"

namespace poreflow::app {
namespace {

using Clock = std::chrono::steady_clock;

// This process's rows of the global system: its box (halo 1) with the coefficients to the cells
// across its faces kept (those are the neighbours' cells; the operator reads them after an exchange).
struct LocalSystem {
  Box3 box;
  std::vector<double> coef, rhs;
  std::vector<int> active;
};

LocalSystem local_part(const HostSystem& h, const RankBox& r) {
  LocalSystem s;
  s.box = Box3::standalone(r.nx, r.ny, r.nz, 1);
  const std::size_t e = s.box.extent(), eg = h.extent();
  s.coef.assign(7 * e, 0.0);
  s.rhs.assign(e, 0.0);
  s.active.assign(e, 0);
  for (long k = 0; k < r.nz; ++k)
    for (long j = 0; j < r.ny; ++j)
      for (long i = 0; i < r.nx; ++i) {
        const auto L = static_cast<std::size_t>(s.box.at(i, j, k));
        const auto G = static_cast<std::size_t>(h.box.at(r.i0 + i, r.j0 + j, r.k0 + k));
        for (std::size_t q = 0; q < 7; ++q) s.coef[q * e + L] = h.coef[q * eg + G];
        s.rhs[L] = h.rhs[G];
        s.active[L] = h.active[G];
      }
  return s;
}

std::unique_ptr<linalg::Preconditioner<double>> make_preconditioner(const std::string& name, const Communicator& comm) {
  if (name == "jacobi") return std::make_unique<linalg::JacobiPreconditioner<double>>();
  if (name == "ilu0") return std::make_unique<linalg::Ilu0<double>>();
  linalg::AmgConfig c;  // AmgAcross::None: per process
  if (name == "amg-local") return std::make_unique<linalg::Amg<double>>(c, comm);
  c.across = linalg::AmgAcross::Multiplicative;  // symmetric, for CG
  if (name == "amg") return std::make_unique<linalg::Amg<double>>(c, comm);
  throw ConfigError("--solvers: '" + name + "' (linalg-ranks: jacobi, ilu0, amg, amg-local)");
}

}  // namespace

template <>
void bench_linalg_ranks<double>(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList&) {
  const mpi::Session* session = mpi::Session::current();
  std::vector<LinalgSystem> systems;
  for (const auto& item : split_list(o.sizes.empty() ? "poisson128,spe10" : o.sizes)) {
    LinalgSystem s;
    if (!parse_linalg_system(item, s) || s.kind == LinalgSystem::Kind::TwoPhase || s.kind == LinalgSystem::Kind::ImpesCase2)
      throw ConfigError("--sizes: '" + item + "' (linalg-ranks: poissonN, spe10[:NXxNYxNZ])");
    systems.push_back(s);
  }
  const auto solvers = split_list(o.solvers.empty() ? "jacobi,ilu0,amg-local,amg" : o.solvers);
  auto names = o.backends.empty() ? std::vector<std::string>{"omp"} : split_list(o.backends);
  for (const LinalgSystem& spec : systems) {
    const HostSystem h = linalg_host_system(spec);
    for (const auto& name : names) {
      auto be = make_backend(name, bo);
      auto comm = session ? session->world(*be) : std::unique_ptr<Communicator>();
      const Communicator& c = comm ? *comm : self_communicator();
      std::vector<char> act(static_cast<std::size_t>(h.box.cells()));
      for (long k = 0; k < h.box.nz; ++k)
        for (long j = 0; j < h.box.ny; ++j)
          for (long i = 0; i < h.box.nx; ++i)
            act[static_cast<std::size_t>(i + h.box.nx * (j + h.box.ny * k))] = h.active[static_cast<std::size_t>(h.box.at(i, j, k))] != 0;
      const Decomposition d = decompose(h.box.nx, h.box.ny, h.box.nz, c.size(), act);
      const LocalSystem ls = local_part(h, d.box(c.rank()));
      HaloExchange ex(c, d, *be, ls.box, Precision::Double);
      linalg::Stencil7Matrix<double> m(*be, ls.box, 1);
      m.coef.upload(ls.coef);
      be->upload(*m.active, ls.active.data(), ls.active.size() * sizeof(int));
      linalg::Stencil7Operator<double> op(m);
      op.set_exchange(&ex);
      Field<double> b(*be, ls.rhs.size()), x(*be, ls.rhs.size()), r(*be, ls.rhs.size());
      b.upload(ls.rhs);
      double bnorm2 = 0;
      for (double v : ls.rhs) bnorm2 += v * v;
      bnorm2 = c.sum(bnorm2);
      for (const auto& sname : solvers) {
        auto M = make_preconditioner(sname, c);
        (void)c.sum(0.0);  // every process starts the setup together
        auto t0 = Clock::now();
        M->update(op);
        be->sync();
        const double setup = c.max(since(t0));
        linalg::KrylovOptions ko;
        ko.tolerance = kLinalgTol;
        ko.max_iterations = 20000;
        linalg::KrylovSolver<double> cg(op, ko, c);
        std::vector<double> times;
        linalg::KrylovResult res;
        for (int rep = 0; rep < std::max(1, o.solves); ++rep) {
          x.fill(0.0);
          be->sync();
          (void)c.sum(0.0);
          t0 = Clock::now();
          res = cg.solve(b, x, *M);
          be->sync();
          times.push_back(c.max(since(t0)));
        }
        std::sort(times.begin(), times.end());
        op.residual(b, x, r, {});
        const auto rv = r.download();
        double rn2 = 0;
        for (double v : rv) rn2 += v * v;
        const double rel = std::sqrt(c.sum(rn2) / bnorm2);
        BenchRow row = make_row("linalg-ranks", name, be->device_name(), "cg+" + sname, "", "double",
                                static_cast<std::size_t>(h.box.cells()), Timing{times[times.size() / 2], times.front(), 1}, 0);
        row.verified = res.converged && rel <= kLinalgVerifyFactor * kLinalgTol;
        row.checked = fmt::format("converged to {:g} and the residual of the whole grid recomputed from every process's rows "
                                  "within {:g}x of it",
                                  kLinalgTol, kLinalgVerifyFactor);
        row.timing = "the slowest process's wall clock of each solve from x = 0 (all start after a reduction), median of the solves";
        row.note = h.label + "; " + d.describe();
        row.set("system", h.label);
        row.set("processes", static_cast<long>(c.size()));
        row.set("decomposition", d.describe());
        row.set("iterations", res.iterations);
        row.set("setup_s", setup);
        row.set("solve_s", times[times.size() / 2]);
        row.set("true_relative_residual", rel);
        row.set("halo_bytes_per_exchange", static_cast<long>(c.sum(static_cast<long>(ex.bytes_per_exchange()))));
        rows.push_back(std::move(row));
      }
    }
  }
}

template <>
void bench_linalg_ranks<float>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&) {
  throw ConfigError("bench linalg-ranks runs in double only (--precision double)");
}

void print_linalg_ranks_table(const std::vector<BenchRow>& rows) {
  auto num = [](const BenchRow& r, const char* k) -> double {
    const auto* v = r.get(k);
    if (!v) return 0;
    if (auto* l = std::get_if<long>(v)) return static_cast<double>(*l);
    if (auto* d = std::get_if<double>(v)) return *d;
    return 0;
  };
  fmt::print("{:<22} {:<8} {:>9} {:<10} {:>10} {:>10} {:>10} {}\n", "system", "backend", "processes", "solver", "iterations",
             "setup", "solve", "verified");
  for (const auto& r : rows) {
    const auto* sys = r.get("system");
    fmt::print("{:<22} {:<8} {:>9} {:<10} {:>10} {:>9.3f}s {:>9.4f}s {}\n", sys ? std::get<std::string>(*sys) : "", r.backend,
               static_cast<long>(num(r, "processes")), r.variant, static_cast<long>(num(r, "iterations")), num(r, "setup_s"),
               num(r, "solve_s"), r.verified ? "yes" : "NO");
  }
}

}  // namespace poreflow::app
