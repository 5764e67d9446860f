#pragma once
// The host side of aggregation AMG (docs/linalg.md): from the pattern and values of a scalar
// matrix, the hierarchy of smoothed aggregation with a strength threshold, and for each level
// the plan that refreshes its values from the level above on the device when only the values
// change (the amg family's kernels run the plans; amg_refresh_host runs them here, the reference).
//
//   strength:     j is a strong neighbour of i when a_ij^2 >= eps^2 |a_ii a_jj| (eps halves per level)
//   aggregates:   a node whose strong neighbours are all free seeds an aggregate with them; the
//                 rest join the aggregate of a strong neighbour, or seed one with their free
//                 strong neighbours; a node without strong neighbours belongs to none
//   prolongator:  P = (I - omega D_F^-1 A_F) P_tent, A_F the strong part of A with the weak
//                 entries of a row added to its diagonal (d_F), P_tent piecewise constant,
//                 omega = 1.5 / rho, rho the estimate of D_F^-1 A_F's spectral radius (fixed at setup)
//   spectra:      each level's D^-1 A spectral radius estimated by power iteration, kept as its ratio
//                 to the Gershgorin bound (at most 1): the device scales its refreshed bound by it
//   coarse level: A_c = R A P with R = P^T
// The hierarchy stops at `coarse_size` rows, at `max_levels`, or when a level does not coarsen.
#include <cstddef>
#include <string>
#include <vector>

#include "core/linalg/csr.hpp"

namespace poreflow::linalg {

struct AmgOptions {
  double strength = 0.08;      // eps of the strength test on the finest level
  std::size_t coarse_size = 500;  // a level of at most this many rows is solved directly
  int max_levels = 20;
  // 1.5 rather than the textbook 4/3: the power estimate of rho is from below, and 1.5 took fewer
  // iterations on Poisson 64^3-128^3 and the SPE10-shaped system (docs/linalg.md)
  double omega_scale = 1.5;
  // Power iterations that estimate each level's spectral radius of D^-1 A (and of D_F^-1 A_F for
  // omega); 0: the Gershgorin bounds. On coarse levels Gershgorin overestimates it 1.5-5x
  // (positive off-diagonal entries), which weakens the smoothers and the prolongator.
  int spectrum_iterations = 30;
  // What to do when the finest level cannot be coarsened (no strong connections, or no aggregate
  // smaller than its rows): an error naming why (false), or a single level whose smoother is the
  // whole preconditioner (true).
  bool fallback = false;
  // The case keys of these two for the refusal's message ("pressure": pressure.amg_strength and
  // pressure.amg_fallback); empty: the options' own names.
  std::string keys;
};

// One level's refresh: P's values from the level's A values, R's from P's, the next A from
// R A P. Positions index the CSR value arrays of A, P, R and A_c.
struct AmgLevelPlan {
  CsrPattern A;               // this level's matrix
  std::vector<int> agg;       // each row's aggregate, -1: none (an empty row, or no strong neighbour)
  // the filtered diagonal d_F(i): A's entry at diag_pos[i] (-1: none) plus the weak entries of the row
  std::vector<int> diag_pos;
  std::vector<int> weak_ptr, weak;  // per row: positions in A
  // P: per entry, the positions in A of the strong entries a_ij with agg(j) = the entry's column
  // (src), and whether the column is the row's own aggregate (own)
  CsrPattern P;
  std::vector<int> src_ptr, src;
  std::vector<char> own;
  double omega = 0;
  // R = P^T: entry k's value is P's entry r_from_p[k]
  CsrPattern R;
  std::vector<int> r_from_p;
  CsrPattern Ac;  // the next level's pattern
};

struct AmgHierarchy {
  std::vector<AmgLevelPlan> levels;  // every level but the coarsest
  CsrPattern coarsest;               // solved directly (dense), or smoothed when too large (amg.cpp)
  std::vector<double> eps;           // the strength threshold of each level
  // every level's (the coarsest's last) power-iteration estimate of D^-1 A's spectral radius over
  // its Gershgorin bound, in (0, 1]; 1 without the estimate
  std::vector<double> spectrum_ratio;
  std::string describe() const;      // "3 levels: 4913 -> 390 -> 31 rows"
};

// Builds the hierarchy from level 0's pattern and values (n x n, one value per entry). Throws
// ConfigError naming the reason when level 0 cannot be coarsened and options.fallback is false.
AmgHierarchy amg_setup(const CsrPattern& A, const std::vector<double>& values, const AmgOptions& o);

// The plan's arithmetic on the host, in double: P's values from A's, then R's, then A_c's (the
// reference of the amg family's kernels; the setup uses it too).
void amg_p_values(const AmgLevelPlan& L, const std::vector<double>& a, std::vector<double>& p);
void amg_galerkin(const AmgLevelPlan& L, const std::vector<double>& a, const std::vector<double>& p,
                  const std::vector<double>& r, std::vector<double>& ac);

// The Gershgorin bound of D^-1 A (max over rows of sum_j |a_ij| / |a_ii|), for the smoothers.
double gershgorin_dinv_a(const CsrPattern& A, const std::vector<double>& a);

// The spectral radius of D^-1 A estimated by `iterations` steps of the power method on the similar
// D^-1/2 A D^-1/2 (|a_ii| in D; rows without a nonzero diagonal left out), from a fixed
// pseudo-random start: ||S u|| / ||u|| of the last iterate, which is at most the radius for a
// symmetric A and approaches it from below. 0 for an empty matrix.
double power_dinv_a(const CsrPattern& A, const std::vector<double>& a, int iterations);

// The inverse of a small dense matrix (the coarsest level), row-major, by LU with partial
// pivoting. Throws NumericalError naming the row when it is singular.
std::vector<double> dense_inverse(const CsrPattern& A, const std::vector<double>& a);

// Rows [first, first + count) of the inverse of the dense n x n matrix a (row-major), by LU with
// partial pivoting and a solve with the transposed factors for each row; count x n row-major
// (AMG's coarse level across processes keeps only its process's rows). NumericalError naming
// `what` and the pivot's row when a is singular.
std::vector<double> dense_inverse_rows(std::size_t n, std::vector<double> a, std::size_t first, std::size_t count,
                                       const std::string& what);

}  // namespace poreflow::linalg
