#include "core/models/bl1d.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include <spdlog/spdlog.h>

#include "core/base/error.hpp"
#include "core/comm/global_reduce.hpp"
#include "core/kernels/bl1d.hpp"
#include "core/kernels/tridiag.hpp"
#include "core/models/state.hpp"
#include "core/physics/bl1d.h"

namespace poreflow {

MemoryNeed bl1d_need(const BL1DConfig& cfg, Precision prec, bool host) {
  if (cfg.points < 3 || cfg.points > kBl1dMaxPoints)  // the counts below stay exact (core/base/limits.hpp)
    throw ConfigError("a bl1d grid of " + std::to_string(cfg.points) + " points is outside [3, " + std::to_string(kBl1dMaxPoints) + "]");
  const std::size_t n = static_cast<std::size_t>(cfg.points), v = size_of(prec);
  MemoryNeed need;
  need.what = "the " + std::to_string(cfg.points) + "-point grid";
  // p, s, s_new, mface, u, the Jacobi ping-pong buffer and the reduction's partials (< n); the
  // tridiagonal system (4 n) with its solver's scratch (n)
  need.total = (7 + (cfg.tridiag ? 5 : 0)) * n * v;
  need.largest = n * v;
  if (host) need.total += 4 * n * sizeof(double);  // output copies of the fields
  return need;
}

namespace {

// each step as long as the CFL limit allows up to the next stop, never below the smallest step
TimeStepOptions bl1d_time_options(const BL1DConfig& cfg) {
  TimeStepOptions o;
  o.dt_min = cfg.dt_min > 0 ? cfg.dt_min : cfg.end_time / double(cfg.max_steps);
  if (!(cfg.dt_min > 0))
    o.dt_min_source = "time.end / time.max_steps: at smaller steps the run cannot reach time.end; set time.dt_min to go lower";
  o.max_steps = cfg.max_steps;
  o.end = cfg.end_time;
  return o;
}

}  // namespace

template <class T>
BL1D<T>::BL1D(Backend& be, const BL1DConfig& cfg, const Communicator& comm)
    : be_(be),
      comm_(comm),
      cfg_(cfg),
      analytic_(cfg.phys),
      n_(static_cast<std::size_t>(cfg.points)),
      h_(cfg.length / static_cast<double>(cfg.points - 1)),
      p_(be, n_),
      s_(be, n_),
      s_new_(be, n_),
      mface_(be, n_ - 1),
      u_(be, n_ - 1),
      ta_(be, cfg.tridiag ? n_ : 0),
      tb_(be, cfg.tridiag ? n_ : 0),
      tc_(be, cfg.tridiag ? n_ : 0),
      td_(be, cfg.tridiag ? n_ : 0),
      jacobi_(be, n_, cfg.jacobi),
      reduce_cfg_(cfg.jacobi.reduce),
      clock_(bl1d_time_options(cfg)) {
  bind_state();
  if (!be.supports(precision_of<T>()))
    throw BackendError(be.name() + " on " + be.device_name() + " does not support " + to_string(precision_of<T>()));
  // initial state (eq. 7) with the boundary values of eq. 8 already in place
  std::vector<T> p0(n_, T(cfg.p_init)), s0(n_, T(cfg.phys.s_init));
  p0.front() = T(cfg.phys.p_inj);
  p0.back() = T(cfg.phys.p_prod);
  s0.front() = T(cfg.phys.s_inj);
  p_.upload(p0);
  s_.upload(s0);
}

// Below this many points a Jacobi iteration on a GPU (one launch, about 5 us on an H100 with
// CUDA, 7 with OpenCL) takes longer than the whole iteration on one CPU core (about 2.7 ns a point
// in bench bl1d), and the thousands of iterations a step needs make the GPU run several times
// slower: 401 points took 17 s on serial and about 80 s on cuda.
constexpr std::size_t kGpuJacobiPoints = 4096;

template <class T>
std::string BL1D<T>::backend_hint() const {
  if (be_.is_host() || cfg_.tridiag || n_ >= kGpuJacobiPoints) return "";
  return "bl1d with " + std::to_string(n_) + " points and Jacobi pressure iterations is too small for the " + be_.name() +
         " backend: every iteration is a kernel launch that costs more than a CPU core needs for the whole iteration; "
         "--pressure-solver tridiag (one solve a step) or --backend serial will be faster";
}

template <class T>
std::string BL1D<T>::summary() const {
  std::ostringstream o;
  o << "bl1d: " << n_ << " points on [0, " << cfg_.length << "], k = " << cfg_.phys.k << ", m = " << cfg_.phys.porosity
    << ", mu_w = " << cfg_.phys.mu_w << ", mu_o = " << cfg_.phys.mu_o;
  if (cfg_.tridiag)
    o << ", pressure by one tridiagonal solve (" << to_string(cfg_.algo) << ")";
  else
    o << ", jacobi " << to_string(cfg_.jacobi.metric) << " < " << cfg_.jacobi.tolerance << " every "
      << cfg_.jacobi.check_every;
  o << ", reduction "
    << to_string(reduce_cfg_.variant) << "/" << to_string(reduce_cfg_.combine) << ", precision "
    << to_string(precision_of<T>());
  return o.str();
}

template <class T>
GridInfo BL1D<T>::grid() const {
  GridInfo g;
  g.points = {static_cast<int>(n_), 1, 1};
  g.spacing = {h_, h_, h_};
  return g;
}

template <class T>
double BL1D<T>::reduce(ReduceOp op, const Field<T>& f) const {
  ReduceArgs a;
  a.prec = precision_of<T>();
  a.op = op;
  a.cfg = reduce_cfg_;
  a.a = &f.buffer();
  a.n = f.size();
  return global_reduce(be_, comm_, a);
}

template <class T>
void BL1D<T>::fail_non_finite(const char* what, const Field<T>& f) const {
  auto v = f.download();
  for (std::size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(static_cast<double>(v[i]))) {
      std::ostringstream o;
      o << "step " << steps() + 1 << " (t = " << time() << "): " << what << " is " << v[i] << " at cell " << i
        << " (x = " << x(i) << ")";
      throw NumericalError(o.str());
    }
  throw NumericalError("step " + std::to_string(steps() + 1) + ": " + what + " is not finite");
}

template <class T>
void BL1D<T>::step(double t_stop) {
  clock_.advance(t_stop, [this](double dt) {
    TimeController::Outcome out;
    out.dt = advance(dt);
    out.ok = true;
    if (out.dt < dt && out.dt < clock_.options().dt_min) {  // the controller stops the run: say why
      std::ostringstream o;
      o << "the CFL limit (time.cfl = " << cfg_.cfl << ", max |u| = " << last_umax_ << ", rock.porosity = " << cfg_.phys.porosity
        << ", h = " << h_ << ")";
      out.why = o.str();
    }
    return out;
  });
}

template <class T>
double BL1D<T>::advance(double dt_offered) {
  const auto prec = precision_of<T>();
  // 1. pressure: face mobilities from the current saturation, then Jacobi from the last pressure
  be_.bl1d().face_mobility({prec, n_, &s_.buffer(), &mface_.buffer(), {cfg_.phys.k, cfg_.phys.mu_w, cfg_.phys.mu_o}});
  double max_m = reduce(ReduceOp::Max, mface_);
  if (!std::isfinite(max_m)) fail_non_finite("face mobility", mface_);
  double thr = 0;
  if (cfg_.tridiag) {
    solve_pressure_tridiag();
  } else {
    thr = jacobi_.threshold(max_m, cfg_.phys.p_inj, cfg_.phys.p_prod);
    last_solve_ = jacobi_.solve(p_, mface_, cfg_.phys.p_inj, cfg_.phys.p_prod, thr);
  }
  total_iterations_ += last_solve_.iterations;
  if (std::isnan(last_solve_.metric)) fail_non_finite("pressure", p_);
  if (!last_solve_.converged) {
    if (unconverged_solves_++ == 0)
      spdlog::warn("step {}: Jacobi stopped at pressure.max_iterations = {} with {} = {:.3g} > threshold {:.3g}; "
                   "the run continues (raise pressure.max_iterations to converge)",
                   steps() + 1, cfg_.jacobi.max_iterations, to_string(cfg_.jacobi.metric), last_solve_.metric, thr);
  }

  // 2. total velocity at the faces and the CFL-limited time step
  be_.bl1d().face_velocity({prec, n_, &p_.buffer(), &mface_.buffer(), &u_.buffer(), 1.0 / h_});
  double umax = reduce(ReduceOp::MaxAbs, u_);
  if (!std::isfinite(umax)) fail_non_finite("velocity", u_);
  double dt = dt_offered;
  last_umax_ = umax;
  if (umax > 0) dt = std::min(dt, cfg_.cfl * cfg_.phys.porosity * h_ / (umax * analytic_.max_dfw()));
  T u_in, u_out, ends[4];  // the boundary faces' velocities; S at points 0, 1, n - 2, n - 1
  be_.download(u_.buffer(), &u_in, sizeof(T));
  be_.download(u_.buffer(), &u_out, sizeof(T), (n_ - 2) * sizeof(T));
  be_.download(s_.buffer(), ends, 2 * sizeof(T));
  be_.download(s_.buffer(), ends + 2, 2 * sizeof(T), (n_ - 2) * sizeof(T));

  // 3. explicit upwind saturation
  be_.bl1d().saturation({prec, n_, &s_.buffer(), &u_.buffer(), &s_new_.buffer(), dt / (cfg_.phys.porosity * h_),
                       cfg_.phys.s_inj, {cfg_.phys.k, cfg_.phys.mu_w, cfg_.phys.mu_o}});
  s_.swap(s_new_);
  double smin = reduce(ReduceOp::Min, s_), smax = reduce(ReduceOp::Max, s_);
  if (!std::isfinite(smin) || !std::isfinite(smax)) fail_non_finite("saturation", s_);
  const double slack = 1e-6;  // upwind with CFL <= 1 is monotone: leaving [0, 1] means divergence
  if (smin < -slack || smax > 1 + slack) {
    auto v = s_.download();
    std::size_t i = 0;
    for (; i < v.size(); ++i)
      if (v[i] < -slack || v[i] > 1 + slack) break;
    std::ostringstream o;
    o << "step " << steps() + 1 << " (t = " << time() + dt << "): saturation " << v[std::min(i, v.size() - 1)]
      << " left [0, 1] at cell " << i << " (x = " << x(i) << "); the time step is unstable (time.cfl = " << cfg_.cfl << ")";
    throw NumericalError(o.str());
  }
  q_ += static_cast<double>(u_in) * dt;
  // the water through the first and the last face, upwind as the saturation kernel took it: the
  // interior points' water changes by exactly their difference (the balance)
  const double mw = cfg_.phys.mu_w, mo = cfg_.phys.mu_o;
  water_in_ += dt * phys::bl_water_flux<double>(u_in, ends[0], ends[1], mw, mo);
  water_out_ += dt * phys::bl_water_flux<double>(u_out, ends[2], ends[3], mw, mo);
  return dt;
}

// The pressure equation Jacobi iterates on, solved exactly: the same face mobilities, one system.
template <class T>
void BL1D<T>::solve_pressure_tridiag() {
  const auto prec = precision_of<T>();
  be_.bl1d().pressure_system({prec, n_, &mface_.buffer(), cfg_.phys.p_inj, cfg_.phys.p_prod, &ta_.buffer(), &tb_.buffer(),
                            &tc_.buffer(), &td_.buffer()});
  TridiagArgs t{prec, cfg_.algo, TridiagLayout::Contiguous, n_, 1, &ta_.buffer(), &tb_.buffer(), &tc_.buffer(),
                &td_.buffer(), &p_.buffer()};
  be_.tridiag().solve(t);
  last_solve_ = {1, 0.0, true};
}

template <class T>
std::string BL1D<T>::progress() const {
  std::ostringstream o;
  o.precision(3);
  o << "jacobi " << last_solve_.iterations << " it (" << to_string(cfg_.jacobi.metric) << " " << last_solve_.metric
    << "), dt " << clock_.last_dt();
  return o.str();
}

template <class T>
double BL1D<T>::front_position(const std::vector<double>& s) const {
  // the front is where S crosses the middle of the shock, found from the outlet backwards
  const double mid = 0.5 * (cfg_.phys.s_init + analytic_.front_saturation());
  for (std::size_t i = s.size() - 1; i > 0; --i)
    if (s[i - 1] >= mid && s[i] < mid) return x(i - 1) + h_ * (s[i - 1] - mid) / (s[i - 1] - s[i]);
  return s.back() >= mid ? cfg_.length : 0.0;
}

template <class T>
std::vector<NamedField> BL1D<T>::fields() const {
  auto to_d = [](const std::vector<T>& v) { return std::vector<double>(v.begin(), v.end()); };
  std::vector<double> xs(n_);
  for (std::size_t i = 0; i < n_; ++i) xs[i] = x(i);
  return {{"pressure", to_d(p_.download())},
          {"saturation", to_d(s_.download())},
          {"saturation_analytic", analytic_.profile(xs, analytic_.injected(time()))}};
}

template <class T>
std::vector<std::string> BL1D<T>::series_columns() const {
  return {"time", "step", "dt", "front_position", "front_analytic", "injected", "injected_analytic", "water_volume",
          "jacobi_iterations", "jacobi_metric", "jacobi_converged"};
}

template <class T>
std::vector<double> BL1D<T>::series_row() const {
  auto sv = s_.download();
  std::vector<double> s(sv.begin(), sv.end());
  double water = 0;  // trapezoidal rule over the points
  for (std::size_t i = 0; i + 1 < n_; ++i) water += 0.5 * h_ * (s[i] + s[i + 1]);
  double qa = analytic_.injected(time());
  return {time(),
          static_cast<double>(steps()),
          clock_.last_dt(),
          front_position(s),
          std::min(analytic_.front_position(qa), cfg_.length),
          q_,
          qa,
          water * cfg_.phys.porosity,
          static_cast<double>(last_solve_.iterations),
          last_solve_.metric,
          last_solve_.converged ? 1.0 : 0.0};
}

// The water of the interior points (each holds m h of pore volume; the end points are boundary
// values) changes by what entered through the first face less what left through the last.
template <class T>
std::vector<Balance> BL1D<T>::balance() const {
  T ends[2];
  be_.download(s_.buffer(), ends, sizeof(T));
  be_.download(s_.buffer(), ends + 1, sizeof(T), (n_ - 1) * sizeof(T));
  const double pv = cfg_.phys.porosity * h_;
  const double now = pv * (reduce(ReduceOp::Sum, s_) - double(ends[0]) - double(ends[1]));
  const double start = pv * double(n_ - 2) * cfg_.phys.s_init;
  return {{"water", now - start, water_in_ - water_out_,
           std::max({std::fabs(now), std::fabs(start), std::fabs(water_in_), std::fabs(water_out_)}),
           balance_tolerance(precision_of<T>())}};
}

template <class T>
std::map<std::string, double> BL1D<T>::final_stats() const {
  auto f = fields();
  const auto& s = f[1].values;
  const auto& sa = f[2].values;
  double l1 = 0;
  for (std::size_t i = 0; i + 1 < n_; ++i) l1 += 0.5 * h_ * (std::fabs(s[i] - sa[i]) + std::fabs(s[i + 1] - sa[i + 1]));
  return {{"l1_error_vs_analytic", l1},
          {"front_position", front_position(s)},
          {"front_analytic", std::min(analytic_.front_position(analytic_.injected(time())), cfg_.length)},
          {"pressure_iterations_total", static_cast<double>(total_iterations_)},
          {"pressure_unconverged_solves", static_cast<double>(unconverged_solves_)},
          {"water_balance_rel_error", balance()[0].rel_error()},
          {"water_produced", water_out_}};
}

// The pressure is the next Jacobi solve's first guess; mobilities, velocities and the tridiagonal
// system are recomputed from p and S at the start of every step.
template <class T>
void BL1D<T>::bind_state() {
  state_.field("pressure", p_);
  state_.field("saturation", s_);
  clock_.bind(state_);
  state_.value("injected", q_);
  state_.value("water_in", water_in_);
  state_.value("water_out", water_out_);
  state_.value("pressure_iterations_total", total_iterations_);
  state_.value("unconverged_solves", unconverged_solves_);
  state_.value("last_solve_iterations", last_solve_.iterations);
  state_.value("last_solve_metric", last_solve_.metric);
  state_.value("last_solve_converged", last_solve_.converged);
  state_.longs(
      "jacobi_last_iterations", 1, [this] { return std::vector<long>{jacobi_.last_iterations()}; },
      [this](const std::vector<long>& v) { jacobi_.set_last_iterations(v[0]); });
}

template class BL1D<float>;
template class BL1D<double>;

}  // namespace poreflow
