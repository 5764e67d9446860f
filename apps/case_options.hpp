#pragma once
// The options of subcommands that take a case: the file, --set, and shortcuts for common keys.
#include <CLI/CLI.hpp>

#include <string>

#include "apps/common.hpp"
#include "apps/options.hpp"

namespace poreflow::app {

struct CaseOptions {
  std::string path;
};

inline void add_case_options(CLI::App& sub, Common& c, CaseOptions& co) {
  sub.add_option("case", co.path, "case file (TOML), e.g. cases/buckley_leverett.toml, or an Eclipse deck (.DATA) for impes3d")->required();
  sub.add_option("--set", c.sets, "override a case key, e.g. --set grid.points=401 (repeatable)");
  sub.add_option("--reduction", c.reduction,
                 "reduction of the convergence test: fast, complete_unroll, unroll_last_warp, sequential, "
                 "interleaved, interleaved_divergent (GPU); blocked, omp_reduction (omp); serial; auto");
  sub.add_option("--combine", c.combine, "how block results are combined: atomic (device) or host");
  sub.add_option("--block", c.block, "threads per block for the paper reductions (power of two, 32..1024)")
      ->check(int_in(32, 1024));
  sub.add_option("--check-every", c.check_every, "test convergence every K iterations")->check(int_in(1, 1 << 20));
  sub.add_option("--pressure-solver", c.pressure_solver, "bl1d: jacobi (paper 000) or tridiag (exact)");
  sub.add_option("--algorithm", c.algorithm, "tridiagonal algorithm: thomas, cr, pcr, cr_pcr, pcr_thomas, auto");
}

}  // namespace poreflow::app
