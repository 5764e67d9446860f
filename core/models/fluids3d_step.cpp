#include "core/models/fluids3d_step.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "core/base/error.hpp"
#include "core/base/format.hpp"
#include "core/comm/fluids_split.hpp"
#include "core/kernels/reduce.hpp"
#include "core/models/state.hpp"
#include "core/physics/fluids3d.h"

namespace poreflow {

template <class T>
FluidsFields<T>::FluidsFields(Backend& be, const Box3& b, std::size_t values)
    : box(b),
      d(be, values ? values : b.extent()),
      d0(be, values ? values : b.extent()),
      u(be, values ? values : b.extent()),
      v(be, values ? values : b.extent()),
      w(be, values ? values : b.extent()),
      u0(be, values ? values : b.extent()),
      v0(be, values ? values : b.extent()),
      w0(be, values ? values : b.extent()) {
  for (Field<T>* f : {&d, &d0, &u, &v, &w, &u0, &v0, &w0}) f->fill(T(0));
}

template <class T>
const Field<T>& FluidsFields<T>::operator[](int which) const {
  switch (which) {
    case 0: return d;
    case 1: return u;
    case 2: return v;
    default: return w;
  }
}

template <class T>
std::vector<double> FluidsFields<T>::with_ghosts(int which) const {
  const auto h = (*this)[which].download();
  return std::vector<double>(h.begin(), h.end());
}

template <class T>
std::vector<double> FluidsFields<T>::interior(int which) const {
  const auto h = (*this)[which].download();
  std::vector<double> out(static_cast<std::size_t>(box.cells()));
  std::size_t q = 0;
  for (long k = 0; k < box.nz; ++k)
    for (long j = 0; j < box.ny; ++j)
      for (long i = 0; i < box.nx; ++i) out[q++] = double(h[box.at(i, j, k)]);
  return out;
}

template <class T>
void FluidsFields<T>::set(const std::vector<double>& dens, const std::vector<double>& su, const std::vector<double>& sv,
                           const std::vector<double>& sw) {
  const std::size_t cells = static_cast<std::size_t>(box.cells());
  const std::vector<double>* src[4] = {&dens, &su, &sv, &sw};
  Field<T>* dst[4] = {&d, &u, &v, &w};
  for (int q = 0; q < 4; ++q) {
    if (src[q]->size() != cells) throw Error("fluids3d: " + std::to_string(src[q]->size()) + " values, not " + std::to_string(cells));
    std::vector<T> a(dst[q]->size(), T(0));
    std::size_t c = 0;
    for (long k = 0; k < box.nz; ++k)
      for (long j = 0; j < box.ny; ++j)
        for (long i = 0; i < box.nx; ++i) a[box.at(i, j, k)] = T((*src[q])[c++]);
    dst[q]->upload(a);
    FluidsBoundaryArgs b;
    b.prec = precision_of<T>();
    b.box = box;
    b.x = &dst[q]->buffer();
    b.b = q;  // density 0, u 1, v 2, w 3
    d.backend().fluids3d().boundary(b);
  }
}

template <class T>
void FluidsFields<T>::bind(State& s) {
  const char* names[] = {"density", "density_prev", "u", "v", "w", "u_prev", "v_prev", "w_prev"};
  Field<T>* fs[] = {&d, &d0, &u, &v, &w, &u0, &v0, &w0};
  for (int k = 0; k < 8; ++k) s.field(names[k], *fs[k]);
}

// A slab of a grid cut along z between processes: where it lies, which of its z faces are walls,
// and its exchanges with the slabs below and above.
template <class T>
struct StableFluids<T>::Slab {
  const Communicator* comm = nullptr;
  long k0 = 0, z_cells = 0;  // its first layer, the grid's layers
  long capacity = 1;         // layers its arrays hold below and above (at most the thinnest slab's)
  int walls = PF_FL_WALL_ALL;
  std::unique_ptr<LayerExchange> layers, planes;
  std::unique_ptr<HaloFluidsSplit> split;
};

template <class T>
StableFluids<T>::StableFluids(Backend& be, const Fluids3DConfig& cfg, const Box3& box, const FluidsCut* cut)
    : be_(be),
      cfg_(cfg),
      box_(box),
      px_(be, fluids3d_packed_values(box)),
      px0_(be, fluids3d_packed_values(box)),
      ctrl_(be.alloc(fluids3d_ctrl_bytes(kFluidsSolves))) {
  be.fluids3d().reset(*ctrl_, kFluidsSolves);
  // the extra planes are read only across a face shared with another process, but a checkpoint
  // holds them: 0 until then, not what the allocation left
  px_.fill(T(0));
  px0_.fill(T(0));
  if (!cut || !cut->comm || cut->comm->single()) return;
  const Communicator& comm = *cut->comm;
  const Decomposition& d = cut->d;
  auto sl = std::make_unique<Slab>();
  sl->comm = &comm;
  const RankBox rb = d.box(comm.rank());
  sl->k0 = rb.k0;
  sl->z_cells = d.grid[2];
  long thinnest = rb.nz;
  for (int r = 0; r < d.size(); ++r) thinnest = std::min(thinnest, d.box(r).nz);
  sl->capacity = std::max(1L, std::min(cut->trace_layers, thinnest));
  const int below = d.neighbour(comm.rank(), 2, 0), above = d.neighbour(comm.rank(), 2, 1);
  if (below >= 0) sl->walls &= ~PF_FL_WALL_B;
  if (above >= 0) sl->walls &= ~PF_FL_WALL_T;
  const std::size_t word = sizeof(T);
  sl->layers = std::make_unique<LayerExchange>(comm, below, above, be, static_cast<std::size_t>(box.sz) * word, sl->capacity);
  sl->planes = std::make_unique<LayerExchange>(comm, below, above, be,
                                               static_cast<std::size_t>(phys::fl_rb_plane(box.view())) * word, 1);
  sl->split = std::make_unique<HaloFluidsSplit>(be, *sl->planes, comm);
  slab_ = std::move(sl);
}

template <class T>
StableFluids<T>::~StableFluids() = default;

template <class T>
void StableFluids<T>::exchange(Field<T>& x, long layers) const {
  if (!slab_) return;
  slab_->layers->exchange(x.buffer(), static_cast<std::size_t>(box_.at(-1, -1, 0)) * sizeof(T), box_.nz, layers);
}

template <class T>
void StableFluids<T>::exchange_velocity(FluidsFields<T>& f) const {
  for (Field<T>* c : {&f.u, &f.v, &f.w}) exchange(*c, 1);
}

template <class T>
long StableFluids<T>::exchanges() const {
  return slab_ ? slab_->layers->exchanges() + slab_->planes->exchanges() : 0;
}

template <class T>
std::size_t StableFluids<T>::exchanged_bytes() const {
  return slab_ ? slab_->layers->bytes_sent() + slab_->planes->bytes_sent() : 0;
}

template <class T>
void StableFluids<T>::bind(State& s) {
  s.field("packed_x", px_);
  s.field("packed_x0", px0_);
}

template <class T>
void StableFluids<T>::add_sources(FluidsFields<T>& f, long step) {
  auto k = be_.fluids3d();
  const long k0 = slab_ ? slab_->k0 : 0;
  for (const auto& s : cfg_.sources) {
    if (step < s.first_step || step >= s.last_step) continue;
    FluidsSourceArgs a;
    a.prec = precision_of<T>();
    a.box = box_;
    a.shape = cfg_.box_shape;
    a.i0 = s.cell[0] - s.radius;
    a.i1 = s.cell[0] + s.radius;
    a.j0 = s.cell[1] - s.radius;
    a.j1 = s.cell[1] + s.radius;
    // a slab adds the layers of the source it holds
    a.k0 = std::max(s.cell[2] - s.radius - k0, 0L);
    a.k1 = std::min(s.cell[2] + s.radius - k0, box_.nz - 1);
    if (a.k0 > a.k1) continue;
    if (s.density) {
      a.x = &f.d.buffer();
      a.b = PF_FL_SCALAR;
      a.value = cfg_.dt * s.rate;
      k.add_source(a);
      continue;
    }
    Field<T>* comp[3] = {&f.u, &f.v, &f.w};
    for (int c = 0; c < 3; ++c) {
      if (s.force[c] == 0) continue;
      a.x = &comp[c]->buffer();
      a.b = PF_FL_U + c;
      a.value = cfg_.dt * s.force[c];
      k.add_source(a);
    }
  }
}

template <class T>
void StableFluids<T>::solve(Field<T>& x, const Field<T>& x0, int b, double a, double c, int block, double tol, long sweeps,
                        bool zero_guess) {
  auto k = be_.fluids3d();
  FluidsPackArgs p;
  p.prec = precision_of<T>();
  p.box = box_;
  p.shape = cfg_.box_shape;
  p.x = &x0.buffer();
  p.xp = &px0_.buffer();
  k.pack(p);
  // the guess: 0 (a projection, as the classic program) or the field before diffusion
  if (zero_guess) px_.fill(T(0));
  else be_.copy(px0_.buffer(), px_.buffer(), px0_.size() * sizeof(T));
  FluidsSolveArgs s;
  s.prec = precision_of<T>();
  s.box = box_;
  s.x = &px_.buffer();
  s.x0 = &px0_.buffer();
  s.a = a;
  s.c = c;
  s.b = b;
  s.tolerance = tol;
  s.shape = cfg_.sweep_shape;
  s.ctrl = ctrl_.get();
  s.ctrl_block = block;
  if (slab_) {
    // the guess's planes from the neighbours; then each colour's after its sweep (HaloFluidsSplit)
    s.walls = slab_->walls;
    s.split = slab_->split.get();
    slab_->split->exchange(px_.buffer(), s, -1);
  }
  k.solve(s, 0, sweeps);  // every sweep enqueued; the device stops them
  FluidsUnpackArgs u;
  u.prec = precision_of<T>();
  u.box = box_;
  u.xp = &px_.buffer();
  u.x = &x.buffer();
  u.b = b;
  u.shape = cfg_.box_shape;
  k.unpack(u);
}

template <class T>
void StableFluids<T>::diffuse(Field<T>& x, const Field<T>& x0, int b, double k, int block) {
  const double n = double(cfg_.n), a = cfg_.dt * k * n * n;
  solve(x, x0, b, a, 1 + 6 * a, block, cfg_.tolerance, cfg_.max_sweeps, false);
}

template <class T>
void StableFluids<T>::project(Field<T>& u, Field<T>& v, Field<T>& w, Field<T>& p, Field<T>& div, int block, double tol,
                          long sweeps) {
  const double h = 1.0 / double(cfg_.n);
  auto k = be_.fluids3d();
  FluidsDivergenceArgs d;
  d.prec = precision_of<T>();
  d.box = box_;
  d.u = &u.buffer();
  d.v = &v.buffer();
  d.w = &w.buffer();
  d.div = &div.buffer();
  d.p = nullptr;  // the solve starts from p = 0 in its packed copy
  d.h = h;
  d.shape = cfg_.box_shape;
  exchange(u, 1);  // the central differences read the neighbours' first layer
  exchange(v, 1);
  exchange(w, 1);
  k.divergence(d);
  solve(p, div, PF_FL_SCALAR, 1.0, 6.0, block, tol, sweeps, true);
  FluidsGradientArgs g;
  g.prec = precision_of<T>();
  g.box = box_;
  g.u = &u.buffer();
  g.v = &v.buffer();
  g.w = &w.buffer();
  g.p = &p.buffer();
  g.scale = cfg_.classic_projection ? 0.5 : 0.5 / h;
  g.shape = cfg_.box_shape;
  exchange(p, 1);
  k.gradient(g);
}

template <class T>
long StableFluids<T>::trace_layers(const Field<T>& w, Field<T>& scratch, long step) const {
  if (!slab_) return 1;
  // max |w| over the slab's layers and their first ghost layers (each ghost is at most a cell's or
  // a neighbour's cell's value), copied to the start of a scratch array (one the next kernel
  // overwrites) for the reduction: the deeper layers hold what earlier exchanges left there
  const std::size_t word = sizeof(T), first = static_cast<std::size_t>(box_.at(-1, -1, -1));
  const std::size_t n = static_cast<std::size_t>(box_.nz + 2) * static_cast<std::size_t>(box_.sz);
  be_.copy(w.buffer(), scratch.buffer(), n * word, first * word);
  ReduceArgs r;
  r.prec = precision_of<T>();
  r.op = ReduceOp::MaxAbs;
  r.cfg.variant = be_.reduce().default_variant();
  r.a = &scratch.buffer();
  r.n = n;
  // NaN as infinity before the maximum over the processes (MPI's max leaves NaN undefined), so
  // every process stops alike
  const double local = be_.reduce().run(r);
  const double wmax = slab_->comm->max(std::isnan(local) ? std::numeric_limits<double>::infinity() : local);
  const double reach = cfg_.dt * double(slab_->z_cells) * wmax;  // cells a trace moves along z
  // the trace reads layers up to reach + 1 away (fl_advect_point's floor and its upper neighbour)
  const long need = std::isfinite(reach) ? static_cast<long>(std::ceil(reach)) + 1 : -1;
  if (need < 0 || need > slab_->capacity)
    throw NumericalError("fluids3d over " + std::to_string(slab_->comm->size()) + " processes: in step " + std::to_string(step + 1) +
                         " the velocity (max |w| " + num_text(wmax) + ") traces " + num_text(reach) +
                         " cells along z, and a slab keeps " + std::to_string(slab_->capacity) +
                         " of its neighbours' layers, enough for " + std::to_string(slab_->capacity - 1) +
                         " cells (solver.trace_layers = " + std::to_string(cfg_.trace_layers) +
                         ", at most the thinnest slab's layers): set solver.trace_layers to at least " +
                         (need < 0 ? std::string("a finite trace") : std::to_string(need)) +
                         ", use fewer processes (thicker slabs), or a smaller time.dt (docs/mpi.md)");
  return need;
}

template <class T>
void StableFluids<T>::advect(Field<T>& d, const Field<T>& d0, const Field<T>& u, const Field<T>& v, const Field<T>& w, int b,
                             long layers) {
  FluidsAdvectArgs a;
  a.prec = precision_of<T>();
  a.box = box_;
  a.d = &d.buffer();
  a.d0 = &d0.buffer();
  a.u = &u.buffer();
  a.v = &v.buffer();
  a.w = &w.buffer();
  a.dt = cfg_.dt;
  a.b = b;
  a.shape = cfg_.box_shape;
  if (slab_) {
    exchange(const_cast<Field<T>&>(d0), layers);
    // the grid's walls, else the layers received
    a.z_cells = slab_->z_cells;
    a.z_lo = (slab_->walls & PF_FL_WALL_B) ? 0.5 : 1.0 - double(layers);
    a.z_hi = (slab_->walls & PF_FL_WALL_T) ? double(box_.nz) + 0.5 : double(box_.nz + layers - 1);
  }
  be_.fluids3d().advect(a);
}

template <class T>
void StableFluids<T>::step(FluidsFields<T>& f, long step) {
  be_.fluids3d().reset(*ctrl_, kFluidsSolves);
  add_sources(f, step);
  // velocity: diffuse each component (the guess: what the target holds, the last step's diffused
  // field), project, advect each component along the projected field, project again
  f.u0.swap(f.u);
  f.v0.swap(f.v);
  f.w0.swap(f.w);
  diffuse(f.u, f.u0, PF_FL_U, cfg_.viscosity, kSolveU);
  diffuse(f.v, f.v0, PF_FL_V, cfg_.viscosity, kSolveV);
  diffuse(f.w, f.w0, PF_FL_W, cfg_.viscosity, kSolveW);
  project(f.u, f.v, f.w, f.u0, f.v0, kSolveProject1, cfg_.tolerance, cfg_.max_sweeps);
  f.u0.swap(f.u);
  f.v0.swap(f.v);
  f.w0.swap(f.w);
  const long along = trace_layers(f.w0, f.w, step);  // (f.w: written by the third advect)
  advect(f.u, f.u0, f.u0, f.v0, f.w0, PF_FL_U, along);
  advect(f.v, f.v0, f.u0, f.v0, f.w0, PF_FL_V, along);
  advect(f.w, f.w0, f.u0, f.v0, f.w0, PF_FL_W, along);
  project(f.u, f.v, f.w, f.u0, f.v0, kSolveProject2, cfg_.tolerance, cfg_.max_sweeps);
  // density: diffuse, then advect along the new velocity
  f.d0.swap(f.d);
  diffuse(f.d, f.d0, PF_FL_SCALAR, cfg_.diffusion, kSolveDensity);
  f.d0.swap(f.d);
  advect(f.d, f.d0, f.u, f.v, f.w, PF_FL_SCALAR, trace_layers(f.w, f.d, step));
  exchange_velocity(f);  // the step's velocity whole up to the neighbours' first layer (the divergence reported)
}

template <class T>
std::array<FluidsSolveStatus, kFluidsSolves> StableFluids<T>::solve_status() const {
  std::vector<unsigned long long> w(static_cast<std::size_t>(kFluidsSolves) * PF_CV_WORDS);
  be_.download(*ctrl_, w.data(), w.size() * sizeof(unsigned long long));
  std::array<FluidsSolveStatus, kFluidsSolves> s;
  for (int b = 0; b < kFluidsSolves; ++b)
    s[b] = Fluids3DKernels::decode(w.data(), b, precision_of<T>(), cfg_.max_sweeps);
  return s;
}

template <class T>
long StableFluids<T>::project(FluidsFields<T>& f, double tolerance, long max_sweeps) {
  be_.fluids3d().reset(*ctrl_, kFluidsSolves);
  project(f.u, f.v, f.w, f.u0, f.v0, kSolveProject1, tolerance, max_sweeps);
  return solve_status()[kSolveProject1].sweeps;
}

template struct FluidsFields<float>;
template struct FluidsFields<double>;
template class StableFluids<float>;
template class StableFluids<double>;

}  // namespace poreflow
