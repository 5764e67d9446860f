#include "core/models/fluids3d.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/base/error.hpp"
#include "core/base/format.hpp"
#include "core/models/state.hpp"
#include "core/physics/fluids3d.h"

namespace poreflow {

MemoryNeed fluids3d_need(const Fluids3DConfig& cfg, Precision prec, bool host) {
  if (cfg.n < 1 || cfg.n > kFluids3dMaxN)  // the counts below stay exact (core/base/limits.hpp)
    throw ConfigError("a fluids3d grid of " + std::to_string(cfg.n) + " cells a side is outside [1, " + std::to_string(kFluids3dMaxN) + "]");
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
Fluids3D<T>::Fluids3D(Backend& be, const Fluids3DConfig& cfg, const Communicator& comm)
    : be_(be),
      comm_(comm),
      cfg_(cfg),
      flow_(be, Box3::standalone(cfg.n, cfg.n, cfg.n, 1)),
      scheme_(be, cfg_, flow_.box),
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
  return {{"density", flow_.interior(0)}, {"u", flow_.interior(1)}, {"v", flow_.interior(2)}, {"w", flow_.interior(3)}};
}

template <class T>
std::vector<std::string> Fluids3D<T>::series_columns() const {
  return {"step", "time", "total_density", "max_velocity", "sweeps_per_solve", "max_sweeps_per_solve", "max_divergence"};
}

template <class T>
std::vector<double> Fluids3D<T>::series_row() const {
  const auto dens = flow_.interior(0);
  const auto u = flow_.with_ghosts(1), v = flow_.with_ghosts(2), w = flow_.with_ghosts(3);
  const Box3& box_ = flow_.box;
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
  const auto row = series_row();
  return {{"total_density", row[2]}, {"max_velocity", row[3]}, {"sweeps_per_solve_last_step", row[4]}, {"max_divergence", row[6]}};
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
