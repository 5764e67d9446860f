#include "core/models/fluids3d.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/base/error.hpp"
#include "core/base/format.hpp"
#include "core/comm/gather_plane.hpp"
#include "core/models/state.hpp"
#include "core/physics/fluids3d.h"

namespace poreflow {

namespace {

// Over several processes, the grid cut into slabs along z at even layers (the red-black colours
// stay the grid's), each keeping cfg.trace_layers of its neighbours' layers below and above, at
// most as many as the thinnest slab has.
FluidsCut make_cut(const Fluids3DConfig& cfg, const Communicator& comm) {
  FluidsCut c;
  if (comm.single()) return c;
  c.comm = &comm;
  c.d = decompose_layers(cfg.n, cfg.n, cfg.n, comm.size(), 2, true);
  long thinnest = cfg.n;
  for (int r = 0; r < c.d.size(); ++r) thinnest = std::min(thinnest, c.d.box(r).nz);
  c.trace_layers = std::min(cfg.trace_layers, thinnest);
  return c;
}

// this process's cells in its arrays: the grid, or its slab between the neighbours' layers
Box3 box_of(const Fluids3DConfig& cfg, const FluidsCut& c) {
  if (!c.comm) return Box3::standalone(cfg.n, cfg.n, cfg.n, 1);
  const RankBox rb = c.d.box(c.comm->rank());
  const long L = c.trace_layers;
  return Box3::inside(cfg.n, cfg.n, rb.nz, 1, cfg.n + 2, cfg.n + 2, rb.nz + 2 * L, 1, 1, L);
}

std::size_t values_of(const Fluids3DConfig& cfg, const FluidsCut& c) {
  if (!c.comm) return 0;
  const Box3 b = box_of(cfg, c);
  return static_cast<std::size_t>(b.sz) * static_cast<std::size_t>(b.nz + 2 * c.trace_layers);
}

}  // namespace

MemoryNeed fluids3d_need(const Fluids3DConfig& cfg, Precision prec, bool host, int processes) {
  if (cfg.n < 1 || cfg.n > kFluids3dMaxN)  // the counts below stay exact (core/base/limits.hpp)
    throw ConfigError("a fluids3d grid of " + std::to_string(cfg.n) + " cells a side is outside [1, " + std::to_string(kFluids3dMaxN) + "]");
  const std::size_t side = static_cast<std::size_t>(cfg.n) + 2, v = size_of(prec);
  const std::size_t cells = static_cast<std::size_t>(cfg.n) * cfg.n * cfg.n;
  // a slab: its layers (the thickest: the even cuts leave them within two) and the neighbours'
  const std::size_t p = static_cast<std::size_t>(std::max(processes, 1));
  const std::size_t nz = p == 1 ? static_cast<std::size_t>(cfg.n) : std::min<std::size_t>(cfg.n, (cfg.n + p - 1) / p + 2);
  const std::size_t extra = p == 1 ? 2 : 2 * static_cast<std::size_t>(std::min<long>(cfg.trace_layers, long(nz)));
  const std::size_t extent = side * side * (nz + extra);
  MemoryNeed need;
  need.what = "the " + std::to_string(cfg.n) + "^3 fluids3d grid (" + std::to_string(cells) + " cells" +
              (p > 1 ? ", a slab of at most " + std::to_string(nz) + " layers a process)" : ")");
  // density, velocity and their previous values (8 fields with their ghost layers; project's
  // pressure and divergence reuse two of them), lin_solve's two colour-packed arrays (with their
  // extra planes), the control blocks
  const std::size_t hx = (static_cast<std::size_t>(cfg.n) + 1) / 2, packed = 2 * hx * cfg.n * (nz + 2);
  need.total = 8 * extent * v + 2 * packed * v + fluids3d_ctrl_bytes(kFluidsSolves);
  need.largest = extent * v;
  if (host) need.total += 4 * cells * sizeof(double) + extent * v;  // output copies (a slab's: process 0 gathers the grid)
  return need;
}

template <class T>
Fluids3D<T>::Fluids3D(Backend& be, const Fluids3DConfig& cfg, const Communicator& comm)
    : be_(be),
      comm_(comm),
      cfg_(cfg),
      cut_(make_cut(cfg, comm)),
      flow_(be, box_of(cfg, cut_), values_of(cfg, cut_)),
      scheme_(be, cfg_, flow_.box, cut_.comm ? &cut_ : nullptr),
      clock_([&] {
        TimeStepOptions o;
        o.dt_init = cfg.dt;
        o.fixed_count = true;
        return o;
      }()) {
  bind_state();
}

template <class T>
std::string Fluids3D<T>::summary() const {
  std::ostringstream o;
  o << "fluids3d: " << cfg_.n << "^3 cells, dt " << cfg_.dt << ", " << cfg_.steps << " steps, viscosity " << cfg_.viscosity
    << ", diffusion " << cfg_.diffusion << ", lin_solve: tolerance " << cfg_.tolerance << ", at most " << cfg_.max_sweeps
    << " sweeps, shape " << to_string(cfg_.sweep_shape) << "; " << cfg_.sources.size() << " sources; "
    << to_string(precision_of<T>()) << " on " << be_.name();
  if (cut()) {
    const RankBox rb = cut_.d.box(comm_.rank());
    o << "; cut into " << comm_.size() << " slabs along z (layers " << rb.k0 << " .. " << rb.k0 + rb.nz - 1
      << " here), each keeping " << cut_.trace_layers << " of its neighbours' layers for advect's trace";
  }
  return o.str();
}

template <class T>
GridInfo Fluids3D<T>::grid() const {
  GridInfo g;
  const int n = static_cast<int>(cfg_.n);
  const double h = 1.0 / double(cfg_.n);
  g.points = {n, n, n};
  g.origin = {h / 2, h / 2, h / 2};
  g.spacing = {h, h, h};
  return g;
}

template <class T>
void Fluids3D<T>::step(double t_stop) {
  clock_.advance(t_stop, [this](double) {
    scheme_.step(flow_, steps());
    TimeController::Outcome out;
    out.ok = true;
    return out;
  });
  // a NaN stops the device's solves; look every ten steps (one small read) and at the end
  if (steps() % 10 == 0 || steps() == cfg_.steps) check_finite();
}

template <class T>
void Fluids3D<T>::check_finite() const {
  if (steps() == 0) return;
  const auto st = scheme_.solve_status();
  static const char* names[kFluidsSolves] = {"diffusion of u", "diffusion of v", "diffusion of w", "first projection",
                                             "second projection", "diffusion of density"};
  for (int b = 0; b < kFluidsSolves; ++b)
    if (st[b].non_finite)
      throw NumericalError("fluids3d: the " + std::string(names[b]) + " of step " + std::to_string(steps()) +
                           " met a NaN or infinite change (dt " + num_text(cfg_.dt) + " too large?)");
}

template <class T>
std::string Fluids3D<T>::progress() const {
  std::ostringstream o;
  o << "step " << steps();
  return o.str();
}

template <class T>
std::vector<NamedField> Fluids3D<T>::fields() const {
  if (cut()) return gathered_;
  return {{"density", flow_.interior(0)}, {"u", flow_.interior(1)}, {"v", flow_.interior(2)}, {"w", flow_.interior(3)}};
}

template <class T>
std::vector<double> Fluids3D<T>::density_plane(int axis, long at) const {
  if (axis != 1 && axis != 2) throw ConfigError("fluids3d: a density plane across y or z, not axis " + std::to_string(axis));
  const long n = cfg_.n;
  if (cut()) {
    if (at != n / 2) throw ConfigError("fluids3d: over several processes only the centre planes are gathered");
    return planes_[axis - 1];
  }
  return plane_of({n, n, n}, axis, at, flow_.interior(0));
}

// Over several processes: the row from every process's sums and maxima, and for a snapshot each
// process's piece, with on process 0 the maps' two planes (Gather::Maps) or the whole fields
// (Gather::Whole; the slabs are layers in rank order, so their cells follow one another as in the
// grid).
template <class T>
void Fluids3D<T>::before_output(bool fields, Gather gather) {
  if (!cut()) return;
  row_ = row();
  if (!fields) return;
  make_piece();
  gathered_.clear();
  planes_[0].clear(), planes_[1].clear();
  if (gather == Gather::Maps) {
    // the slab's density as make_piece read it (its first cells; the layer above follows them)
    const auto& d = piece_.fields[0].values;
    const std::vector<double> dens(d.begin(), d.begin() + cut_.d.box(comm_.rank()).cells());
    for (int a : {1, 2}) planes_[a - 1] = gather_plane(comm_, cut_.d, a, cfg_.n / 2, dens);
  }
  if (gather != Gather::Whole) return;
  std::vector<std::size_t> counts;
  for (int r = 0; r < comm_.size(); ++r) counts.push_back(static_cast<std::size_t>(cut_.d.box(r).cells()) * sizeof(double));
  const bool root = comm_.rank() == 0;
  const std::size_t all = static_cast<std::size_t>(cfg_.n) * cfg_.n * cfg_.n;
  const char* names[] = {"density", "u", "v", "w"};
  for (int q = 0; q < 4; ++q) {
    const auto mine = flow_.interior(q);
    std::vector<double> grid(root ? all : 0);
    comm_.gather(mine.data(), mine.size() * sizeof(double), grid.data(), counts, 0);
    if (root) gathered_.push_back({names[q], std::move(grid)});
  }
}

// This process's slab of the fields with the first layer of the slab above (the pieces of an
// image share their faces, or ParaView leaves a gap between them): each process sends its first
// layer down and its last up (the pair's messages are symmetric; the last goes unused).
template <class T>
void Fluids3D<T>::make_piece() {
  const int r = comm_.rank(), n = comm_.size();
  const int N = static_cast<int>(cfg_.n);
  const std::size_t layer = static_cast<std::size_t>(N) * static_cast<std::size_t>(N);
  piece_ = ImagePiece{};
  piece_.index = r;
  piece_.count = n;
  for (int q = 0; q < n; ++q) {
    const RankBox b = cut_.d.box(q);
    const int top = static_cast<int>(b.k0 + b.nz - 1) + (q + 1 < n ? 1 : 0);
    piece_.extents.push_back({0, N - 1, 0, N - 1, static_cast<int>(b.k0), top});
  }
  const auto& e = piece_.extents[static_cast<std::size_t>(r)];
  piece_.first = {0, 0, e[4]};
  piece_.points = {N, N, e[5] - e[4] + 1};
  const char* names[] = {"density", "u", "v", "w"};
  for (int f = 0; f < 4; ++f) {
    std::vector<double> v = flow_.interior(f);  // the slab, x fastest, z slowest
    const std::size_t own = v.size();
    std::vector<double> below(r > 0 ? layer : 0);
    if (r + 1 < n) v.resize(own + layer);
    std::vector<Communicator::Transfer> t;
    if (r > 0) t.push_back({r - 1, v.data(), below.data(), layer * sizeof(double), 2 * f, 2 * f + 1});
    if (r + 1 < n) t.push_back({r + 1, v.data() + own - layer, v.data() + own, layer * sizeof(double), 2 * f + 1, 2 * f});
    comm_.exchange(t);
    piece_.fields.push_back({names[f], std::move(v)});
  }
}

template <class T>
std::vector<std::string> Fluids3D<T>::series_columns() const {
  return {"step", "time", "total_density", "max_velocity", "sweeps_per_solve", "max_sweeps_per_solve", "max_divergence"};
}

template <class T>
std::vector<double> Fluids3D<T>::series_row() const {
  return cut() ? row_ : row();
}

template <class T>
std::vector<double> Fluids3D<T>::row() const {
  const auto dens = flow_.interior(0);
  const auto u = flow_.with_ghosts(1), v = flow_.with_ghosts(2), w = flow_.with_ghosts(3);
  const Box3& box_ = flow_.box;
  double total = 0, vmax = 0, divmax = 0;
  for (double x : dens) total += x;
  const double inv2h = 0.5 * double(cfg_.n);  // 1 / (2 h)
  for (long k = 0; k < box_.nz; ++k)
    for (long j = 0; j < box_.ny; ++j)
      for (long i = 0; i < box_.nx; ++i) {
        const long at = box_.at(i, j, k);
        vmax = std::max(vmax, std::sqrt(u[at] * u[at] + v[at] * v[at] + w[at] * w[at]));
        const double div = ((u[at + 1] - u[at - 1]) + (v[at + box_.sy] - v[at - box_.sy]) + (w[at + box_.sz] - w[at - box_.sz])) * inv2h;
        divmax = std::max(divmax, std::fabs(div));
      }
  double mean = 0, most = 0;
  if (steps() > 0) {
    const auto st = scheme_.solve_status();
    for (const auto& s : st) {
      mean += double(s.sweeps) / double(kFluidsSolves);
      most = std::max(most, double(s.sweeps));
    }
  }
  return {double(steps()), time(), comm_.sum(total), comm_.max(vmax), mean, most, comm_.max(divmax)};
}

template <class T>
std::map<std::string, double> Fluids3D<T>::final_stats() const {
  const auto r = row();  // (every process calls this)
  std::map<std::string, double> s = {
      {"total_density", r[2]}, {"max_velocity", r[3]}, {"sweeps_per_solve_last_step", r[4]}, {"max_divergence", r[6]}};
  if (cut()) {
    s["exchanges"] = double(scheme_.exchanges());
    s["exchanged_mb"] = double(scheme_.exchanged_bytes()) / 1e6;
  }
  return s;
}

// every array, the work ones included (a solve may start from what the last one left), so a
// restart continues bit for bit
template <class T>
void Fluids3D<T>::bind_state() {
  flow_.bind(state_);
  scheme_.bind(state_);
  clock_.bind(state_);
}

template class Fluids3D<float>;
template class Fluids3D<double>;

}  // namespace poreflow
