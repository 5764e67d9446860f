#include "core/linalg/amg_global.hpp"

#include <algorithm>
#include <climits>
#include <cmath>
#include <deque>
#include <exception>
#include <sstream>

#include "core/base/error.hpp"
#include "core/kernels/csr.hpp"

namespace poreflow::linalg {

namespace {

// Breadth-first groups of at most ceil(n / target) nodes over the graph adj; their count.
std::vector<int> bfs_groups(const std::vector<std::vector<int>>& adj, std::size_t target, std::size_t& count) {
  const std::size_t n = adj.size(), size = (n + target - 1) / target;
  std::vector<int> g(n, -1);
  std::deque<int> queue;
  int next = 0;
  for (std::size_t seed = 0; seed < n; ++seed) {
    if (g[seed] >= 0) continue;
    g[seed] = next;
    std::size_t taken = 1;
    queue.assign(1, static_cast<int>(seed));
    while (!queue.empty() && taken < size) {
      const int u = queue.front();
      queue.pop_front();
      for (int v : adj[static_cast<std::size_t>(u)])
        if (g[static_cast<std::size_t>(v)] < 0 && taken < size) {
          g[static_cast<std::size_t>(v)] = next;
          ++taken;
          queue.push_back(v);
        }
    }
    ++next;
  }
  count = static_cast<std::size_t>(next);
  return g;
}

// At most `target` groups of the rows of pattern p, over its graph; each row's group.
std::vector<int> graph_groups(const CsrPattern& p, std::size_t target, std::size_t& count) {
  std::vector<std::vector<int>> adj(p.rows);
  for (std::size_t r = 0; r < p.rows; ++r)
    for (int k = p.ptr[r]; k < p.ptr[r + 1]; ++k)
      if (static_cast<std::size_t>(p.col[static_cast<std::size_t>(k)]) != r) adj[r].push_back(p.col[static_cast<std::size_t>(k)]);
  std::vector<int> g(p.rows);
  for (std::size_t r = 0; r < p.rows; ++r) g[r] = static_cast<int>(r);
  count = p.rows;
  while (count > target) {
    std::size_t next = 0;
    const auto h = bfs_groups(adj, target, next);
    if (next >= count) {  // no progress (components apart): consecutive ranges
      for (int& v : g) v = static_cast<int>(static_cast<std::size_t>(v) * target / count);
      count = target;
      break;
    }
    for (int& v : g) v = h[static_cast<std::size_t>(v)];
    // the groups' graph
    std::vector<std::vector<int>> up(next);
    for (std::size_t u = 0; u < adj.size(); ++u)
      for (int v : adj[u])
        if (h[u] != h[static_cast<std::size_t>(v)]) up[static_cast<std::size_t>(h[u])].push_back(h[static_cast<std::size_t>(v)]);
    for (auto& a : up) {
      std::sort(a.begin(), a.end());
      a.erase(std::unique(a.begin(), a.end()), a.end());
    }
    adj = std::move(up);
    count = next;
  }
  return g;
}

}  // namespace

std::vector<int> amg_composite_groups(const AmgHierarchy& h, std::size_t n0, std::size_t target, std::size_t* groups) {
  target = std::max<std::size_t>(target, 1);
  const auto pattern = [&](std::size_t l) -> const CsrPattern& { return l < h.levels.size() ? h.levels[l].A : h.coarsest; };
  if (pattern(0).rows != n0)
    throw ConfigError("AMG across processes: a hierarchy of " + std::to_string(pattern(0).rows) + " rows for " +
                      std::to_string(n0));
  // a row of level 0 stands for itself unless it is empty (a halo or inactive cell: no unknown)
  std::vector<int> g(n0);
  const CsrPattern& p0 = pattern(0);
  for (std::size_t i = 0; i < n0; ++i) g[i] = p0.ptr[i] < p0.ptr[i + 1] ? static_cast<int>(i) : -1;
  // level 0's aggregates at least (the rows they leave out have no strong neighbour), then down;
  // below level 0 a row in no aggregate joins a neighbour's, so that no aggregate's cells drop out
  std::size_t l = 0;
  for (; l < h.levels.size() && (l == 0 || pattern(l).rows > target); ++l) {
    std::vector<int> agg = h.levels[l].agg;
    if (l > 0) {
      const CsrPattern& p = pattern(l);
      for (std::size_t r = 0; r < p.rows; ++r)
        for (int k = p.ptr[r]; agg[r] < 0 && k < p.ptr[r + 1]; ++k)
          agg[r] = h.levels[l].agg[static_cast<std::size_t>(p.col[static_cast<std::size_t>(k)])];
    }
    for (int& v : g) v = v >= 0 ? agg[static_cast<std::size_t>(v)] : -1;
  }
  std::size_t count = pattern(l).rows;
  if (count > target) {
    const auto m = graph_groups(pattern(l), target, count);
    for (int& v : g) v = v >= 0 ? m[static_cast<std::size_t>(v)] : -1;
  }
  // numbered 0.. in increasing order of the groups that hold a cell
  std::vector<int> renum(count, -1);
  for (int v : g)
    if (v >= 0) renum[static_cast<std::size_t>(v)] = 0;
  int next = 0;
  for (int& r : renum)
    if (r >= 0) r = next++;
  for (int& v : g)
    if (v >= 0) v = renum[static_cast<std::size_t>(v)];
  *groups = static_cast<std::size_t>(next);
  return g;
}

template <class T>
struct AmgGlobalCoarse<T>::Device {
  std::unique_ptr<CsrMatrix<T>> s, r1, r2, q_local, e, einv;
  mutable Field<T> part, rc, rg, zc;
};

template <class T>
AmgGlobalCoarse<T>::AmgGlobalCoarse(const Communicator& comm, const Stencil7Matrix<T>& m, const HaloExchange& ghosts,
                                    const AmgHierarchy& h, std::size_t rows)
    : comm_(comm), m_(m), d_(std::make_unique<Device>()) {
  Backend& be = m.coef.backend();
  const Box3& box = m.box;
  const std::size_t extent = box.extent(), P = static_cast<std::size_t>(comm.size()), me = static_cast<std::size_t>(comm.rank());
  std::vector<int> active(extent), group;
  // what one process alone may refuse, refused on every process before the first collective call
  std::exception_ptr failed;
  try {
    if (m.block != 1)
      throw ConfigError("AMG across processes: a scalar 7-point matrix, not one of blocks of " + std::to_string(m.block));
    const Box3& eb = ghosts.box();
    if (eb.nx != box.nx || eb.ny != box.ny || eb.nz != box.nz || eb.off != box.off || eb.sy != box.sy || eb.sz != box.sz ||
        eb.halo != box.halo || box.halo < 1)
      throw ConfigError("AMG across processes: the exchange's box " + eb.describe() + " is not the matrix's " + box.describe());
    if (m.coef.size() >= std::size_t(INT_MAX))
      throw ConfigError("AMG across processes: a coefficient array of " + std::to_string(m.coef.size()) +
                        " values (32-bit indices hold fewer than 2^31)");
    be.download(*m.active, active.data(), extent * sizeof(int));
    group = amg_composite_groups(h, extent, std::max<std::size_t>(rows / P, 1), &own_);
  } catch (const Error&) {
    failed = std::current_exception();
  }
  if (comm.any(failed != nullptr)) {
    if (failed) std::rethrow_exception(failed);
    throw ConfigError("AMG across processes: another process's part was refused");
  }

  // E's rows: the processes' groups in rank order
  std::vector<double> counts(P, 0.0);
  counts[me] = static_cast<double>(own_);
  comm.sum(std::span<double>(counts));
  for (std::size_t p = 0; p < P; ++p) {
    if (p < me) first_ += static_cast<std::size_t>(counts[p]);
    total_ += static_cast<std::size_t>(counts[p]);
  }
  if (total_ >= (std::size_t(1) << 24))
    throw ConfigError("AMG across processes: " + std::to_string(total_) + " coarse rows (at most 2^24)");

  // each cell's row of E, the ghosts' from their owners (row + 1 in every value of a cell; 0: none)
  const std::size_t b = static_cast<std::size_t>(ghosts.block());
  std::vector<T> ids(b * extent, T(0));
  for (std::size_t i = 0; i < extent; ++i)
    if (group[i] >= 0)
      for (std::size_t u = 0; u < b; ++u) ids[b * i + u] = T(double(first_ + static_cast<std::size_t>(group[i]) + 1));
  Field<T> idf(be, ids.size());
  idf.upload(ids);
  ghosts.exchange(idf.buffer());
  ids = idf.download();
  cell_row_.assign(extent, -1);
  for (std::size_t i = 0; i < extent; ++i) {
    if (group[i] >= 0) cell_row_[i] = static_cast<int>(first_) + group[i];
    else if (!active[i] && ids[b * i] > T(0.5)) cell_row_[i] = static_cast<int>(std::lround(double(ids[b * i]))) - 1;
  }

  // For each of this process's rows of E, its columns (the rows of E of the grouped cells'
  // neighbours, local or across the cut) and for each entry the 7-point coefficients it sums (S:
  // E's values = S times the coefficient array, one product on the device). The restriction in
  // two products: the groups' cells in pieces of at most kPiece (R1), the pieces summed (R2): a
  // group of thousands of cells on one warp would leave the GPU idle. Q_local: each cell's group.
  const long off[7] = {-box.sz, -box.sy, -1, 0, 1, box.sy, box.sz};
  const int plane[7] = {kStencilZm, kStencilYm, kStencilXm, kStencilDiag, kStencilXp, kStencilYp, kStencilZp};
  std::vector<std::vector<int>> members(own_);
  CsrPattern ql, r1, r2, ep, sp;
  ql.rows = extent;
  ql.cols = own_;
  ql.ptr.assign(extent + 1, 0);
  for (std::size_t L = 0; L < extent; ++L) {
    if (group[L] >= 0) {
      ql.col.push_back(group[L]);
      members[static_cast<std::size_t>(group[L])].push_back(static_cast<int>(L));
    }
    ql.ptr[L + 1] = static_cast<int>(ql.col.size());
  }
  constexpr std::size_t kPiece = 256;
  r1.cols = extent;
  r2.rows = ep.rows = own_;
  ep.cols = total_;
  r2.ptr.assign(own_ + 1, 0);
  ep.ptr.assign(own_ + 1, 0);
  std::vector<int> slot(total_, -1);  // column J's entry in the current row of E
  std::vector<std::vector<long>> sums;  // per entry of E: the coefficients it sums
  for (std::size_t I = 0; I < own_; ++I) {
    const auto& mem = members[I];
    for (std::size_t q = 0; q < mem.size(); q += kPiece) {
      for (std::size_t k = q; k < std::min(q + kPiece, mem.size()); ++k) r1.col.push_back(mem[k]);
      r1.ptr.push_back(static_cast<int>(r1.col.size()));
      r2.col.push_back(static_cast<int>(r1.rows++));
    }
    r2.ptr[I + 1] = static_cast<int>(r2.col.size());
    std::vector<int> cols;
    std::vector<std::vector<long>> row;
    for (int L : mem)
      for (int e = 0; e < 7; ++e) {
        const long N = L + off[e];
        if (N < 0 || static_cast<std::size_t>(N) >= extent || cell_row_[static_cast<std::size_t>(N)] < 0) continue;
        const int J = cell_row_[static_cast<std::size_t>(N)];
        if (slot[static_cast<std::size_t>(J)] < 0) {
          slot[static_cast<std::size_t>(J)] = static_cast<int>(cols.size());
          cols.push_back(J);
          row.emplace_back();
        }
        row[static_cast<std::size_t>(slot[static_cast<std::size_t>(J)])].push_back(static_cast<long>(plane[e]) *
                                                                               static_cast<long>(extent) + L);
      }
    std::vector<std::size_t> order(cols.size());
    for (std::size_t k = 0; k < order.size(); ++k) order[k] = k;
    std::sort(order.begin(), order.end(), [&](std::size_t u, std::size_t v) { return cols[u] < cols[v]; });
    for (std::size_t k : order) {
      ep.col.push_back(cols[k]);
      std::sort(row[k].begin(), row[k].end());
      sums.push_back(std::move(row[k]));
    }
    for (int J : cols) slot[static_cast<std::size_t>(J)] = -1;
    ep.ptr[I + 1] = static_cast<int>(ep.col.size());
  }
  r2.cols = r1.rows;
  sp.rows = ep.nnz();
  sp.cols = m.coef.size();
  sp.ptr.assign(sp.rows + 1, 0);
  for (std::size_t k = 0; k < sums.size(); ++k) {
    for (long c : sums[k]) sp.col.push_back(static_cast<int>(c));  // c < coef.size() < 2^31 (checked above)
    sp.ptr[k + 1] = static_cast<int>(sp.col.size());
  }

  // every process's entries of E, once: rows and columns in one combine
  std::vector<double> nnz(P, 0.0);
  nnz[me] = static_cast<double>(ep.nnz());
  comm.sum(std::span<double>(nnz));
  entry_first_.assign(P + 1, 0);
  for (std::size_t p = 0; p < P; ++p) entry_first_[p + 1] = entry_first_[p] + static_cast<std::size_t>(nnz[p]);
  const std::size_t all = entry_first_[P];
  std::vector<double> rc(2 * all, 0.0);
  for (std::size_t I = 0; I < own_; ++I)
    for (int k = ep.ptr[I]; k < ep.ptr[I + 1]; ++k) {
      const std::size_t at = entry_first_[me] + static_cast<std::size_t>(k);
      rc[at] = static_cast<double>(first_ + I);
      rc[all + at] = static_cast<double>(ep.col[static_cast<std::size_t>(k)]);
    }
  comm.sum(std::span<double>(rc));
  all_rows_.resize(all);
  all_cols_.resize(all);
  for (std::size_t k = 0; k < all; ++k) {
    all_rows_[k] = static_cast<int>(rc[k]);
    all_cols_[k] = static_cast<int>(rc[all + k]);
  }

  // the device's part: only a process with groups has one
  if (own_ == 0) return;
  Device& d = *d_;
  const auto ones = [&](const CsrPattern& p) {
    auto c = std::make_unique<CsrMatrix<T>>(be, p, 1);
    c->val.fill(T(1));
    return c;
  };
  d.s = ones(sp);
  d.r1 = ones(r1);
  d.r2 = ones(r2);
  d.q_local = ones(ql);
  d.e = std::make_unique<CsrMatrix<T>>(be, ep, 1);
  CsrPattern dense;
  dense.rows = own_;
  dense.cols = total_;
  dense.ptr.resize(own_ + 1);
  dense.col.resize(own_ * total_);
  for (std::size_t i = 0; i <= own_; ++i) dense.ptr[i] = static_cast<int>(i * total_);
  for (std::size_t k = 0; k < dense.col.size(); ++k) dense.col[k] = static_cast<int>(k % total_);
  d.einv = std::make_unique<CsrMatrix<T>>(be, dense, 1);
  d.part = Field<T>(be, r1.rows);
  d.rc = Field<T>(be, own_);
  d.zc = Field<T>(be, own_);
  d.rg = Field<T>(be, total_);
  for (Field<T>* f : {&d.part, &d.rc, &d.zc, &d.rg}) f->fill(T(0));
}

template <class T>
AmgGlobalCoarse<T>::~AmgGlobalCoarse() = default;

template <class T>
void AmgGlobalCoarse<T>::refresh() {
  if (total_ == 0) return;
  const std::size_t me = static_cast<std::size_t>(comm_.rank());
  combine_.assign(entry_first_.back(), 0.0);
  if (own_ > 0) {
    Backend& be = m_.coef.backend();
    const Precision prec = precision_of<T>();
    Device& d = *d_;
    CsrSpmvArgs sv;  // E's values: S times the coefficients
    sv.prec = prec;
    sv.a = d.s->ref();
    sv.x = &m_.coef.buffer();
    sv.y = &d.e->val.buffer();
    be.csr().spmv(sv);
    const auto ev = d.e->val.download();
    std::copy(ev.begin(), ev.end(), combine_.begin() + static_cast<long>(entry_first_[me]));
  }
  comm_.sum(std::span<double>(combine_));
  // every process factors E (one that throws, throws on all); its own rows of the inverse stay
  std::vector<double> dense(total_ * total_, 0.0);
  for (std::size_t k = 0; k < combine_.size(); ++k)
    dense[static_cast<std::size_t>(all_rows_[k]) * total_ + static_cast<std::size_t>(all_cols_[k])] += combine_[k];
  const auto inv = dense_inverse_rows(total_, std::move(dense), first_, own_, "AMG's coarse level across processes");
  if (own_ > 0) d_->einv->val.upload(std::vector<T>(inv.begin(), inv.end()));
}

template <class T>
void AmgGlobalCoarse<T>::apply_add(const Field<T>& r, Field<T>& z, Guard g) const {
  if (total_ == 0) return;
  Backend& be = m_.coef.backend();
  const Precision prec = precision_of<T>();
  combine_.assign(total_, 0.0);
  const Device& d = *d_;
  if (own_ > 0) {
    CsrSpmvArgs s;
    s.prec = prec;
    s.a = d.r1->ref();
    s.x = &r.buffer();
    s.y = &d.part.buffer();
    s.guard = g.ctrl;
    be.csr().spmv(s);
    s.a = d.r2->ref();
    s.x = &d.part.buffer();
    s.y = &d.rc.buffer();
    be.csr().spmv(s);
    const auto rc = d.rc.download();
    std::copy(rc.begin(), rc.end(), combine_.begin() + static_cast<long>(first_));
  }
  comm_.sum(std::span<double>(combine_));
  if (own_ == 0) return;
  d.rg.upload(std::vector<T>(combine_.begin(), combine_.end()));
  CsrSpmvArgs s;
  s.prec = prec;
  s.a = d.einv->ref();
  s.x = &d.rg.buffer();
  s.y = &d.zc.buffer();
  s.guard = g.ctrl;
  be.csr().spmv(s);
  s.a = d.q_local->ref();
  s.x = &d.zc.buffer();
  s.y = &z.buffer();
  s.beta = 1;
  be.csr().spmv(s);
}

template <class T>
std::string AmgGlobalCoarse<T>::describe() const {
  std::ostringstream o;
  o << "a coarse level across " << comm_.size() << " processes of " << total_ << " rows (" << own_ << " here)";
  return o.str();
}

template class AmgGlobalCoarse<float>;
template class AmgGlobalCoarse<double>;

}  // namespace poreflow::linalg
