#include "core/linalg/amg.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <span>
#include <sstream>

#include "core/base/error.hpp"
#include "core/comm/global_reduce.hpp"
#include "core/kernels/amg.hpp"
#include "core/kernels/csr.hpp"
#include "core/kernels/vec.hpp"
#include "core/physics/amg_tail.h"

namespace poreflow::linalg {

namespace {

using Clock = std::chrono::steady_clock;
// the levels whose bounds refresh combines over the processes at most (AmgOptions::max_levels is 20)
constexpr std::size_t kMaxCombinedLevels = 64;
// the largest coarsest level inverted densely on the host at each refresh, unless the case's
// coarse size is larger: 2 000^2 doubles are 32 MB and their inversion a few seconds; a larger
// one is smoothed (setup)
constexpr std::size_t kMaxDenseRows = 2000;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

template <class X>
std::unique_ptr<Buffer> upload_array(Backend& be, const std::vector<X>& v) {
  auto b = be.alloc(std::max<std::size_t>(v.size(), 1) * sizeof(X));
  if (!v.empty()) be.upload(*b, v.data(), v.size() * sizeof(X));
  return b;
}

template <class X>
std::vector<X> download_array(Backend& be, const Buffer& b, std::size_t n) {
  std::vector<X> v(n);
  if (n) be.download(b, v.data(), n * sizeof(X));
  return v;
}

}  // namespace

// A level of the hierarchy on the device: its matrix (level 0: the operator, with its values as
// CSR in a0_), the plan that refreshes the next level's values, and the vectors of a cycle.
template <class T>
struct Amg<T>::Level {
  const LinearOperator<T>* op = nullptr;  // apply and residual of this level
  const Stencil7Operator<T>* s7 = nullptr;  // the finest level's, when a scalar 7-point operator: fused steps
  const CsrOperator<T>* csr = nullptr;      // a scalar CSR level's (the coarse levels): fused steps
  CsrMatrix<T>* A = nullptr;              // its values as CSR (the refresh's input)
  std::unique_ptr<CsrMatrix<T>> own;      // levels >= 1: the matrix itself
  std::unique_ptr<CsrOperator<T>> csr_op;
  std::unique_ptr<CsrMatrix<T>> P, R;
  std::unique_ptr<Buffer> diag_pos, weak_ptr, weak, src_ptr, src, own_flag, r_from_p;
  double omega = 0;
  Field<T> dinv, bound;
  mutable Field<T> b, x, r, d;  // a cycle's right-hand side (levels >= 1), iterate, residual, direction
  double lo = 0, hi = 0;        // the smoothed interval of D^-1 A
};

template <class T>
Amg<T>::Amg(AmgConfig c, const Communicator& comm) : c_(c), comm_(comm) {
  if (c_.tail_rows < -1)
    throw ConfigError("AMG: the rows of the levels in one launch must be at least 0 (-1: the backend's choice), not " +
                      std::to_string(c_.tail_rows));
  if (c_.degree < 1) throw ConfigError("AMG: the smoother's degree must be at least 1, not " + std::to_string(c_.degree));
  if (c_.coarse_degree < 0)
    throw ConfigError("AMG: the coarse levels' smoother degree must be at least 1 (0: the finest's), not " +
                      std::to_string(c_.coarse_degree));
  if (!(c_.lower > 0 && c_.lower < 1)) throw ConfigError("AMG: the smoother's lower end must be in (0, 1)");
}

template <class T>
Amg<T>::~Amg() = default;

template <class T>
void Amg<T>::update(const LinearOperator<T>& A) {
  if (A.block() != 1)
    throw ConfigError("AMG preconditions scalar operators (one unknown per cell); " + A.describe() +
                      " has blocks of " + std::to_string(A.block()) + " (CPR takes its pressure block)");
  if (&A != op_ || lv_.empty()) setup(A);
  refresh();
}

template <class T>
void Amg<T>::setup(const LinearOperator<T>& A) {
  const auto t0 = Clock::now();
  Backend& be = A.backend();
  be_ = &be;
  op_ = nullptr;  // set when the setup is whole: a setup that throws is made again by the next update
  across_.reset();  // before anything that may throw: it refers to the last operator's matrix
  global_op_.reset();
  scalar_ex_.reset();
  multiplicative_ = false;
  across_op_ = nullptr;
  lv_.clear();
  a0_.reset();
  a0_map_.reset();
  // the finest level as CSR on the host, once: its pattern and values
  CsrPattern p0;
  std::vector<double> v0;
  bool fusable = false;  // the finest level's steps in one pass (stencil7 chebyshev)
  if (const auto* s = dynamic_cast<const Stencil7Operator<T>*>(&A)) {
    const Stencil7Matrix<T>& m = s->matrix();
    const auto active = download_array<int>(be, *m.active, m.extent());
    // The CSR form (and so D^-1) takes the box's cells only; the fused step goes by the mask. They
    // agree unless the mask marks an entry outside the box's cells (a halo cell): then the steps
    // stay apart, which keep such an entry 0.
    std::vector<int> outside(active);
    for (long k = 0; k < m.box.nz; ++k)
      for (long j = 0; j < m.box.ny; ++j)
        for (long i = 0; i < m.box.nx; ++i) outside[static_cast<std::size_t>(m.box.at(i, j, k))] = 0;
    fusable = m.block == 1 && std::none_of(outside.begin(), outside.end(), [](int a) { return a != 0; });
    p0 = csr_pattern_of_stencil7(m.box, active);
    const auto map = stencil7_to_csr_map(m.box, active);
    const auto coef = m.coef.download();
    v0.resize(map.size());
    for (std::size_t k = 0; k < map.size(); ++k) v0[k] = double(coef[static_cast<std::size_t>(map[k])]);
    a0_ = std::make_unique<CsrMatrix<T>>(be, p0, 1);
    a0_map_ = upload_array(be, map);
  } else if (const auto* c = dynamic_cast<const CsrOperator<T>*>(&A)) {
    const CsrMatrix<T>& m = c->matrix();
    p0.rows = m.rows;
    p0.cols = m.cols;
    p0.ptr = download_array<int>(be, *m.ptr, m.rows + 1);
    p0.col = download_array<int>(be, *m.col, m.nnz);
    const auto vals = m.val.download();
    v0.assign(vals.begin(), vals.end());
  } else {
    throw ConfigError("AMG preconditions a 7-point stencil or a CSR operator, not " + A.describe());
  }
  // Several processes: a setup that fails on one stops them all (what follows is collective).
  if (!comm_.single()) {
    std::exception_ptr failed;
    try {
      h_ = amg_setup(p0, v0, c_.setup);
    } catch (const Error&) {
      failed = std::current_exception();
    }
    if (comm_.any(failed != nullptr)) {
      if (failed) std::rethrow_exception(failed);
      throw NumericalError("AMG: another process's setup failed");
    }
  } else {
    h_ = amg_setup(p0, v0, c_.setup);
  }
  // the levels on the device
  for (std::size_t l = 0; l <= h_.levels.size(); ++l) {
    auto L = std::make_unique<Level>();
    const CsrPattern& pat = l < h_.levels.size() ? h_.levels[l].A : h_.coarsest;
    if (l == 0) {
      L->op = &A;
      L->s7 = fusable ? dynamic_cast<const Stencil7Operator<T>*>(&A) : nullptr;
      L->A = a0_ ? a0_.get() : &dynamic_cast<const CsrOperator<T>&>(A).matrix();
      if (!a0_ && L->A->block == 1) L->csr = &dynamic_cast<const CsrOperator<T>&>(A);
    } else {
      L->own = std::make_unique<CsrMatrix<T>>(be, pat, 1);
      L->A = L->own.get();
      L->csr_op = std::make_unique<CsrOperator<T>>(*L->own);
      L->op = L->csr_op.get();
      L->csr = L->csr_op.get();
    }
    const std::size_t n = l == 0 ? A.size() : pat.rows;
    L->x = Field<T>(be, n);
    L->r = Field<T>(be, n);
    L->d = Field<T>(be, n);
    if (l > 0) L->b = Field<T>(be, n);
    L->dinv = Field<T>(be, pat.rows);
    L->bound = Field<T>(be, pat.rows);
    for (Field<T>* f : {&L->x, &L->r, &L->d, &L->dinv, &L->bound}) f->fill(T(0));
    if (l < h_.levels.size()) {
      const AmgLevelPlan& P = h_.levels[l];
      L->P = std::make_unique<CsrMatrix<T>>(be, P.P, 1);
      L->R = std::make_unique<CsrMatrix<T>>(be, P.R, 1);
      L->diag_pos = upload_array(be, P.diag_pos);
      L->weak_ptr = upload_array(be, P.weak_ptr);
      L->weak = upload_array(be, P.weak);
      L->src_ptr = upload_array(be, P.src_ptr);
      L->src = upload_array(be, P.src);
      L->own_flag = upload_array(be, std::vector<int>(P.own.begin(), P.own.end()));
      L->r_from_p = upload_array(be, std::vector<long>(P.r_from_p.begin(), P.r_from_p.end()));
      L->omega = P.omega;
    }
    lv_.push_back(std::move(L));
  }
  // the coarsest level's inverse: a dense matrix the csr family multiplies by. One level (the
  // fallback) smooths alone and needs none. A coarsening that stalled above kMaxDenseRows leaves a
  // coarsest whose n^2 values and n^3 inversion would not fit (the fallback's fine matrix of a
  // 9 177-cell test took 1.3 GB and 28 s): that level is smoothed instead.
  const std::size_t nc = h_.coarsest.rows, dense_max = std::max(kMaxDenseRows, c_.setup.coarse_size);
  cinv_.reset();
  if (lv_.size() > 1 && nc <= dense_max) {
    CsrPattern dense;
    dense.rows = dense.cols = nc;
    dense.ptr.resize(nc + 1);
    dense.col.resize(nc * nc);
    for (std::size_t i = 0; i <= nc; ++i) dense.ptr[i] = static_cast<int>(i * nc);
    for (std::size_t k = 0; k < nc * nc; ++k) dense.col[k] = static_cast<int>(k % nc);
    cinv_ = std::make_unique<CsrMatrix<T>>(be, dense, 1);
  } else if (lv_.size() > 1) {
    spdlog::warn("AMG: coarsening stopped at {} rows, too many to invert (at most {}); that level is smoothed, "
                 "not solved", nc, dense_max);
  }
  bad_ = be.alloc(sizeof(int));
  bounds_.assign(lv_.size(), 0.0);
  // the coarse level across processes: a decomposed 7-point operator (every process has one alike)
  const auto* s7 = dynamic_cast<const Stencil7Operator<T>*>(&A);
  const HaloExchange* ex = ghosts_ ? ghosts_ : s7 ? s7->exchange() : nullptr;
  // a process of one level makes a cycle's finest-level exchanges where another's hierarchy is
  // deeper and that level's products exchange (local(); every process sets up together)
  match_depth_ = false;
  if (!comm_.single()) {
    const bool exchanges = s7 && s7->exchange();
    match_depth_ = comm_.max(exchanges && lv_.size() > 1 ? 1.0 : 0.0) > 0 && lv_.size() == 1 && exchanges;
  }
  if (!comm_.single() && c_.across != AmgAcross::None && s7 && ex) {
    across_ = std::make_unique<AmgGlobalCoarse<T>>(comm_, s7->matrix(), *ex, h_, c_.across_rows);
    // multiplicative takes the residual across the cut: an operator without an exchange of its own
    // (CPR's pressure block, given the system's) is smoothed as it is, and its residual for this
    // level taken through a scalar exchange of the same boxes
    multiplicative_ = c_.across == AmgAcross::Multiplicative || c_.across == AmgAcross::After;
    across_op_ = &A;
    if (multiplicative_ && !s7->exchange()) {
      scalar_ex_ = ex->block() == 1 ? nullptr : std::make_unique<HaloExchange>(*ex, 1);
      global_op_ = std::make_unique<Stencil7Operator<T>>(s7->matrix());
      global_op_->set_exchange(scalar_ex_ ? scalar_ex_.get() : ex);
      across_op_ = global_op_.get();
    }
    if (multiplicative_) {
      t1_ = Field<T>(be, A.size());
      t2_ = Field<T>(be, A.size());
      t1_.fill(T(0));
      t2_.fill(T(0));
    }
  }
  setup_tail();
  op_ = &A;
  setup_seconds_ = since(t0);
  spdlog::debug("AMG set up in {:.3f} s: {}", setup_seconds_, h_.describe());
}

template <class T>
void Amg<T>::gather_finest() {
  if (!a0_) return;  // a CSR operator: the finest level's values are its own
  // a stencil: its coefficients into the finest level's CSR
  const auto& m = dynamic_cast<const Stencil7Operator<T>&>(*op_).matrix();
  CsrGatherArgs g;
  g.prec = precision_of<T>();
  g.nnz = a0_->nnz;
  g.block = 1;
  g.map = a0_map_.get();
  g.src = &m.coef.buffer();
  g.src_blocks = m.coef.size();
  g.val = &a0_->val.buffer();
  be_->csr().gather(g);
}

// Level l's inverse diagonal and this process's bound of D^-1 A's spectrum (one read): the
// Gershgorin bound of its values scaled by the setup's power estimate over the Gershgorin bound
// (amg_setup.hpp); NaN as infinity, which wins the maximum over the processes.
template <class T>
double Amg<T>::level_bound(std::size_t l) {
  Backend& be = *be_;
  const Precision prec = precision_of<T>();
  auto csr = be.csr();
  Level& L = *lv_[l];
  CsrDiagInvArgs di;
  di.prec = prec;
  di.a = L.A->ref();
  di.dinv = &L.dinv.buffer();
  di.bad = bad_.get();
  csr.diag_inv(di);
  csr.check_diagonal(*bad_, l == 0 ? "AMG's finest level" : "an AMG coarse level");
  CsrDinvBoundArgs db;
  db.prec = prec;
  db.a = L.A->ref();
  db.dinv = &L.dinv.buffer();
  db.out = &L.bound.buffer();
  csr.dinv_bound(db);
  return global_reduce(be, self_communicator(), ReduceOp::Max, L.bound) * h_.spectrum_ratio[l];
}

// Level l's bound (the maximum over the processes) and the smoothed interval [lo, hi] from it
template <class T>
void Amg<T>::set_interval(std::size_t l, double bound) {
  bounds_[l] = bound > 0 ? bound : 1.0;  // 0: no process has a row there (nothing to smooth)
  lv_[l]->hi = c_.upper * bounds_[l];
  lv_[l]->lo = c_.lower * lv_[l]->hi;
}

template <class T>
void Amg<T>::update_partly(const LinearOperator<T>& A) {
  if (&A != op_ || lv_.empty() || !refreshed_) {  // nothing whole to keep: the whole update
    update(A);
    return;
  }
  const auto t0 = Clock::now();
  gather_finest();
  // a failure on one process (a singular diagonal) stops every process after the combine
  std::exception_ptr failed;
  double b = 0;
  try {
    b = level_bound(0);
  } catch (const Error&) {
    failed = std::current_exception();
  }
  const double inf = std::numeric_limits<double>::infinity();
  b = comm_.max(failed || std::isnan(b) ? inf : b);
  if (failed) std::rethrow_exception(failed);
  if (!std::isfinite(b)) throw NumericalError("AMG: level 0's matrix has a NaN or infinite value");
  set_interval(0, b);
  ++partial_refreshes_;
  refresh_seconds_ = since(t0);
}

// The values of every level from the operator's, on the device.
template <class T>
void Amg<T>::refresh() {
  const auto t0 = Clock::now();
  refreshed_ = false;  // until it is whole: a partial update then makes the whole one
  Backend& be = *be_;
  const Precision prec = precision_of<T>();
  gather_finest();
  // An error on this process (a singular diagonal, a NaN) is thrown after the combine below, which
  // every process must make: the bounds from its level on are infinite, so every process stops.
  std::exception_ptr failed;
  const double inf = std::numeric_limits<double>::infinity();
  // with the debug log: each part of the refresh waited for and timed (the device's queue drained)
  const bool timed = spdlog::should_log(spdlog::level::debug);
  auto lap = [&, t = Clock::now()](std::string& log, const char* what) mutable {
    if (!timed) return;
    be.sync();
    log += fmt::format(" {} {:.2f} ms", what, 1e3 * since(t));
    t = Clock::now();
  };
  std::string log;
  try {
    for (std::size_t l = 0; l < lv_.size(); ++l) {
      Level& L = *lv_[l];
      if (timed) log += fmt::format("{}level {}:", l == 0 ? " " : "; ", l);
      // the smoother's inverse diagonal and this process's bound of D^-1 A's spectrum
      bounds_[l] = level_bound(l);
      lap(log, "diagonal and bound");
      if (!std::isfinite(bounds_[l])) {  // the coarser levels would carry it on
        std::fill(bounds_.begin() + static_cast<long>(l), bounds_.end(), inf);
        break;
      }
      if (l + 1 == lv_.size()) break;
      // the prolongator, the restriction, the next level
      const AmgLevelPlan& P = h_.levels[l];
      AmgPValuesArgs pv;
      pv.prec = prec;
      pv.rows = P.P.rows;
      pv.p_ptr = L.P->ptr.get();
      pv.diag_pos = L.diag_pos.get();
      pv.weak_ptr = L.weak_ptr.get();
      pv.weak = L.weak.get();
      pv.src_ptr = L.src_ptr.get();
      pv.src = L.src.get();
      pv.own = L.own_flag.get();
      pv.omega = L.omega;
      pv.a = &L.A->val.buffer();
      pv.p = &L.P->val.buffer();
      pv.a_values = L.A->nnz;
      pv.p_values = L.P->nnz;
      be.amg().p_values(pv);
      CsrGatherArgs g;
      g.prec = prec;
      g.nnz = L.R->nnz;
      g.block = 1;
      g.map = L.r_from_p.get();
      g.src = &L.P->val.buffer();
      g.src_blocks = L.P->nnz;
      g.val = &L.R->val.buffer();
      be.csr().gather(g);
      lap(log, "P and R");
      Level& N = *lv_[l + 1];
      AmgGalerkinArgs ga;
      ga.prec = prec;
      ga.rows = N.A->rows;
      ga.r_ptr = L.R->ptr.get();
      ga.r_col = L.R->col.get();
      ga.r_val = &L.R->val.buffer();
      ga.a_ptr = L.A->ptr.get();
      ga.a_col = L.A->col.get();
      ga.a_val = &L.A->val.buffer();
      ga.p_ptr = L.P->ptr.get();
      ga.p_col = L.P->col.get();
      ga.p_val = &L.P->val.buffer();
      ga.c_ptr = N.A->ptr.get();
      ga.c_col = N.A->col.get();
      ga.c_val = &N.A->val.buffer();
      ga.c_values = N.A->nnz;
      be.amg().galerkin(ga);
      lap(log, "Galerkin");
    }
  } catch (const Error&) {
    failed = std::current_exception();
  }
  // Each level's bound is the maximum over the processes (of their levels of that depth). With AMG
  // per process the processes' hierarchies may have different depths, so the bounds go in one
  // combine of a fixed length: every process makes the same collective call (a call per level
  // hung a 4-process CPR test where one process had a level more).
  std::vector<double> all(kMaxCombinedLevels, 0.0);
  if (!failed && lv_.size() > all.size())
    failed = std::make_exception_ptr(ConfigError("AMG: " + std::to_string(lv_.size()) + " levels, more than the " +
                                                 std::to_string(all.size()) + " it combines"));
  if (failed) std::fill(all.begin(), all.end(), inf);
  else std::copy(bounds_.begin(), bounds_.end(), all.begin());
  comm_.max(std::span<double>(all));
  if (failed) std::rethrow_exception(failed);
  for (std::size_t l = 0; l < lv_.size(); ++l) {
    if (!std::isfinite(all[l]))
      throw NumericalError("AMG: level " + std::to_string(l) + "'s matrix has a NaN or infinite value");
    set_interval(l, all[l]);
  }
  // the coarsest level: its values to the host, inverted there, the inverse back
  // (a singular one on one process stops every process before the next collective call)
  if (cinv_) {
    try {
      const Level& C = *lv_.back();
      const auto cv = C.A->val.download();
      const auto inv = dense_inverse(h_.coarsest, std::vector<double>(cv.begin(), cv.end()));
      if (tail_ == lv_.size()) {
        cinv_->val.upload(std::vector<T>(inv.begin(), inv.end()));
      } else {  // the tail holds the coarsest, which only it uses: by columns (core/physics/amg_tail.h)
        const std::size_t n = h_.coarsest.rows;
        std::vector<T> by_columns(n * n);
        for (std::size_t i = 0; i < n; ++i)
          for (std::size_t j = 0; j < n; ++j) by_columns[j * n + i] = static_cast<T>(inv[i * n + j]);
        const int at = tail_table_[PF_AMG_TAIL_FIELDS * (lv_.size() - 1 - tail_) + PF_AT_CINV];
        be_->upload(tail_vals_.buffer(), by_columns.data(), n * n * sizeof(T), static_cast<std::size_t>(at) * sizeof(T));
      }
    } catch (const Error&) {
      failed = std::current_exception();
    }
  }
  if (!comm_.single() && comm_.any(failed != nullptr)) {
    if (failed) std::rethrow_exception(failed);
    throw NumericalError("AMG: another process's coarsest level is singular");
  }
  if (failed) std::rethrow_exception(failed);
  lap(log, "; coarsest inverse");
  refresh_tail();
  if (across_) across_->refresh();
  refreshed_ = true;
  ++refreshes_;
  refresh_seconds_ = since(t0);
  if (timed) spdlog::debug("AMG refresh in {:.2f} ms:{}", 1e3 * refresh_seconds_, log);
}

// The tail: the levels from tail_ on, every one of at most c_.tail_rows rows (never the finest,
// the operator's own), packed as core/physics/amg_tail.h reads them. Their patterns go up once;
// their values come from the levels' own arrays at each refresh (refresh_tail).
template <class T>
void Amg<T>::setup_tail() {
  tail_ = lv_.size();
  tail_table_.clear();
  tail_copies_.clear();
  tail_table_buf_.reset();
  tail_ints_.reset();
  tail_vals_ = Field<T>();
  tail_work_ = Field<T>();
  const std::size_t L = lv_.size();
  const std::size_t most = c_.tail_rows >= 0 ? static_cast<std::size_t>(c_.tail_rows) : be_->one_launch_rows();
  if (most == 0 || L < 2) return;
  auto pattern = [&](std::size_t l) -> const CsrPattern& { return l < h_.levels.size() ? h_.levels[l].A : h_.coarsest; };
  std::size_t t = L;
  while (t > 1 && L - t < PF_AMG_TAIL_MAX && pattern(t - 1).rows <= most) --t;
  // the inverted coarsest alone is one launch either way, and the group's product is the slower
  // (THIN on the H200's OpenCL, docs/linalg.md)
  if (t == L || (t + 1 == L && cinv_)) return;
  std::vector<int> ints;
  std::vector<int> table(PF_AMG_TAIL_FIELDS * (L - t), -1);
  std::size_t vals = 0, work = 0;
  std::vector<TailCopy> copies;
  auto put = [&](const std::vector<int>& v) {
    const std::size_t at = ints.size();
    ints.insert(ints.end(), v.begin(), v.end());
    return at;
  };
  auto take = [&](std::size_t& end, std::size_t n) {
    const std::size_t at = end;
    end += n;
    return at;
  };
  for (std::size_t l = t; l < L; ++l) {
    int* e = table.data() + PF_AMG_TAIL_FIELDS * (l - t);
    const Level& V = *lv_[l];
    const CsrPattern& A = pattern(l);
    const std::size_t n = A.rows;
    std::size_t f[PF_AMG_TAIL_FIELDS];
    std::fill(f, f + PF_AMG_TAIL_FIELDS, std::size_t(-1));
    f[PF_AT_ROWS] = n;
    f[PF_AT_A_PTR] = put(A.ptr);
    f[PF_AT_A_COL] = put(A.col);
    f[PF_AT_A_VAL] = take(vals, A.nnz());
    copies.push_back({&V.A->val.buffer(), A.nnz(), f[PF_AT_A_VAL]});
    f[PF_AT_DINV] = take(vals, n);
    copies.push_back({&V.dinv.buffer(), n, f[PF_AT_DINV]});
    if (l + 1 < L) {
      const AmgLevelPlan& P = h_.levels[l];
      f[PF_AT_R_PTR] = put(P.R.ptr);
      f[PF_AT_R_COL] = put(P.R.col);
      f[PF_AT_R_VAL] = take(vals, P.R.nnz());
      copies.push_back({&V.R->val.buffer(), P.R.nnz(), f[PF_AT_R_VAL]});
      f[PF_AT_P_PTR] = put(P.P.ptr);
      f[PF_AT_P_COL] = put(P.P.col);
      f[PF_AT_P_VAL] = take(vals, P.P.nnz());
      copies.push_back({&V.P->val.buffer(), P.P.nnz(), f[PF_AT_P_VAL]});
    } else if (cinv_) {  // by columns, written where the inverse is made (refresh)
      f[PF_AT_CINV] = take(vals, n * n);
    }
    const int degree = c_.coarse_degree > 0 ? c_.coarse_degree : c_.degree;  // every tail level is below the finest
    f[PF_AT_DEGREE] = static_cast<std::size_t>(degree);
    if (l > t) {
      f[PF_AT_B] = take(work, n);
      f[PF_AT_X] = take(work, n);
    }
    f[PF_AT_Y] = take(work, n);
    f[PF_AT_D] = take(work, n);
    for (int k = 0; k < PF_AMG_TAIL_FIELDS; ++k) e[k] = f[k] == std::size_t(-1) ? -1 : static_cast<int>(f[k]);
  }
  // the smoothers' coefficients last: one upload at a refresh
  tail_coef_at_ = vals;
  for (std::size_t l = t; l < L; ++l) {
    int* e = table.data() + PF_AMG_TAIL_FIELDS * (l - t);
    e[PF_AT_COEF] = static_cast<int>(take(vals, 2 * static_cast<std::size_t>(e[PF_AT_DEGREE])));
  }
  constexpr std::size_t kMax = static_cast<std::size_t>(std::numeric_limits<int>::max());
  if (ints.size() > kMax || vals > kMax || work > kMax) {
    spdlog::warn("AMG: the levels of at most {} rows hold too many values to cycle in one launch; a launch a step", most);
    return;
  }
  Backend& be = *be_;
  tail_table_ = std::move(table);
  tail_table_buf_ = upload_array(be, tail_table_);
  tail_ints_n_ = ints.size();
  tail_ints_ = upload_array(be, ints);
  tail_vals_ = Field<T>(be, std::max<std::size_t>(vals, 1));
  tail_vals_.fill(T(0));
  tail_work_ = Field<T>(be, std::max<std::size_t>(work, 1));
  tail_work_.fill(T(0));
  tail_copies_ = std::move(copies);
  tail_ = t;
}

// the tail's values from the levels' (enqueued copies) and its smoothers' coefficients (one upload)
template <class T>
void Amg<T>::refresh_tail() {
  if (tail_ >= lv_.size()) return;
  for (const TailCopy& c : tail_copies_) be_->copy(*c.src, tail_vals_.buffer(), c.values * sizeof(T), 0, c.at * sizeof(T));
  std::vector<T> coef;
  for (std::size_t l = tail_; l < lv_.size(); ++l) {
    const int degree = tail_table_[PF_AMG_TAIL_FIELDS * (l - tail_) + PF_AT_DEGREE];
    for (const auto& [alpha, beta] : chebyshev_steps(c_.kind, lv_[l]->lo, lv_[l]->hi, degree)) {
      coef.push_back(static_cast<T>(alpha));
      coef.push_back(static_cast<T>(beta));
    }
  }
  be_->upload(tail_vals_.buffer(), coef.data(), coef.size() * sizeof(T), tail_coef_at_ * sizeof(T));
}

template <class T>
void Amg<T>::residual(std::size_t l, const Field<T>& b, const Field<T>& x, Field<T>& r, Guard g) const {
  lv_[l]->op->residual(b, x, r, g);
}

template <class T>
bool Amg<T>::odd_fused(std::size_t l) const {
  const Level& L = *lv_[l];
  const int degree = l > 0 && c_.coarse_degree > 0 ? c_.coarse_degree : c_.degree;
  return c_.fused && (L.s7 || L.csr) && degree % 2 == 1;
}

// Chebyshev's recurrence on D^-1 A (first kind over [lo, hi]: Saad, Iterative Methods, alg. 12.1;
// fourth kind over [0, hi]: Lottes 2023), `degree` steps; From::Zero: x is taken as 0, whatever it
// holds (the first residual is b itself: one product saved, and x is written, not read). A 7-point
// or scalar CSR level takes its steps in one pass each (stencil7 chebyshev, csr chebyshev),
// alternating between x and the level's r, which a step need not keep; from zero its first two
// steps share a pass (the first's x, start D^-1 b, computed where the second reads it), or with
// degree 1 the step and its residual do, where the level's x needs no exchange. The passes end in
// x: from zero the first pass writes whichever of the two makes them, and an odd number from x
// starts from a copy in r, which the cycle saves by prolonging into r (From::R).
template <class T>
bool Amg<T>::smooth(std::size_t l, const Field<T>& b, Field<T>& x, From start, Guard g, bool want_residual) const {
  Level& L = *lv_[l];
  const int degree = l > 0 && c_.coarse_degree > 0 ? c_.coarse_degree : c_.degree;
  const auto steps = chebyshev_steps(c_.kind, L.lo, L.hi, degree);
  auto coefficients = [&](int k, double& alpha, double& beta) {
    alpha = steps[static_cast<std::size_t>(k)].first;
    beta = steps[static_cast<std::size_t>(k)].second;
  };
  const bool fused = c_.fused && (L.s7 || L.csr);
  // the first step from zero inside the next pass: b and D^-1 read where x would be
  const bool fused_start = fused && (L.csr || !L.s7->exchange());
  auto start_pass = [&](Field<T>& out, double first, double alpha, double beta, Field<T>* r) {
    if (L.s7) L.s7->chebyshev_start(b, out, L.d, L.dinv, first, alpha, beta, r, g);
    else L.csr->chebyshev_start(b, out, L.d, L.dinv, first, alpha, beta, r, g);
  };
  if (start == From::R && !odd_fused(l)) throw Error("AMG: a smoothing from r takes an odd number of fused passes");
  Field<T>* from = &x;
  Field<T>* to = &L.r;
  int k = 0;
  if (start == From::Zero && fused_start && degree == 1 && want_residual) {
    double first = 0, unused = 0;
    coefficients(0, unused, first);
    start_pass(x, first, 0, 0, &L.r);
    return true;
  }
  if (start == From::Zero && fused_start && degree >= 2) {
    double first = 0, alpha = 0, beta = 0, unused = 0;
    coefficients(0, unused, first);
    coefficients(1, alpha, beta);
    if ((degree - 2) % 2 == 1) std::swap(from, to);  // into r: the passes after it end in x
    start_pass(*from, first, alpha, beta, nullptr);
    k = 2;
  } else if (start == From::Zero) {  // d = beta D^-1 b, x = d, neither read (x need not hold 0)
    if (fused && (degree - 1) % 2 == 1) std::swap(from, to);  // into r: the passes after it end in x
    AmgSmoothArgs s;
    s.prec = precision_of<T>();
    s.n = x.size();
    s.dinv = &L.dinv.buffer();
    s.d = &L.d.buffer();
    s.guard = g.ctrl;
    s.x = &from->buffer();
    s.r = &b.buffer();
    s.start = 1;
    coefficients(k++, s.alpha, s.beta);
    be_->amg().smooth(s);
  } else if (start == From::R) {
    std::swap(from, to);
  } else if (odd_fused(l)) {
    be_->copy(x.buffer(), L.r.buffer(), x.size() * sizeof(T));
    std::swap(from, to);
  }
  if (fused) {
    for (; k < degree; ++k) {
      double alpha = 0, beta = 0;
      coefficients(k, alpha, beta);
      if (L.s7) L.s7->chebyshev_step(b, *from, *to, L.d, L.dinv, alpha, beta, g);
      else L.csr->chebyshev_step(b, *from, *to, L.d, L.dinv, alpha, beta, g);
      std::swap(from, to);
    }
    return false;
  }
  AmgSmoothArgs s;  // the steps apart: an update after each residual
  s.prec = precision_of<T>();
  s.n = x.size();
  s.dinv = &L.dinv.buffer();
  s.d = &L.d.buffer();
  s.guard = g.ctrl;
  s.x = &x.buffer();
  s.r = &L.r.buffer();
  for (; k < degree; ++k) {
    residual(l, b, x, L.r, g);
    coefficients(k, s.alpha, s.beta);
    be_->amg().smooth(s);
  }
  return false;
}

template <class T>
void Amg<T>::cycle(std::size_t l, const Field<T>& b, Field<T>& x, Guard g) const {
  Backend& be = *be_;
  const Precision prec = precision_of<T>();
  auto csr = be.csr();
  if (l == tail_) {  // this level and those below in one launch
    AmgTailArgs t;
    t.prec = prec;
    t.levels = static_cast<int>(lv_.size() - tail_);
    t.w = c_.w_cycle ? 1 : 0;
    t.table = tail_table_buf_.get();
    t.ints = tail_ints_.get();
    t.vals = &tail_vals_.buffer();
    t.work = &tail_work_.buffer();
    t.b = &b.buffer();
    t.x = &x.buffer();
    t.guard = g.ctrl;
    t.ints_n = tail_ints_n_;
    t.vals_n = tail_vals_.size();
    t.work_n = tail_work_.size();
    t.first_rows = x.size();
    be.amg().tail_cycle(t, tail_table_);
    return;
  }
  if (l + 1 == lv_.size()) {  // the coarsest: x = A^-1 b, or smoothed when too large to invert
    if (!cinv_) {
      smooth(l, b, x, From::Zero, g);
      return;
    }
    CsrSpmvArgs s;
    s.prec = prec;
    s.a = cinv_->ref();
    s.x = &b.buffer();
    s.y = &x.buffer();
    s.guard = g.ctrl;
    csr.spmv(s);
    return;
  }
  Level& L = *lv_[l];
  Level& N = *lv_[l + 1];
  const bool have_r = smooth(l, b, x, From::Zero, g, true);
  const int passes = c_.w_cycle && l > 0 ? 2 : 1;
  const bool into_r = odd_fused(l);  // the last prolongation into r: the smoothing after it ends in x
  for (int pass = 0; pass < passes; ++pass) {
    if (pass > 0 || !have_r) residual(l, b, x, L.r, g);
    CsrSpmvArgs rs;  // b_(l+1) = R r
    rs.prec = prec;
    rs.a = L.R->ref();
    rs.x = &L.r.buffer();
    rs.y = &N.b.buffer();
    rs.guard = g.ctrl;
    csr.spmv(rs);
    cycle(l + 1, N.b, N.x, g);
    CsrSpmvArgs ps;  // x += P x_(l+1), or r = x + P x_(l+1)
    ps.prec = prec;
    ps.a = L.P->ref();
    ps.x = &N.x.buffer();
    ps.y = into_r && pass + 1 == passes ? &L.r.buffer() : &x.buffer();
    ps.z = &x.buffer();
    ps.beta = 1;
    ps.guard = g.ctrl;
    csr.spmv(ps);
  }
  smooth(l, b, x, into_r ? From::R : From::X, g);
}

template <class T>
void Amg<T>::apply(const Field<T>& r, Field<T>& z, Guard g) const {
  if (lv_.empty()) throw Error("AMG: apply before update");
  if (r.size() != op_->size() || z.size() != op_->size())
    throw ConfigError("AMG: vectors of " + std::to_string(r.size()) + " and " + std::to_string(z.size()) +
                      " values for an operator of " + std::to_string(op_->size()));
  if (!across_) {
    local(r, z, g);
    return;
  }
  if (!multiplicative_) {
    local(r, z, g);
    across_->apply_add(r, z, g);
    return;
  }
  if (c_.across == AmgAcross::After) {  // z = M r; z += C (r - A z)
    local(r, z, g);
    across_op_->residual(r, z, t1_, g);
    across_->apply_add(t1_, z, g);
    return;
  }
  // multiplicative, symmetric: z = C r; z += M (r - A z); z += C (r - A z), C the level across
  // processes, M this process's cycle
  z.fill(T(0));
  across_->apply_add(r, z, g);
  across_op_->residual(r, z, t1_, g);
  local(t1_, t2_, g);
  be_->vec().axpby({precision_of<T>(), z.size(), VecCoef::constant(1), VecCoef::constant(1), &t2_.buffer(), &z.buffer(),
                    nullptr, g.ctrl});
  across_op_->residual(r, z, t1_, g);
  across_->apply_add(t1_, z, g);
}

// this process's hierarchy: the cycle, or the smoother alone for one level (the fallback, or a
// matrix with nothing to coarsen). Across processes the finest level's products exchange ghosts
// with the neighbours, so every process must make as many as a cycle does (smoothing, a residual,
// smoothing), whatever its depth: where another process cycles, one level smooths twice, its
// residual unused (match_depth_).
template <class T>
void Amg<T>::local(const Field<T>& r, Field<T>& z, Guard g) const {
  if (lv_.size() > 1) {
    cycle(0, r, z, g);
    return;
  }
  smooth(0, r, z, From::Zero, g);
  if (!match_depth_) return;
  residual(0, r, z, lv_[0]->r, g);
  smooth(0, r, z, From::X, g);
}

template <class T>
std::string Amg<T>::describe() const {
  std::ostringstream o;
  o << "AMG (smoothed aggregation, " << (c_.w_cycle ? "W" : "V") << "-cycle, Chebyshev " << c_.degree;
  if (c_.coarse_degree > 0 && c_.coarse_degree != c_.degree) o << " (" << c_.coarse_degree << " below the finest)";
  if (c_.kind == Chebyshev::Fourth) o << ", fourth kind";
  if (tail_ < lv_.size()) o << ", levels " << tail_ << " on in one launch";
  o << ")";
  if (!lv_.empty()) o << ": " << h_.describe();
  if (across_) o << "; " << across_->describe();
  return o.str();
}

template class Amg<float>;
template class Amg<double>;

}  // namespace poreflow::linalg
