#include "core/models/fluids3d_step.hpp"

#include "core/base/error.hpp"
#include "core/models/state.hpp"
#include "core/physics/fluids3d.h"

namespace poreflow {

template <class T>
FluidsFields<T>::FluidsFields(Backend& be, const Box3& b)
    : box(b),
      d(be, b.extent()),
      d0(be, b.extent()),
      u(be, b.extent()),
      v(be, b.extent()),
      w(be, b.extent()),
      u0(be, b.extent()),
      v0(be, b.extent()),
      w0(be, b.extent()) {
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
  const long n = box.nx;
  std::vector<double> out(static_cast<std::size_t>(n * n * n));
  std::size_t q = 0;
  for (long k = 0; k < n; ++k)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i) out[q++] = double(h[box.at(i, j, k)]);
  return out;
}

template <class T>
void FluidsFields<T>::set(const std::vector<double>& dens, const std::vector<double>& su, const std::vector<double>& sv,
                           const std::vector<double>& sw) {
  const long n = box.nx;
  const std::size_t cells = static_cast<std::size_t>(n * n * n);
  const std::vector<double>* src[4] = {&dens, &su, &sv, &sw};
  Field<T>* dst[4] = {&d, &u, &v, &w};
  for (int q = 0; q < 4; ++q) {
    if (src[q]->size() != cells) throw Error("fluids3d: " + std::to_string(src[q]->size()) + " values, not " + std::to_string(cells));
    std::vector<T> a(box.extent(), T(0));
    std::size_t c = 0;
    for (long k = 0; k < n; ++k)
      for (long j = 0; j < n; ++j)
        for (long i = 0; i < n; ++i) a[box.at(i, j, k)] = T((*src[q])[c++]);
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

template <class T>
StableFluids<T>::StableFluids(Backend& be, const Fluids3DConfig& cfg, const Box3& box)
    : be_(be),
      cfg_(cfg),
      box_(box),
      px_(be, fluids3d_packed_values(box)),
      px0_(be, fluids3d_packed_values(box)),
      ctrl_(be.alloc(fluids3d_ctrl_bytes(kFluidsSolves))) {
  be.fluids3d().reset(*ctrl_, kFluidsSolves);
}

template <class T>
void StableFluids<T>::bind(State& s) {
  s.field("packed_x", px_);
  s.field("packed_x0", px0_);
}

template <class T>
void StableFluids<T>::add_sources(FluidsFields<T>& f, long step) {
  auto k = be_.fluids3d();
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
    a.k0 = s.cell[2] - s.radius;
    a.k1 = s.cell[2] + s.radius;
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
  k.gradient(g);
}

template <class T>
void StableFluids<T>::advect(Field<T>& d, const Field<T>& d0, const Field<T>& u, const Field<T>& v, const Field<T>& w, int b) {
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
  advect(f.u, f.u0, f.u0, f.v0, f.w0, PF_FL_U);
  advect(f.v, f.v0, f.u0, f.v0, f.w0, PF_FL_V);
  advect(f.w, f.w0, f.u0, f.v0, f.w0, PF_FL_W);
  project(f.u, f.v, f.w, f.u0, f.v0, kSolveProject2, cfg_.tolerance, cfg_.max_sweeps);
  // density: diffuse, then advect along the new velocity
  f.d0.swap(f.d);
  diffuse(f.d, f.d0, PF_FL_SCALAR, cfg_.diffusion, kSolveDensity);
  f.d0.swap(f.d);
  advect(f.d, f.d0, f.u, f.v, f.w, PF_FL_SCALAR);
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
