#include "core/linalg/amg_setup.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "core/base/error.hpp"

namespace poreflow::linalg {

namespace {

constexpr int kFree = -2;  // a row not yet in an aggregate (-1: in none, for good)

// The strong off-diagonal entries of each row (by position in A).
std::vector<char> strong_entries(const CsrPattern& A, const std::vector<double>& a, const std::vector<int>& diag_pos,
                                 double eps) {
  std::vector<char> strong(A.nnz(), 0);
  const double e2 = eps * eps;
  for (std::size_t i = 0; i < A.rows; ++i) {
    if (diag_pos[i] < 0) continue;
    const double aii = std::fabs(a[static_cast<std::size_t>(diag_pos[i])]);
    for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k) {
      const int j = A.col[k];
      if (static_cast<std::size_t>(j) == i || diag_pos[j] < 0) continue;
      const double ajj = std::fabs(a[static_cast<std::size_t>(diag_pos[j])]);
      strong[k] = a[k] * a[k] >= e2 * aii * ajj && a[k] != 0;
    }
  }
  return strong;
}

// Aggregates (Vanek, Mandel, Brezina): returns their number; agg[i] is each row's, -1 none.
std::size_t aggregate(const CsrPattern& A, const std::vector<double>& a, const std::vector<char>& strong, std::vector<int>& agg) {
  const std::size_t n = A.rows;
  agg.assign(n, kFree);
  auto has_strong = [&](std::size_t i) {
    for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
      if (strong[k]) return true;
    return false;
  };
  for (std::size_t i = 0; i < n; ++i)
    if (!has_strong(i)) agg[i] = -1;
  int count = 0;
  // 1: a node whose strong neighbours are all free seeds an aggregate with them
  for (std::size_t i = 0; i < n; ++i) {
    if (agg[i] != kFree) continue;
    bool all_free = true;
    for (int k = A.ptr[i]; k < A.ptr[i + 1] && all_free; ++k)
      if (strong[k] && agg[A.col[k]] != kFree) all_free = false;
    if (!all_free) continue;
    agg[i] = count;
    for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
      if (strong[k]) agg[A.col[k]] = count;
    ++count;
  }
  // 2: the rest join the aggregate (of pass 1) of their strongest neighbour in one, the first
  // in column order among equals: the same aggregates on every machine
  std::vector<int> pass1(agg);
  for (std::size_t i = 0; i < n; ++i) {
    if (agg[i] != kFree) continue;
    double best = -1;
    for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k) {
      const int j = A.col[k];
      if (strong[k] && pass1[j] >= 0 && std::fabs(a[k]) > best) {
        best = std::fabs(a[k]);
        agg[i] = pass1[j];
      }
    }
  }
  // 3: what is left seeds aggregates with its free strong neighbours
  for (std::size_t i = 0; i < n; ++i) {
    if (agg[i] != kFree) continue;
    agg[i] = count;
    for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
      if (strong[k] && agg[A.col[k]] == kFree) agg[A.col[k]] = count;
    ++count;
  }
  return static_cast<std::size_t>(count);
}

}  // namespace

void amg_p_values(const AmgLevelPlan& L, const std::vector<double>& a, std::vector<double>& p) {
  p.assign(L.P.nnz(), 0.0);
  const long rows = static_cast<long>(L.P.rows);
#pragma omp parallel for schedule(static)  // row by row, as the galerkin product below
  for (long i = 0; i < rows; ++i) {
    if (L.P.ptr[i] == L.P.ptr[i + 1]) continue;
    double dF = L.diag_pos[i] >= 0 ? a[static_cast<std::size_t>(L.diag_pos[i])] : 0.0;
    for (int w = L.weak_ptr[i]; w < L.weak_ptr[i + 1]; ++w) dF += a[static_cast<std::size_t>(L.weak[w])];
    const double f = dF != 0 ? L.omega / dF : 0.0;
    for (int k = L.P.ptr[i]; k < L.P.ptr[i + 1]; ++k) {
      double s = 0;
      for (int q = L.src_ptr[k]; q < L.src_ptr[k + 1]; ++q) s += a[static_cast<std::size_t>(L.src[q])];
      p[k] = (L.own[k] ? 1.0 - L.omega : 0.0) - f * s;
    }
  }
}

void amg_galerkin(const AmgLevelPlan& L, const std::vector<double>& a, const std::vector<double>& p,
                  const std::vector<double>& r, std::vector<double>& ac) {
  ac.assign(L.Ac.nnz(), 0.0);
  const long rows = static_cast<long>(L.Ac.rows);
  // each coarse row sums into its own entries, in a fixed order: the same bits with any thread count
#pragma omp parallel for schedule(dynamic, 256)
  for (long I = 0; I < rows; ++I) {
    const int b = L.Ac.ptr[I], e = L.Ac.ptr[I + 1];
    for (int k = L.R.ptr[I]; k < L.R.ptr[I + 1]; ++k) {
      const int i = L.R.col[k];
      const double ri = r[k];
      for (int q = L.A.ptr[i]; q < L.A.ptr[i + 1]; ++q) {
        const int j = L.A.col[q];
        const double raij = ri * a[q];
        for (int m = L.P.ptr[j]; m < L.P.ptr[j + 1]; ++m) {
          const int J = L.P.col[m];
          const int at = static_cast<int>(std::lower_bound(L.Ac.col.begin() + b, L.Ac.col.begin() + e, J) - L.Ac.col.begin());
          ac[at] += raij * p[m];
        }
      }
    }
  }
}

double gershgorin_dinv_a(const CsrPattern& A, const std::vector<double>& a) {
  double rho = 0;
  for (std::size_t i = 0; i < A.rows; ++i) {
    double d = 0, s = 0;
    for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k) {
      s += std::fabs(a[k]);
      if (static_cast<std::size_t>(A.col[k]) == i) d = std::fabs(a[k]);
    }
    if (d > 0) rho = std::max(rho, s / d);
  }
  return rho;
}

double power_dinv_a(const CsrPattern& A, const std::vector<double>& a, int iterations) {
  const std::size_t n = A.rows;
  std::vector<double> s(n, 0.0), u(n, 0.0), v(n, 0.0);  // s: |a_ii|^-1/2, 0 where no diagonal
  for (std::size_t i = 0; i < n; ++i)
    for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
      if (static_cast<std::size_t>(A.col[k]) == i && a[k] != 0) s[i] = 1 / std::sqrt(std::fabs(a[k]));
  // a fixed start (splitmix64 of the row) that has every eigenvector in it
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t z = (i + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    z ^= z >> 31;
    u[i] = s[i] != 0 ? double(z >> 11) * 0x1.0p-53 - 0.5 : 0.0;
  }
  auto norm = [](const std::vector<double>& x) {
    double q = 0;
    for (double y : x) q += y * y;
    return std::sqrt(q);
  };
  double nu = norm(u), est = 0;
  const long rows = static_cast<long>(n);
  for (int it = 0; it < iterations && nu > 0; ++it) {
    // each row on its own (the norms below stay in row order): the same bits with any thread count
#pragma omp parallel for schedule(static)
    for (long i = 0; i < rows; ++i) {
      double t = 0;
      if (s[i] != 0)
        for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k) t += a[k] * s[A.col[k]] * u[A.col[k]];
      v[i] = s[i] * t;
    }
    const double nv = norm(v);
    est = nv / nu;
    for (std::size_t i = 0; i < n; ++i) u[i] = nv > 0 ? v[i] / nv : 0.0;
    nu = nv > 0 ? 1.0 : 0.0;
  }
  return est;
}

namespace {
// The estimate over the Gershgorin bound, in (0, 1] (1 when there is nothing to estimate).
double spectrum_ratio(const CsrPattern& A, const std::vector<double>& a, int iterations) {
  if (iterations <= 0) return 1;
  const double g = gershgorin_dinv_a(A, a), p = power_dinv_a(A, a, iterations);
  return g > 0 && p > 0 && std::isfinite(p) ? std::min(1.0, p / g) : 1.0;
}
}  // namespace

std::vector<double> dense_inverse(const CsrPattern& A, const std::vector<double>& a) {
  const std::size_t n = A.rows;
  std::vector<double> m(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i)
    for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k) m[i * n + static_cast<std::size_t>(A.col[k])] = a[k];
  // an empty row (no unknown there) is the identity: its value stays 0 in every vector
  for (std::size_t i = 0; i < n; ++i)
    if (A.ptr[i] == A.ptr[i + 1]) m[i * n + i] = 1;
  return dense_inverse_rows(n, std::move(m), 0, n, "AMG: the coarsest level's matrix");
}

std::vector<double> dense_inverse_rows(std::size_t n, std::vector<double> a, std::size_t first, std::size_t count,
                                       const std::string& what) {
  if (a.size() != n * n || first + count > n)
    throw ConfigError(what + ": rows " + std::to_string(first) + "+" + std::to_string(count) + " of a " + std::to_string(n) +
                      "-row inverse from " + std::to_string(a.size()) + " values");
  double scale = 0;
  for (double v : a) scale = std::max(scale, std::fabs(v));
  // P A = L U in place (L's unit diagonal implied); perm[k]: the row of A that is row k of P A
  std::vector<std::size_t> perm(n);
  for (std::size_t i = 0; i < n; ++i) perm[i] = i;
  for (std::size_t c = 0; c < n; ++c) {
    std::size_t piv = c;
    for (std::size_t r = c + 1; r < n; ++r)
      if (std::fabs(a[r * n + c]) > std::fabs(a[piv * n + c])) piv = r;
    if (!(std::fabs(a[piv * n + c]) > 1e-14 * scale))
      throw NumericalError(what + " (" + std::to_string(n) + " rows) is singular at row " + std::to_string(c));
    if (piv != c) {
      std::swap_ranges(a.begin() + static_cast<long>(piv * n), a.begin() + static_cast<long>((piv + 1) * n),
                       a.begin() + static_cast<long>(c * n));
      std::swap(perm[piv], perm[c]);
    }
    const double* uc = &a[c * n];
    for (std::size_t r = c + 1; r < n; ++r) {
      double* ar = &a[r * n];
      const double f = ar[c] / uc[c];
      ar[c] = f;
      if (f == 0) continue;
      for (std::size_t k = c + 1; k < n; ++k) ar[k] -= f * uc[k];
    }
  }
  // row i of A^-1 is y^T with A^T y = e_i: A^T = U^T L^T P, so U^T w = e_i, L^T v = w, y = P^T v
  std::vector<double> out(count * n), w(n);
  for (std::size_t q = 0; q < count; ++q) {
    std::fill(w.begin(), w.end(), 0.0);
    w[first + q] = 1;
    for (std::size_t j = 0; j < n; ++j) {  // U^T is lower triangular: its column j is U's row j
      w[j] /= a[j * n + j];
      const double wj = w[j];
      if (wj == 0) continue;
      for (std::size_t k = j + 1; k < n; ++k) w[k] -= a[j * n + k] * wj;
    }
    for (std::size_t j = n; j-- > 0;) {  // L^T is upper triangular with a unit diagonal: its column j is L's row j
      const double vj = w[j];
      if (vj == 0) continue;
      for (std::size_t k = 0; k < j; ++k) w[k] -= a[j * n + k] * vj;
    }
    double* y = &out[q * n];
    for (std::size_t k = 0; k < n; ++k) y[perm[k]] = w[k];
  }
  return out;
}


AmgHierarchy amg_setup(const CsrPattern& A0, const std::vector<double>& values, const AmgOptions& o) {
  if (values.size() != A0.nnz())
    throw ConfigError("AMG: " + std::to_string(values.size()) + " values for " + std::to_string(A0.nnz()) + " entries");
  AmgHierarchy h;
  CsrPattern A = A0;
  std::vector<double> a = values;
  double eps = o.strength;
  for (int level = 0;; ++level) {
    if (A.rows <= o.coarse_size || level + 1 >= o.max_levels) break;
    AmgLevelPlan L;
    L.A = A;
    L.diag_pos.assign(A.rows, -1);
    for (std::size_t i = 0; i < A.rows; ++i) L.diag_pos[i] = static_cast<int>(A.find(i, i));
    const auto strong = strong_entries(A, a, L.diag_pos, eps);
    const std::size_t nc = aggregate(A, a, strong, L.agg);
    if (nc == 0 || nc >= A.rows || (level > 0 && double(nc) > 0.9 * double(A.rows))) {
      // a process of a decomposed grid whose box holds no active cell, or no more than a coarsest
      // level's (its other rows empty), has no unknowns worth coarsening: one level, no error
      std::size_t unknowns = 0;
      for (std::size_t i = 0; i < A.rows; ++i) unknowns += A.ptr[i + 1] > A.ptr[i];
      if (level == 0 && !o.fallback && unknowns > o.coarse_size) {
        std::ostringstream m;
        m << "AMG cannot coarsen the " << A.rows << "-row matrix: "
          << (nc == 0 ? "no row has a strong neighbour" : "its aggregates are as many as its rows") << " at strength threshold "
          << eps;
        if (o.keys.empty())
          m << " (AmgOptions::strength; AmgOptions::fallback = true preconditions by the smoother alone)";
        else
          m << " (" << o.keys << ".amg_strength; set " << o.keys << ".amg_fallback = true to precondition by the smoother alone)";
        throw ConfigError(m.str());
      }
      break;
    }
    h.spectrum_ratio.push_back(spectrum_ratio(A, a, o.spectrum_iterations));
    // the weak entries of each row, the filtered rows' Gershgorin bound and, for the power estimate,
    // the filtered values (aF: the weak entries 0, each diagonal d_F)
    const bool estimate = o.spectrum_iterations > 0;
    std::vector<double> aF(estimate ? a : std::vector<double>{});
    L.weak_ptr.assign(A.rows + 1, 0);
    double rho = 0;
    for (std::size_t i = 0; i < A.rows; ++i) {
      double dF = L.diag_pos[i] >= 0 ? a[static_cast<std::size_t>(L.diag_pos[i])] : 0.0, off = 0;
      for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k) {
        if (k == L.diag_pos[i]) continue;
        if (strong[k]) off += std::fabs(a[k]);
        else {
          L.weak.push_back(k);
          dF += a[k];
          if (estimate) aF[k] = 0;
        }
      }
      L.weak_ptr[i + 1] = static_cast<int>(L.weak.size());
      if (estimate && L.diag_pos[i] >= 0) aF[static_cast<std::size_t>(L.diag_pos[i])] = dF;
      if (dF != 0 && L.agg[i] >= 0) rho = std::max(rho, (std::fabs(dF) + off) / std::fabs(dF));
    }
    // rho: the power estimate of D_F^-1 A_F's radius where it is below the Gershgorin bound
    if (estimate && rho > 0) {
      const double p = power_dinv_a(A, aF, o.spectrum_iterations);
      if (p > 0 && std::isfinite(p)) rho = std::min(rho, p);
    }
    L.omega = rho > 0 ? o.omega_scale / rho : 0.0;
    // P's pattern: each row's own aggregate and those of its strong neighbours
    L.P.rows = A.rows;
    L.P.cols = nc;
    L.P.ptr.assign(1, 0);
    L.src_ptr.assign(1, 0);
    std::vector<int> cols;
    for (std::size_t i = 0; i < A.rows; ++i) {
      cols.clear();
      if (L.agg[i] >= 0) cols.push_back(L.agg[i]);
      for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
        if (strong[k] && L.agg[A.col[k]] >= 0) cols.push_back(L.agg[A.col[k]]);
      std::sort(cols.begin(), cols.end());
      cols.erase(std::unique(cols.begin(), cols.end()), cols.end());
      for (int I : cols) {
        L.P.col.push_back(I);
        L.own.push_back(L.agg[i] == I);
        for (int k = A.ptr[i]; k < A.ptr[i + 1]; ++k)
          if (strong[k] && L.agg[A.col[k]] == I) L.src.push_back(k);
        L.src_ptr.push_back(static_cast<int>(L.src.size()));
      }
      L.P.ptr.push_back(static_cast<int>(L.P.col.size()));
    }
    L.R = transpose(L.P, &L.r_from_p);
    // A_c's pattern: the columns J reached from coarse row I through R, A and P
    L.Ac.rows = L.Ac.cols = nc;
    L.Ac.ptr.assign(1, 0);
    std::vector<int> mark(nc, -1);
    for (std::size_t I = 0; I < nc; ++I) {
      cols.clear();
      for (int k = L.R.ptr[I]; k < L.R.ptr[I + 1]; ++k)
        for (int q = A.ptr[L.R.col[k]]; q < A.ptr[L.R.col[k] + 1]; ++q)
          for (int m = L.P.ptr[A.col[q]]; m < L.P.ptr[A.col[q] + 1]; ++m)
            if (mark[L.P.col[m]] != static_cast<int>(I)) {
              mark[L.P.col[m]] = static_cast<int>(I);
              cols.push_back(L.P.col[m]);
            }
      std::sort(cols.begin(), cols.end());
      L.Ac.col.insert(L.Ac.col.end(), cols.begin(), cols.end());
      L.Ac.ptr.push_back(static_cast<int>(L.Ac.col.size()));
    }
    // the next level's values
    std::vector<double> p, r, ac;
    amg_p_values(L, a, p);
    r.resize(L.R.nnz());
    for (std::size_t k = 0; k < r.size(); ++k) r[k] = p[static_cast<std::size_t>(L.r_from_p[k])];
    amg_galerkin(L, a, p, r, ac);
    A = L.Ac;
    a = std::move(ac);
    h.eps.push_back(eps);
    h.levels.push_back(std::move(L));
    eps *= 0.5;  // coarse operators couple more neighbours, each more weakly
  }
  h.spectrum_ratio.push_back(spectrum_ratio(A, a, o.spectrum_iterations));  // the coarsest's
  h.coarsest = A;
  return h;
}

namespace {
std::string fmt_entries(const CsrPattern& p) {
  std::ostringstream o;
  o.precision(3);
  o << (p.rows ? double(p.nnz()) / double(p.rows) : 0.0);
  return o.str();
}
}  // namespace

std::string AmgHierarchy::describe() const {
  std::ostringstream o;
  o << levels.size() + 1 << " levels: ";
  for (const auto& L : levels) o << L.A.rows << " -> ";
  o << coarsest.rows << " rows";
  // the entries a row: what a level's products and smoothing steps read
  o << " (";
  for (const auto& L : levels) o << fmt_entries(L.A) << ", ";
  o << fmt_entries(coarsest) << " entries a row)";
  return o.str();
}

}  // namespace poreflow::linalg
