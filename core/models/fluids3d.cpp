#include "core/models/fluids3d.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/base/error.hpp"
#include "core/io/case_file.hpp"
#include "core/io/png_plot.hpp"
#include "core/io/vtk.hpp"
#include "core/models/state.hpp"
#include "core/physics/fluids3d.h"

namespace poreflow {

namespace {

std::string idx(std::size_t i) { return "sources[" + std::to_string(i) + "]"; }

// paper 001's test program: a density source and an upward (+y) force at the centre for the first
// ten steps
std::vector<FluidsSource> default_sources(long n) {
  const long c = (n - 1) / 2;
  FluidsSource d;
  d.density = true;
  d.cell = {c, c, c};
  d.rate = 1000;  // 100 per step at dt = 0.1
  d.last_step = 10;
  FluidsSource f = d;
  f.density = false;
  f.rate = 0;
  f.force = {0, 50, 0};  // 5 per step at dt = 0.1
  return {d, f};
}

}  // namespace

Fluids3DConfig read_fluids3d_config(io::CaseFile& cf) {
  Fluids3DConfig c;
  c.n = cf.int_at_least("grid.n", c.n, 1);
  c.dt = cf.positive("time.dt", c.dt);
  c.steps = cf.int_at_least("time.steps", c.steps, 1);
  c.viscosity = cf.non_negative("fluid.viscosity", c.viscosity);
  c.diffusion = cf.non_negative("fluid.diffusion", c.diffusion);
  c.tolerance = cf.non_negative("solver.tolerance", c.tolerance);
  c.max_sweeps = cf.int_at_least("solver.max_sweeps", c.max_sweeps, 1);
  const auto projection = cf.get_string("solver.projection", "stam");
  if (projection == "classic") c.classic_projection = true;
  else if (projection != "stam") cf.fail("solver.projection", "= '" + projection + "' is not stam or classic");
  c.sweep_shape = cf.get_choice("solver.shape", "march:32x8", parse_box_shape);
  check_box_shape(c.sweep_shape, "solver.shape");
  if (c.sweep_shape.threads() % 32 != 0)
    cf.fail("solver.shape", "= '" + to_string(c.sweep_shape) + "' must have a multiple of 32 threads");
  c.box_shape = cf.get_choice("solver.box_shape", "march:32x8", parse_box_shape);
  check_box_shape(c.box_shape, "solver.box_shape");

  if (!cf.has("sources")) {
    c.sources = default_sources(c.n);
    return c;
  }
  const std::size_t ns = cf.count("sources");
  for (std::size_t s = 0; s < ns; ++s) {
    const std::string base = idx(s);
    FluidsSource src;
    const auto kind = cf.get_string(base + ".quantity", "density");
    if (kind == "density") src.density = true;
    else if (kind == "force") src.density = false;
    else cf.fail(base + ".quantity", "= '" + kind + "' is not density or force");
    src.radius = cf.int_at_least(base + ".radius", 0, 0);
    auto cell = cf.get_numbers(base + ".cell");
    const long mid = (c.n - 1) / 2;
    if (cell.empty()) cell = {double(mid), double(mid), double(mid)};
    if (cell.size() != 3) cf.fail(base + ".cell", "must be [i, j, k] (0-based cell indices)");
    for (int a = 0; a < 3; ++a) {
      if (cell[a] != std::floor(cell[a])) cf.fail(base + ".cell", "must hold integers");
      src.cell[a] = static_cast<long>(cell[a]);
      if (src.cell[a] - src.radius < 0 || src.cell[a] + src.radius >= c.n)
        cf.fail(base + ".cell", "with radius " + std::to_string(src.radius) + " reaches outside the grid of " +
                                    std::to_string(c.n) + " cells a side (indices 0.." + std::to_string(c.n - 1) + ")");
    }
    if (src.density) {
      src.rate = cf.get_double(base + ".rate", 1000);
      if (!std::isfinite(src.rate)) cf.fail(base + ".rate", "must be a finite number");
    } else {
      auto f = cf.get_numbers(base + ".force");
      if (f.size() != 3) cf.fail(base + ".force", "must be [fx, fy, fz] (velocity per unit time)");
      for (int a = 0; a < 3; ++a) {
        if (!std::isfinite(f[a])) cf.fail(base + ".force", "must hold finite numbers");
        src.force[a] = f[a];
      }
    }
    src.first_step = cf.int_at_least(base + ".first_step", 0, 0);
    src.last_step = cf.int_at_least(base + ".last_step", 10, 0);
    if (src.last_step < src.first_step) cf.fail(base + ".last_step", "is before first_step");
    c.sources.push_back(src);
  }
  return c;
}

MemoryNeed fluids3d_need(const Fluids3DConfig& cfg, Precision prec, bool host) {
  const std::size_t side = static_cast<std::size_t>(cfg.n) + 2, extent = side * side * side, v = size_of(prec);
  const std::size_t cells = static_cast<std::size_t>(cfg.n) * cfg.n * cfg.n;
  MemoryNeed need;
  need.what = "the " + std::to_string(cfg.n) + "^3 fluids3d grid (" + std::to_string(cells) + " cells)";
  // density, velocity and their previous values (8 fields with their ghost layers; project's
  // pressure and divergence reuse two of them), lin_solve's two colour-packed arrays, the
  // control blocks
  const std::size_t hx = (static_cast<std::size_t>(cfg.n) + 1) / 2, packed = 2 * hx * cfg.n * cfg.n;
  need.total = 8 * extent * v + 2 * packed * v + fluids3d_ctrl_bytes(kFluidsSolves);
  need.largest = extent * v;
  if (host) need.total += 4 * cells * sizeof(double) + extent * v;  // output copies
  return need;
}

template <class T>
Fluids3D<T>::Fluids3D(Backend& be, const Fluids3DConfig& cfg)
    : be_(be),
      cfg_(cfg),
      box_(Box3::standalone(cfg.n, cfg.n, cfg.n, 1)),
      extent_(box_.extent()),
      d_(be, extent_),
      d0_(be, extent_),
      u_(be, extent_),
      v_(be, extent_),
      w_(be, extent_),
      u0_(be, extent_),
      v0_(be, extent_),
      w0_(be, extent_),
      px_(be, fluids3d_packed_values(box_)),
      px0_(be, fluids3d_packed_values(box_)),
      ctrl_(be.alloc(fluids3d_ctrl_bytes(kFluidsSolves))) {
  for (Field<T>* f : {&d_, &d0_, &u_, &v_, &w_, &u0_, &v0_, &w0_}) f->fill(T(0));
  be.fluids3d().reset(*ctrl_, kFluidsSolves);
}

template <class T>
std::string Fluids3D<T>::summary() const {
  std::ostringstream o;
  o << "fluids3d: " << cfg_.n << "^3 cells, dt " << cfg_.dt << ", " << cfg_.steps << " steps, viscosity " << cfg_.viscosity
    << ", diffusion " << cfg_.diffusion << ", lin_solve: tolerance " << cfg_.tolerance << ", at most " << cfg_.max_sweeps
    << " sweeps, shape " << to_string(cfg_.sweep_shape) << "; " << cfg_.sources.size() << " sources; "
    << to_string(precision_of<T>()) << " on " << be_.name();
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
const Field<T>& Fluids3D<T>::field(int which) const {
  switch (which) {
    case 0: return d_;
    case 1: return u_;
    case 2: return v_;
    default: return w_;
  }
}

template <class T>
void Fluids3D<T>::add_sources() {
  auto k = be_.fluids3d();
  for (const auto& s : cfg_.sources) {
    if (steps_ < s.first_step || steps_ >= s.last_step) continue;
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
      a.x = &d_.buffer();
      a.b = PF_FL_SCALAR;
      a.value = cfg_.dt * s.rate;
      k.add_source(a);
      continue;
    }
    Field<T>* comp[3] = {&u_, &v_, &w_};
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
void Fluids3D<T>::solve(Field<T>& x, const Field<T>& x0, int b, double a, double c, int block, double tol, long sweeps,
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
void Fluids3D<T>::diffuse(Field<T>& x, const Field<T>& x0, int b, double k, int block) {
  const double n = double(cfg_.n), a = cfg_.dt * k * n * n;
  solve(x, x0, b, a, 1 + 6 * a, block, cfg_.tolerance, cfg_.max_sweeps, false);
}

template <class T>
void Fluids3D<T>::project(Field<T>& u, Field<T>& v, Field<T>& w, Field<T>& p, Field<T>& div, int block, double tol,
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
void Fluids3D<T>::advect(Field<T>& d, const Field<T>& d0, const Field<T>& u, const Field<T>& v, const Field<T>& w, int b) {
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
void Fluids3D<T>::step(double) {
  be_.fluids3d().reset(*ctrl_, kFluidsSolves);
  add_sources();
  // velocity: diffuse each component (the guess: what the target holds, the last step's diffused
  // field), project, advect each component along the projected field, project again
  u0_.swap(u_);
  v0_.swap(v_);
  w0_.swap(w_);
  diffuse(u_, u0_, PF_FL_U, cfg_.viscosity, kSolveU);
  diffuse(v_, v0_, PF_FL_V, cfg_.viscosity, kSolveV);
  diffuse(w_, w0_, PF_FL_W, cfg_.viscosity, kSolveW);
  project(u_, v_, w_, u0_, v0_, kSolveProject1, cfg_.tolerance, cfg_.max_sweeps);
  u0_.swap(u_);
  v0_.swap(v_);
  w0_.swap(w_);
  advect(u_, u0_, u0_, v0_, w0_, PF_FL_U);
  advect(v_, v0_, u0_, v0_, w0_, PF_FL_V);
  advect(w_, w0_, u0_, v0_, w0_, PF_FL_W);
  project(u_, v_, w_, u0_, v0_, kSolveProject2, cfg_.tolerance, cfg_.max_sweeps);
  // density: diffuse, then advect along the new velocity
  d0_.swap(d_);
  diffuse(d_, d0_, PF_FL_SCALAR, cfg_.diffusion, kSolveDensity);
  d0_.swap(d_);
  advect(d_, d0_, u_, v_, w_, PF_FL_SCALAR);
  ++steps_;
  // a NaN stops the device's solves; look every ten steps (one small read) and at the end
  if (steps_ % 10 == 0 || steps_ == cfg_.steps) check_finite();
}

template <class T>
std::array<FluidsSolveStatus, kFluidsSolves> Fluids3D<T>::solve_status() const {
  std::vector<unsigned long long> w(static_cast<std::size_t>(kFluidsSolves) * PF_CV_WORDS);
  be_.download(*ctrl_, w.data(), w.size() * sizeof(unsigned long long));
  std::array<FluidsSolveStatus, kFluidsSolves> s;
  for (int b = 0; b < kFluidsSolves; ++b)
    s[b] = Fluids3DKernels::decode(w.data(), b, precision_of<T>(), cfg_.max_sweeps);
  return s;
}

template <class T>
void Fluids3D<T>::check_finite() const {
  if (steps_ == 0) return;
  const auto st = solve_status();
  static const char* names[kFluidsSolves] = {"diffusion of u", "diffusion of v", "diffusion of w", "first projection",
                                             "second projection", "diffusion of density"};
  for (int b = 0; b < kFluidsSolves; ++b)
    if (st[b].non_finite)
      throw NumericalError("fluids3d: the " + std::string(names[b]) + " of step " + std::to_string(steps_) +
                           " met a NaN or infinite change (dt " + std::to_string(cfg_.dt) + " too large?)");
}

template <class T>
std::string Fluids3D<T>::progress() const {
  std::ostringstream o;
  o << "step " << steps_;
  return o.str();
}

template <class T>
std::vector<double> Fluids3D<T>::array(int which) const {
  const auto h = field(which).download();
  return std::vector<double>(h.begin(), h.end());
}

template <class T>
std::vector<double> Fluids3D<T>::interior(int which) const {
  const auto h = field(which).download();
  const long n = cfg_.n;
  std::vector<double> out(static_cast<std::size_t>(n * n * n));
  std::size_t q = 0;
  for (long k = 0; k < n; ++k)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i) out[q++] = double(h[box_.at(i, j, k)]);
  return out;
}

template <class T>
void Fluids3D<T>::set_state(const std::vector<double>& dens, const std::vector<double>& u, const std::vector<double>& v,
                            const std::vector<double>& w) {
  const long n = cfg_.n;
  const std::size_t cells = static_cast<std::size_t>(n * n * n);
  const std::vector<double>* src[4] = {&dens, &u, &v, &w};
  Field<T>* dst[4] = {&d_, &u_, &v_, &w_};
  for (int q = 0; q < 4; ++q) {
    if (src[q]->size() != cells) throw Error("fluids3d set_state: " + std::to_string(src[q]->size()) + " values, not " + std::to_string(cells));
    std::vector<T> a(extent_, T(0));
    std::size_t c = 0;
    for (long k = 0; k < n; ++k)
      for (long j = 0; j < n; ++j)
        for (long i = 0; i < n; ++i) a[box_.at(i, j, k)] = T((*src[q])[c++]);
    dst[q]->upload(a);
    FluidsBoundaryArgs b;
    b.prec = precision_of<T>();
    b.box = box_;
    b.x = &dst[q]->buffer();
    b.b = q;  // density 0, u 1, v 2, w 3
    be_.fluids3d().boundary(b);
  }
}

template <class T>
long Fluids3D<T>::project_only(double tolerance, long max_sweeps) {
  be_.fluids3d().reset(*ctrl_, kFluidsSolves);
  project(u_, v_, w_, u0_, v0_, kSolveProject1, tolerance, max_sweeps);
  std::vector<unsigned long long> wds(static_cast<std::size_t>(kFluidsSolves) * PF_CV_WORDS);
  be_.download(*ctrl_, wds.data(), wds.size() * sizeof(unsigned long long));
  return Fluids3DKernels::decode(wds.data(), kSolveProject1, precision_of<T>(), max_sweeps).sweeps;
}

template <class T>
std::vector<double> Fluids3D<T>::pressure_array() const {
  const auto h = u0_.download();
  return std::vector<double>(h.begin(), h.end());
}

template <class T>
std::vector<NamedField> Fluids3D<T>::fields() const {
  return {{"density", interior(0)}, {"u", interior(1)}, {"v", interior(2)}, {"w", interior(3)}};
}

template <class T>
std::vector<std::string> Fluids3D<T>::series_columns() const {
  return {"step", "time", "total_density", "max_velocity", "sweeps_per_solve", "max_sweeps_per_solve", "max_divergence"};
}

template <class T>
std::vector<double> Fluids3D<T>::series_row() const {
  const auto dens = interior(0);
  const auto u = array(1), v = array(2), w = array(3);
  double total = 0, vmax = 0, divmax = 0;
  for (double x : dens) total += x;
  const long n = cfg_.n;
  const double inv2h = 0.5 * double(n);  // 1 / (2 h)
  for (long k = 0; k < n; ++k)
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i) {
        const long at = box_.at(i, j, k);
        vmax = std::max(vmax, std::sqrt(u[at] * u[at] + v[at] * v[at] + w[at] * w[at]));
        const double div = ((u[at + 1] - u[at - 1]) + (v[at + box_.sy] - v[at - box_.sy]) + (w[at + box_.sz] - w[at - box_.sz])) * inv2h;
        divmax = std::max(divmax, std::fabs(div));
      }
  double mean = 0, most = 0;
  if (steps_ > 0) {
    const auto st = solve_status();
    for (const auto& s : st) {
      mean += double(s.sweeps) / double(kFluidsSolves);
      most = std::max(most, double(s.sweeps));
    }
  }
  return {double(steps_), time(), total, vmax, mean, most, divmax};
}

template <class T>
void Fluids3D<T>::write_plot(const std::filesystem::path& png) const {
  const auto dens = interior(0);
  const long n = cfg_.n, kc = n / 2, jc = n / 2;
  std::vector<double> xy(static_cast<std::size_t>(n * n)), xz(static_cast<std::size_t>(n * n));
  double hi = 0;
  for (long j = 0; j < n; ++j)
    for (long i = 0; i < n; ++i) {
      xy[j * n + i] = dens[(kc * n + j) * n + i];
      xz[j * n + i] = dens[(j * n + jc) * n + i];  // row j of the map is layer k = j
      hi = std::max({hi, xy[j * n + i], xz[j * n + i]});
    }
  char title[160];
  std::snprintf(title, sizeof title, "density, slice z = centre (x right, y up), step %ld, t = %.3g", steps_, time());
  io::write_map_png(png, int(n), int(n), xy, 0, hi > 0 ? hi : 1, title);
  auto other = png;
  other.replace_filename(png.stem().string() + "_xz" + png.extension().string());
  std::snprintf(title, sizeof title, "density, slice y = centre (x right, z up), step %ld, t = %.3g", steps_, time());
  io::write_map_png(other, int(n), int(n), xz, 0, hi > 0 ? hi : 1, title);
}

template <class T>
std::string Fluids3D<T>::write_snapshot(const std::filesystem::path& dir, const std::string& stem) const {
  const auto g = grid();
  const auto u = interior(1), v = interior(2), w = interior(3);
  std::vector<double> vel(3 * u.size());
  for (std::size_t c = 0; c < u.size(); ++c) {
    vel[3 * c] = u[c];
    vel[3 * c + 1] = v[c];
    vel[3 * c + 2] = w[c];
  }
  std::vector<io::VtkField> fs;
  fs.push_back({"density", interior(0), 1});
  fs.push_back({"velocity", std::move(vel), 3});
  const std::string file = stem + ".vti";
  io::write_vti(dir / file, g.points, g.origin, g.spacing, fs, time());
  return file;
}

template <class T>
std::map<std::string, double> Fluids3D<T>::final_stats() const {
  const auto row = series_row();
  return {{"total_density", row[2]}, {"max_velocity", row[3]}, {"sweeps_per_solve_last_step", row[4]}, {"max_divergence", row[6]}};
}

// every array, the work ones included (a solve may start from what the last one left), so a
// restart continues bit for bit
template <class T>
void Fluids3D<T>::save_state(ModelState& s) const {
  const char* names[] = {"density", "density_prev", "u", "v", "w", "u_prev", "v_prev", "w_prev", "packed_x", "packed_x0"};
  const Field<T>* fs[] = {&d_, &d0_, &u_, &v_, &w_, &u0_, &v0_, &w0_, &px_, &px0_};
  for (int k = 0; k < 10; ++k) s.put(names[k], *fs[k]);
  s.set_int("steps", steps_);
  s.set_int("sweeps_total", sweeps_total_);
  s.set_int("solves_read", solves_read_);
}

template <class T>
void Fluids3D<T>::load_state(const ModelState& s) {
  const char* names[] = {"density", "density_prev", "u", "v", "w", "u_prev", "v_prev", "w_prev", "packed_x", "packed_x0"};
  Field<T>* fs[] = {&d_, &d0_, &u_, &v_, &w_, &u0_, &v0_, &w0_, &px_, &px0_};
  for (int k = 0; k < 10; ++k) s.get(names[k], *fs[k]);
  steps_ = s.integer("steps");
  sweeps_total_ = s.integer("sweeps_total");
  solves_read_ = s.integer("solves_read");
}

template class Fluids3D<float>;
template class Fluids3D<double>;

}  // namespace poreflow
