// poreflow bench linalg: sparse matrix-vector products y = A x per backend, as GB/s of the bytes a
// product must move and against the copy bandwidth measured in the same run: the 7-point operator
// of 3D grids (scalar and 2 x 2 blocks) by the stencil7 family's own apply and in block CSR, a
// 27-point operator (AMG's coarse levels) and a dense coarsest level; on the GPU backends every
// lanes strategy of the csr family beside its rule (csr_lanes), on cuda cuSPARSE's product of the
// same buffers. Every row is verified against the serial backend's product in double. Then dot
// products (the vec family's, and CUB's on cuda) and whole systems solved to 1e-8
// (bench_linalg_systems.cpp).
#include <fmt/core.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <limits>
#include <memory>

#include "apps/bench_common.hpp"
#include "apps/bench_kinds.hpp"
#include "apps/bench_linalg.hpp"
#include "apps/common.hpp"
#include "core/base/error.hpp"
#include "core/kernels/csr.hpp"
#include "core/kernels/field.hpp"
#include "core/kernels/vec.hpp"
#include "core/linalg/csr.hpp"
#include "core/linalg/stencil7.hpp"
#include "core/models/memory.hpp"

namespace poreflow::app {

namespace {

// a test matrix: its pattern on the host, and where each entry's values come from
struct Matrix {
  std::string label;  // "64^3 scalar", "dense 500 2x2"
  int block = 1;
  bool grid = false;
  Box3 box;                      // grid: the stencil's box (rows = its extent)
  linalg::CsrPattern p;
  std::vector<long> map;         // grid: entry -> the stencil's coefficient block (stencil7_to_csr_map)
  std::vector<char> unknown;     // rows that are unknowns (x is 0 elsewhere)
  std::vector<char> diag;        // not a grid: whether entry k is on the diagonal
  std::size_t x_read = 0;        // values of x a product reads: the unknowns' values
  std::size_t b2() const { return static_cast<std::size_t>(block * block); }
  std::size_t vector_size() const { return p.rows * static_cast<std::size_t>(block); }
};

// a fixed value in [-1, 1) per index (splitmix64): the stencil's coefficient number i, so a 7-point
// operator made later from the same numbers (coef[i] = bench_coef(i)) is the same matrix
double bench_coef(std::uint64_t i) {
  std::uint64_t z = i * 0x9E3779B97F4A7C15ull + 0x632BE59BD9B4E019ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  z ^= z >> 31;
  return -1 + 2 * static_cast<double>(z >> 11) * 0x1.0p-53;
}

// value number v of the matrix's values (entry v / b^2): diagonals shifted by 8, as an operator's
// dominant diagonal (the products do not care; the numbers stay those of a reservoir matrix)
double value_of(const Matrix& m, std::size_t v) {
  const std::size_t k = v / m.b2(), e = v % m.b2();
  const bool diag_of_block = e % static_cast<std::size_t>(m.block + 1) == 0;
  if (m.grid) {
    const long src = m.map[k];
    const bool diag = src < static_cast<long>(m.box.extent()) && diag_of_block;  // plane 0: the diagonal
    return bench_coef(static_cast<std::uint64_t>(src) * m.b2() + e) + (diag ? 8 : 0);
  }
  return bench_coef(v) + (m.diag[k] && diag_of_block ? 8 : 0);
}

double x_of(const Matrix& m, std::size_t i) {
  return m.unknown[i / static_cast<std::size_t>(m.block)] ? bench_coef(i + 0x5555555555ull) : 0.0;
}

Matrix grid_matrix(long n, int block) {
  Matrix m;
  m.block = block;
  m.grid = true;
  m.label = fmt::format("{}^3 {}", n, block == 1 ? "scalar" : "2x2");
  m.box = Box3::standalone(n, n, n, 1);
  std::vector<int> active(m.box.extent(), 0);
  for (long k = 0; k < n; ++k)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i) active[static_cast<std::size_t>(m.box.at(i, j, k))] = 1;
  m.p = linalg::csr_pattern_of_stencil7(m.box, active);
  m.map = linalg::stencil7_to_csr_map(m.box, active);
  m.unknown.assign(active.begin(), active.end());
  m.x_read = static_cast<std::size_t>(m.box.cells()) * block;
  return m;
}

// AMG's coarsest level: every row full
Matrix dense_matrix(long n, int block) {
  Matrix m;
  m.block = block;
  m.label = fmt::format("dense {} {}", n, block == 1 ? "scalar" : "2x2");
  m.p.rows = m.p.cols = static_cast<std::size_t>(n);
  m.p.ptr.assign(m.p.rows + 1, 0);
  for (std::size_t r = 0; r < m.p.rows; ++r) {
    for (long c = 0; c < n; ++c) m.p.col.push_back(static_cast<int>(c));
    m.p.ptr[r + 1] = static_cast<int>(m.p.col.size());
  }
  m.unknown.assign(m.p.rows, 1);
  m.diag.resize(m.p.nnz());
  for (std::size_t k = 0; k < m.p.nnz(); ++k) m.diag[k] = static_cast<std::size_t>(m.p.col[k]) == k / m.p.cols;
  m.x_read = m.vector_size();
  return m;
}

// a 27-point operator on an n^3 grid (no halo): the pattern of AMG's coarse levels of a 7-point
// problem (Galerkin products widen the stencil), rows of 8 to 27 entries
Matrix grid27_matrix(long n, int block) {
  Matrix m;
  m.block = block;
  m.label = fmt::format("27-pt {}^3 {}", n, block == 1 ? "scalar" : "2x2");
  m.p.rows = m.p.cols = static_cast<std::size_t>(n * n * n);
  m.p.ptr.assign(m.p.rows + 1, 0);
  for (long k = 0; k < n; ++k)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i) {
        const long r = i + n * (j + n * k);
        for (long dk = -1; dk <= 1; ++dk)
          for (long dj = -1; dj <= 1; ++dj)
            for (long di = -1; di <= 1; ++di) {
              const long a = i + di, b = j + dj, c = k + dk;
              if (a < 0 || b < 0 || c < 0 || a >= n || b >= n || c >= n) continue;
              m.p.col.push_back(static_cast<int>(a + n * (b + n * c)));
              m.diag.push_back(di == 0 && dj == 0 && dk == 0);
            }
        m.p.ptr[static_cast<std::size_t>(r) + 1] = static_cast<int>(m.p.col.size());
      }
  m.unknown.assign(m.p.rows, 1);
  m.x_read = m.vector_size();
  return m;
}

enum class Kind { Grid7, Grid27, Dense };
struct Spec {
  long n = 0;
  Kind kind = Kind::Grid7;
};

// What --sizes asks for: the products' matrices, the dots' lengths and the systems
struct Specs {
  std::vector<Spec> products;
  std::vector<std::size_t> dots;
  std::vector<LinalgSystem> systems;
};

// "64^3" or "64" (a 7-point grid), "27pt96" (a 27-point grid of 96^3), "dense500" (a dense
// coarse level of 500 rows), "dot2^24" (dot products of 2^24 values), "poisson128", "spe10",
// "spe10:30x110x42", "spe10-2p" (systems, bench_linalg_systems.cpp)
Specs parse_specs(const std::string& s) {
  Specs out;
  for (const auto& item : split_list(s)) {
    Spec sp;
    int used = -1;
    const int len = static_cast<int>(item.size());
    LinalgSystem sys;
    if (parse_linalg_system(item, sys)) {
      out.systems.push_back(sys);
      continue;
    }
    if (item.rfind("dot", 0) == 0) {
      for (std::size_t n : parse_sizes(item.substr(3))) out.dots.push_back(n);
      continue;
    }
    if (std::sscanf(item.c_str(), "dense%ld%n", &sp.n, &used) == 1 && used == len) {
      sp.kind = Kind::Dense;
      if (sp.n < 2 || sp.n > 20000) throw ConfigError("--sizes: '" + item + "': a dense level of 2 to 20000 rows");
    } else if (used = -1; std::sscanf(item.c_str(), "27pt%ld%n", &sp.n, &used) == 1 && used == len) {
      sp.kind = Kind::Grid27;
      if (sp.n < 2 || sp.n > 400) throw ConfigError("--sizes: '" + item + "': a 27-point grid side in [2, 400]");
    } else if (used = -1; (std::sscanf(item.c_str(), "%ld^3%n", &sp.n, &used) == 1 && used == len) ||
                          (used = -1, std::sscanf(item.c_str(), "%ld%n", &sp.n, &used) == 1 && used == len)) {
      if (sp.n < 2 || sp.n > 1200) throw ConfigError("--sizes: '" + item + "': a grid side in [2, 1200]");
    } else {
      throw ConfigError("--sizes: '" + item + "' is not N, N^3, 27ptN, denseN, dotN, poissonN, spe10, spe10-2p or impes-case2");
    }
    out.products.push_back(sp);
  }
  if (out.products.empty() && out.dots.empty() && out.systems.empty()) throw ConfigError("--sizes is empty");
  return out;
}

// every product's and dot's size, and in a double run the systems of the issue
std::string default_sizes(Precision p) {
  return std::string("64^3,128^3,256^3,27pt96,dense500,dot2^20,dot2^24,dot2^26") +
         (p == Precision::Double ? ",poisson128,poisson256,spe10,spe10-2p,impes-case2" : "");
}

// what a matrix with x and y takes on a backend in precision T
MemoryNeed need_of(const Matrix& m, std::size_t value_size) {
  MemoryNeed need;
  need.what = "the " + m.label + " matrix (" + std::to_string(m.p.rows) + " rows, " + std::to_string(m.p.nnz()) + " blocks)";
  const std::size_t val = m.p.nnz() * m.b2() * value_size;
  need.total = (m.p.rows + 1) * sizeof(int) + std::max<std::size_t>(m.p.nnz(), 1) * sizeof(int) + val + 2 * m.vector_size() * value_size;
  need.largest = std::max(val, m.p.nnz() * sizeof(int));
  return need;
}

// the matrix, x and y on a backend, the values uploaded in pieces (no host copy of them all)
template <class T>
struct OnDevice {
  std::unique_ptr<Buffer> ptr, col;
  Field<T> val, x, y;
  CsrRef ref;
  OnDevice(Backend& be, const Matrix& m)
      : val(be, std::max<std::size_t>(m.p.nnz() * m.b2(), 1)), x(be, m.vector_size()), y(be, m.vector_size()) {
    ptr = be.alloc(m.p.ptr.size() * sizeof(int));
    be.upload(*ptr, m.p.ptr.data(), m.p.ptr.size() * sizeof(int));
    col = be.alloc(std::max<std::size_t>(m.p.nnz(), 1) * sizeof(int));
    if (m.p.nnz()) be.upload(*col, m.p.col.data(), m.p.nnz() * sizeof(int));
    const std::size_t total = m.p.nnz() * m.b2(), piece = std::size_t(1) << 22;
    std::vector<T> buf(std::min(total, piece));
    for (std::size_t at = 0; at < total; at += piece) {
      const std::size_t cnt = std::min(piece, total - at);
#pragma omp parallel for schedule(static)
      for (std::size_t i = 0; i < cnt; ++i) buf[i] = static_cast<T>(value_of(m, at + i));
      be.upload(val.buffer(), buf.data(), cnt * sizeof(T), at * sizeof(T));
    }
    std::vector<T> xv(m.vector_size());
    for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<T>(x_of(m, i));
    x.upload(xv);
    y.fill(T(0));
    ref = CsrRef{m.p.rows, m.p.cols, m.p.nnz(), m.block, ptr.get(), col.get(), &val.buffer()};
  }
  CsrSpmvArgs args(int lanes) { return CsrSpmvArgs{precision_of<T>(), ref, 1.0, 0.0, &x.buffer(), &y.buffer(), nullptr, lanes}; }
};

// max |got - want| / max |want|; NaN gives infinity
template <class T>
double rel_diff(const std::vector<T>& got, const std::vector<double>& want) {
  double err = 0, scale = 0;
  for (std::size_t i = 0; i < want.size(); ++i) {
    const double d = std::fabs(double(got[i]) - want[i]);
    err = std::isnan(d) ? INFINITY : std::max(err, d);
    scale = std::max(scale, std::fabs(want[i]));
  }
  return err / std::max(scale, 1e-300);
}

std::vector<std::string> lanes_variants(const BenchOptions& o, bool uses_lanes) {
  std::vector<std::string> all = {"auto"};
  if (uses_lanes)
    for (const char* l : {"1", "2", "4", "8", "16", "32"}) all.push_back(l);
  all.push_back("vendor");
  const auto wanted = split_list(o.variants);
  for (const auto& w : wanted)
    if (w != "auto" && w != "vendor" && w != "1" && w != "2" && w != "4" && w != "8" && w != "16" && w != "32")
      throw ConfigError("--variants: '" + w + "' is not auto, vendor or a lanes count (1, 2, 4, 8, 16, 32)");
  if (wanted.empty()) return all;
  std::vector<std::string> out;
  for (const auto& v : all)
    if (std::find(wanted.begin(), wanted.end(), v) != wanted.end()) out.push_back(v);
  return out;
}

// ---- the stencil7 family's own product of the grid matrices --------------------------------

// The bytes the stencil's apply must move, counted as the csr rows count theirs: the 7 coefficient
// blocks of every unknown's cell once (the kernel reads none for other entries), the mask and y over
// every entry of the box's arrays (the kernel writes 0 where there is no unknown), x's unknowns once
double stencil7_bytes(const Matrix& m, std::size_t value_size) {
  const double cells = static_cast<double>(m.box.cells()), extent = static_cast<double>(m.box.extent());
  const double b = m.block, vs = static_cast<double>(value_size);
  return 7 * b * b * cells * vs + extent * sizeof(int) + extent * b * vs + cells * b * vs;
}

MemoryNeed stencil7_need(const Matrix& m, std::size_t value_size) {
  MemoryNeed need;
  need.what = "the " + m.label + " 7-point stencil (" + std::to_string(m.box.extent()) + " entries)";
  const std::size_t planes = 7 * m.b2() * m.box.extent() * value_size;
  need.total = planes + m.box.extent() * sizeof(int) + 2 * m.vector_size() * value_size;
  need.largest = planes;
  return need;
}

// y = A x by Stencil7Operator::apply with the grid matrix's values: coefficient i of the planes is
// bench_coef(i) (+ 8 on the diagonal blocks' diagonals), the csr rows' value_of of the same entry;
// coefficients to a neighbour that is no unknown are 0, as the stencil's layout requires (x is 0
// there, so the product is the csr rows' product)
template <class T>
void stencil7_row(const BenchOptions& o, Backend& be, const std::string& name, const Matrix& m, const std::vector<double>& want,
                  double cbw, std::vector<BenchRow>& rows) {
  const std::string variant = fmt::format("stencil7 {}", m.block == 1 ? "scalar" : "2x2");
  const double bytes = stencil7_bytes(m, sizeof(T));
  BenchRow r = make_row("linalg", name, be.device_name(), variant, "-", to_string(precision_of<T>()), m.vector_size(),
                        Timing{}, bytes);
  r.layout = m.label;
  r.copy_gbps = cbw;
  r.set("part", std::string("spmv"));
  try {
    check_memory(stencil7_need(m, sizeof(T)), precision_of<T>(), be);
  } catch (const ConfigError& e) {
    r.ran = false;
    r.note = std::string("not run: ") + e.what();
    rows.push_back(r);
    return;
  }
  linalg::Stencil7Matrix<T> S(be, m.box, m.block);  // every cell of the box an unknown, as m's rows
  linalg::Stencil7Operator<T> op(S);
  {
    const std::size_t E = m.box.extent(), b2 = m.b2(), total = 7 * b2 * E, piece = std::size_t(1) << 22;
    const long off[7] = {0, -1, 1, -m.box.sy, m.box.sy, -m.box.sz, m.box.sz};
    std::vector<T> buf(std::min(total, piece));
    for (std::size_t at = 0; at < total; at += piece) {
      const std::size_t cnt = std::min(piece, total - at);
#pragma omp parallel for schedule(static)
      for (std::size_t v = 0; v < cnt; ++v) {
        const std::size_t i = at + v, e = i % b2, qL = i / b2, q = qL / E, L = qL % E;
        const long N = static_cast<long>(L) + off[q];
        const bool on = m.unknown[L] && (q == 0 || (N >= 0 && static_cast<std::size_t>(N) < E && m.unknown[N]));
        const bool diag = q == 0 && e % static_cast<std::size_t>(m.block + 1) == 0;
        buf[v] = on ? static_cast<T>(bench_coef(i) + (diag ? 8 : 0)) : T(0);
      }
      be.upload(S.coef.buffer(), buf.data(), cnt * sizeof(T), at * sizeof(T));
    }
  }
  Field<T> x(be, m.vector_size()), y(be, m.vector_size());
  {
    std::vector<T> xv(m.vector_size());
    for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<T>(x_of(m, i));
    x.upload(xv);
  }
  const double tol = sizeof(T) == 4 ? 2e-5 : 1e-12;
  double err = INFINITY;
  try {
    y.fill(std::numeric_limits<T>::quiet_NaN());  // every entry is written
    op.apply(x, y, {});
    err = rel_diff(y.download(), want);
    r.t = measure([&] { op.apply(x, y, {}); }, [&] { be.sync(); }, o.target);
  } catch (const BackendError& e) {
    r.verified = false;
    r.note = std::string("failed: ") + e.what();
    spdlog::error("bench linalg: {} {} {}: {}", name, variant, m.label, e.what());
    rows.push_back(r);
    return;
  }
  r.gbps = bytes / r.t.median / 1e9;
  r.ratio_copy = r.gbps / cbw;
  r.verified = err <= tol;
  r.note = fmt::format("y = A x by the stencil7 family's apply (Stencil7Operator, y poisoned with NaN first) vs the serial "
                       "double csr product of the same matrix: max|diff| / max|y| = {:.2e} over all {} values; bytes: 7 "
                       "coefficient blocks of each of the {} unknowns' cells once, the mask and y over all {} entries, "
                       "x's unknowns once",
                       err, m.vector_size(), m.box.cells(), m.box.extent());
  if (!r.verified) spdlog::error("bench linalg: {} {} {}: diff {:.3e}", name, variant, m.label, err);
  spdlog::info("bench linalg: {} {} {}: {:.1f} us, {:.1f} GB/s ({:.2f} x copy)", name, variant, m.label, r.t.median * 1e6,
               r.gbps, r.ratio_copy);
  rows.push_back(r);
}

// ---- dot products ------------------------------------------------------------------------------

// s[0] = x . y by the vec family's dot, and on cuda by CUB (the vendor's dot of the same buffers),
// of n pseudo-random values in [-1, 1); verified against the host's double sum of the products of
// the stored values (|diff| <= 2e-5 (float) or 1e-12 (double) x sum |x_i y_i|); bytes: x and y once
template <class U>
void dot_rows(const BenchOptions& o, Backend& be, const std::string& name, std::size_t n, double cbw,
              std::vector<BenchRow>& rows) {
  const std::string prec = to_string(precision_of<U>());
  const double bytes = 2.0 * static_cast<double>(n) * sizeof(U);
  auto base = [&](const std::string& variant) {
    BenchRow r = make_row("linalg", name, be.device_name(), variant, "-", prec, n, Timing{}, bytes);
    r.layout = "dot " + prec;
    r.copy_gbps = cbw;
    r.set("part", std::string("dot"));
    return r;
  };
  if (!be.supports(precision_of<U>())) return;
  MemoryNeed need;
  need.what = fmt::format("two vectors of {} values", n);
  need.total = 2 * n * sizeof(U) + 64;
  need.largest = n * sizeof(U);
  try {
    check_memory(need, precision_of<U>(), be);
  } catch (const ConfigError& e) {
    BenchRow r = base("vec dot");
    r.ran = false;
    r.note = std::string("not run: ") + e.what();
    rows.push_back(r);
    return;
  }
  std::vector<U> xv(n), yv(n);
  {
    const auto xd = bench_random(n, -1, 1, 2 * n + 1), yd = bench_random(n, -1, 1, 2 * n + 2);
    for (std::size_t i = 0; i < n; ++i) xv[i] = static_cast<U>(xd[i]), yv[i] = static_cast<U>(yd[i]);
  }
  double ref = 0, scale = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const double p = double(xv[i]) * double(yv[i]);
    ref += p;
    scale += std::fabs(p);
  }
  Field<U> x(be, n), y(be, n), s(be, 2);
  x.upload(xv);
  y.upload(yv);
  const VecDotArgs a{precision_of<U>(), n, &x.buffer(), &y.buffer(), 0, nullptr, nullptr, -1, &s.buffer(), nullptr};
  auto vec = be.vec();
  const double tol = sizeof(U) == 4 ? 2e-5 : 1e-12;
  auto one = [&](const std::string& variant, const std::function<void()>& run, const std::string& what) {
    BenchRow r = base(variant);
    try {
      s.fill(std::numeric_limits<U>::quiet_NaN());
      run();
      const double got = double(s.download()[0]);
      r.t = measure(run, [&] { be.sync(); }, o.target);
      r.gbps = bytes / r.t.median / 1e9;
      r.ratio_copy = r.gbps / cbw;
      const double diff = std::fabs(got - ref);
      r.verified = diff <= tol * std::max(scale, 1e-300);
      r.note = fmt::format("{}; vs the host's double sum: |diff| / sum|x_i y_i| = {:.2e}; bytes: x and y once", what,
                           std::isnan(diff) ? INFINITY : diff / std::max(scale, 1e-300));
      if (!r.verified) spdlog::error("bench linalg: {} {} n={} gave {} instead of {}", name, variant, n, got, ref);
    } catch (const BackendError& e) {
      r.verified = false;
      r.note = std::string("failed: ") + e.what();
      spdlog::error("bench linalg: {} {} n={}: {}", name, variant, n, e.what());
    }
    rows.push_back(r);
  };
  one("vec dot", [&] { vec.dot(a); }, "s = x . y by the vec family's dot (one pair, into a device scalar; deterministic: "
                                     "partials combined in order by the last group)");
  if (!vec.vendor_name().empty())
    one(vec.vendor_name() + " dot", [&] { vec.vendor_dot(a); },
        "s = x . y by " + vec.vendor_name() + "'s DeviceReduce::Sum over x_i y_i into the same device scalar");
}

}  // namespace

template <class T>
void bench_linalg(const BenchOptions& o, const BackendOptions& bo, std::vector<BenchRow>& rows, BandwidthList& bw) {
  const Specs all = parse_specs(o.sizes.empty() ? default_sizes(precision_of<T>()) : o.sizes);
  const auto& specs = all.products;
  const std::string prec = to_string(precision_of<T>());
  const double tol = sizeof(T) == 4 ? 2e-5 : 1e-12;
  auto serial_ref = make_backend("serial");
  // every backend made once, its copy bandwidth measured before the products
  std::vector<std::pair<std::string, std::unique_ptr<Backend>>> bes;
  for (const auto& name : bench_backends(o)) {
    auto be = make_backend(name, bo);
    const double cbw = copy_bandwidth(*be, kCopyBytes);
    bw.emplace_back(name, cbw);
    spdlog::info("bench linalg: {} on {}: copy {:.1f} GB/s", name, be->device_name(), cbw);
    bes.emplace_back(name, std::move(be));
  }
  auto copy_of = [&](const std::string& name) {
    for (const auto& [n, g] : bw)
      if (n == name) return g;
    return 0.0;
  };
  for (const Spec& sp : specs)
    for (int block : {1, 2}) {
      const Matrix m = sp.kind == Kind::Dense    ? dense_matrix(sp.n, block)
                       : sp.kind == Kind::Grid27 ? grid27_matrix(sp.n, block)
                                                 : grid_matrix(sp.n, block);
      const CsrRef shape{m.p.rows, m.p.cols, m.p.nnz(), m.block};
      const double bytes = CsrKernels::spmv_bytes(shape, precision_of<T>(), m.x_read);
      // the reference: the serial backend's product in double
      std::vector<double> want;
      try {
        check_memory(need_of(m, sizeof(double)), Precision::Double, *serial_ref);
        OnDevice<double> ref(*serial_ref, m);
        serial_ref->csr().spmv(ref.args(0));
        want = ref.y.download();
      } catch (const ConfigError& e) {
        spdlog::warn("bench linalg: {} skipped: its serial double reference does not fit: {}", m.label, e.what());
        continue;
      }
      for (auto& name_be : bes) {
        auto& name = name_be.first;  // named: lambdas below capture it (clang cannot capture bindings)
        auto& be = name_be.second;
        const double cbw = copy_of(name);
        // a row without a time: not run (ran false), or run and failed (ran true, not verified)
        auto add_untimed = [&](const std::string& variant, const std::string& note, bool ran) {
          BenchRow r = make_row("linalg", name, be->device_name(), variant, "-", prec, m.vector_size(), Timing{}, bytes);
          r.layout = m.label;
          r.set("part", std::string("spmv"));
          r.copy_gbps = cbw;
          r.ran = ran;
          r.note = note;
          rows.push_back(r);
        };
        if (m.grid) stencil7_row<T>(o, *be, name, m, want, cbw, rows);
        try {
          check_memory(need_of(m, sizeof(T)), precision_of<T>(), *be);
        } catch (const ConfigError& e) {
          spdlog::warn("bench linalg: {} {} skipped: {}", name, m.label, e.what());
          add_untimed("csr", std::string("not run: ") + e.what(), false);
          continue;
        }
        OnDevice<T> d(*be, m);
        auto csr = be->csr();
        const CsrRef dense_probe{500, 500, 250000, 1};
        const bool uses_lanes = csr.lanes(dense_probe) > 1;  // a GPU backend: rows spread over lanes
        const int rule = csr.lanes(d.ref);
        for (const auto& v : lanes_variants(o, uses_lanes)) {
          const bool vendor = v == "vendor";
          if (vendor && csr.vendor_name(block).empty()) continue;
          const int lanes = vendor || v == "auto" ? 0 : std::stoi(v);
          CsrSpmvArgs a = d.args(lanes);
          std::string variant = vendor            ? csr.vendor_name(block)
                                : !uses_lanes     ? std::string("csr")
                                : lanes == 0      ? fmt::format("csr auto (lanes {})", rule)
                                                  : fmt::format("csr lanes {}", lanes);
          auto run = [&] {
            if (vendor) csr.vendor_spmv(a);
            else csr.spmv(a);
          };
          Timing t;
          double err = INFINITY;
          std::string failure;
          try {
            d.y.fill(std::numeric_limits<T>::quiet_NaN());  // beta 0: y is not read
            run();
            err = rel_diff(d.y.download(), want);
            t = measure(run, [&] { be->sync(); }, o.target);
          } catch (const BackendError& e) {
            failure = e.what();
          }
          if (!failure.empty()) {
            spdlog::error("bench linalg: {} {} {}: {}", name, variant, m.label, failure);
            add_untimed(variant, "failed: " + failure, true);  // the bench's exit code says so
            continue;
          }
          BenchRow r = make_row("linalg", name, be->device_name(), variant, "-", prec, m.vector_size(), t, bytes);
          r.layout = m.label;
          r.set("part", std::string("spmv"));
          r.gbps = bytes / t.median / 1e9;
          r.copy_gbps = cbw;
          r.ratio_copy = r.gbps / cbw;
          r.verified = err <= tol;
          r.note = fmt::format("y = A x (beta 0, y poisoned with NaN first) vs the serial double product: max|diff| / "
                               "max|y| = {:.2e} over all {} values; {} rows, {} blocks ({:.1f} a row){}; bytes: values, "
                               "columns and row pointers once, x's {} read values once, y once",
                               err, m.vector_size(), m.p.rows, m.p.nnz(), double(m.p.nnz()) / double(m.p.rows),
                               vendor ? "; cuSPARSE's generic cusparseSpMV on the same buffers (" +
                                            std::string(block == 1 ? "CSR, CSR_ALG1" : "BSR, row-major blocks, BSR_ALG1") + ")"
                                      : uses_lanes ? fmt::format("; {} work-item(s) a row{}", lanes ? lanes : rule,
                                                                 lanes ? " (forced)" : " (the rule)")
                                                   : "",
                               m.x_read);
          if (!r.verified) spdlog::error("bench linalg: {} {} {}: diff {:.3e}", name, variant, m.label, err);
          spdlog::info("bench linalg: {} {} {}: {:.1f} us, {:.1f} GB/s ({:.2f} x copy)", name, variant, m.label,
                       t.median * 1e6, r.gbps, r.ratio_copy);
          rows.push_back(r);
        }
      }
    }
  // speedups against the serial csr row of the same matrix
  for (auto& r : rows)
    for (const auto& s : rows)
      if (s.backend == "serial" && s.variant == "csr" && s.layout == r.layout && s.t.median > 0 && r.t.median > 0)
        r.speedup = s.t.median / r.t.median;
  // dots in both precisions, whatever --precision says
  for (std::size_t n : all.dots)
    for (auto& name_be : bes) {
      auto& name = name_be.first;  // named: lambdas below capture it (clang cannot capture bindings)
      auto& be = name_be.second;
      dot_rows<double>(o, *be, name, n, copy_of(name), rows);
      dot_rows<float>(o, *be, name, n, copy_of(name), rows);
    }
  for (auto& r : rows)
    if (r.layout.rfind("dot ", 0) == 0)
      for (const auto& s : rows)
        if (s.backend == "serial" && s.variant == "vec dot" && s.layout == r.layout && s.size == r.size &&
            s.t.median > 0 && r.t.median > 0)
          r.speedup = s.t.median / r.t.median;
  // the systems, in double
  bench_linalg_systems(o, all.systems, bes, rows);
}

template void bench_linalg<float>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);
template void bench_linalg<double>(const BenchOptions&, const BackendOptions&, std::vector<BenchRow>&, BandwidthList&);

}  // namespace poreflow::app
