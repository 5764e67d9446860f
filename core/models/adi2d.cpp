#include "core/models/adi2d.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/base/error.hpp"
#include "core/base/format.hpp"
#include "core/comm/global_reduce.hpp"
#include "core/kernels/blas.hpp"
#include "core/kernels/program_builds.hpp"
#include "core/models/state.hpp"

namespace poreflow {

MemoryNeed adi2d_need(const Adi2DConfig& cfg, Precision prec, bool host) {
  if (cfg.points < 3 || cfg.points > kAdi2dMaxPoints)  // the counts below stay exact (core/base/limits.hpp)
    throw ConfigError("an adi2d grid of " + std::to_string(cfg.points) + " points a side is outside [3, " + std::to_string(kAdi2dMaxPoints) + "]");
  const std::size_t nn = static_cast<std::size_t>(cfg.points) * static_cast<std::size_t>(cfg.points), v = size_of(prec);
  MemoryNeed need;
  need.what = "the " + std::to_string(cfg.points) + " x " + std::to_string(cfg.points) + " grid";
  // the model's node arrays (26 and the properties), the ADI solver's (14), the tridiagonal
  // solver's and the reductions' scratch (4)
  need.total = (26 + kAdi2DProps + 14 + 4) * nn * v;
  need.largest = kAdi2DProps * nn * v;
  if (host) need.total += 12 * nn * sizeof(double);  // output copies of the fields
  return need;
}

namespace {

// steps of time.dt, the last one shortened to meet a stop, at most time.max_steps of them
TimeStepOptions adi2d_time_options(const Adi2DConfig& cfg) {
  TimeStepOptions o;
  o.dt_init = cfg.dt;
  o.dt_max = cfg.dt;
  o.max_steps = cfg.max_steps;
  o.end = cfg.end_time;
  return o;
}

}  // namespace

template <class T>
Adi2D<T>::Adi2D(Backend& be, const Adi2DConfig& cfg, const Communicator& comm)
    : be_(be),
      comm_(comm),
      cfg_(cfg),
      g_{static_cast<std::size_t>(cfg.points), static_cast<std::size_t>(cfg.points),
         cfg.length / static_cast<double>(cfg.points - 1)},
      nn_(g_.nx * g_.ny),
      prm_(be, ADI_NPARAMS),
      p_(be, nn_),
      dp_(be, nn_),
      ux_(be, nn_),
      uy_(be, nn_),
      props_(be, kAdi2DProps * nn_),
      sw_(be, nn_),
      so_(be, nn_),
      sg_(be, nn_),
      co3_(be, nn_),
      cg3_(be, nn_),
      vol_(be, nn_),
      rate_(be, nn_),
      inj_(be, nn_),
      prod_(be, nn_),
      one_(be, nn_),
      m_{Field<T>(be, nn_), Field<T>(be, nn_), Field<T>(be, nn_), Field<T>(be, nn_)},
      m_next_{Field<T>(be, nn_), Field<T>(be, nn_), Field<T>(be, nn_), Field<T>(be, nn_)},
      acc_{Field<T>(be, nn_), Field<T>(be, nn_), Field<T>(be, nn_), Field<T>(be, nn_)},
      adi_(be, g_, cfg.adi, comm),
      clock_(adi2d_time_options(cfg)) {
  bind_state();
  if (!be.supports(precision_of<T>()))
    throw BackendError(be.name() + " on " + be.device_name() + " does not support " + to_string(precision_of<T>()));
  const auto& p = cfg.prm;
  prm_.upload(std::vector<T>(p.begin(), p.end()));
  const long n = static_cast<long>(g_.nx);
  const double h = g_.h;
  auto area = [&](long i, long j) {
    return h * h * ((i == 0 || i == n - 1) ? 0.5 : 1.0) * ((j == 0 || j == n - 1) ? 0.5 : 1.0);
  };

  // wells: each spreads its share over the control volumes of the nodes within its radius
  std::vector<double> inj(nn_, 0.0), prod(nn_, 0.0);
  int n_inj = 0, n_prod = 0;
  for (const auto& w : cfg.wells) (w.injector ? n_inj : n_prod)++;
  for (const auto& w : cfg.wells) {
    std::vector<std::size_t> nodes;
    double total = 0;
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i)
        if (std::hypot(i * h - w.x, j * h - w.y) <= std::max(cfg.radius, 0.5 * h)) {
          nodes.push_back(static_cast<std::size_t>(j * n + i));
          total += area(i, j);
        }
    for (auto k : nodes) {
      double share = area(static_cast<long>(k % n), static_cast<long>(k / n)) / total;
      if (w.injector)
        inj[k] += cfg.injection_rate / n_inj * share;
      else
        prod[k] += cfg.producer_index / n_prod * share;
    }
  }
  inj_.upload(std::vector<T>(inj.begin(), inj.end()));
  prod_.upload(std::vector<T>(prod.begin(), prod.end()));
  one_.fill(T(1));

  // initial masses from the saturations, pressure and oil composition
  const double pr = p[ADI_P_REF], p0 = cfg.p_init;
  const double rw = p[ADI_RHO_W] * (1 + p[ADI_C_W] * (p0 - pr)), ro = p[ADI_RHO_O] * (1 + p[ADI_C_O] * (p0 - pr)),
               rg = p[ADI_RHO_G] * (1 + p[ADI_C_G] * (p0 - pr));
  const double cg3 = p[ADI_K3] * std::exp(-p[ADI_K3_BETA] * (p0 - pr)) * cfg.co3_0;
  const double u[4] = {rw * cfg.sw0, rg * cfg.sg0 * (1 - cg3), ro * cfg.so0 * cfg.co3_0 + rg * cfg.sg0 * cg3,
                       ro * cfg.so0 * (1 - cfg.co3_0)};
  for (int c = 0; c < 4; ++c) {
    std::vector<T> m(nn_);
    for (long j = 0; j < n; ++j)
      for (long i = 0; i < n; ++i) m[j * n + i] = T(u[c] * p[ADI_PORO] * area(i, j));
    m_[c].upload(m);
    acc_[c].fill(T(0));
  }
  p_.fill(T(p0));
  dp_.fill(T(0));
  flash();
  m0_ = masses();
}

template <class T>
std::string Adi2D<T>::summary() const {
  std::ostringstream o;
  o << "adi2d: " << g_.nx << " x " << g_.ny << " nodes, h = " << g_.h << ", dt = " << cfg_.dt << ", T = " << cfg_.end_time
    << ", wells " << cfg_.pattern << ", ADI to a volume imbalance of " << cfg_.adi.abs_tolerance << " (" << cfg_.adi.cycle
    << " parameters), tridiagonal " << to_string(cfg_.adi.algo) << ", precision " << to_string(precision_of<T>());
  return o.str();
}

template <class T>
GridInfo Adi2D<T>::grid() const {
  GridInfo gi;
  gi.points = {static_cast<int>(g_.nx), static_cast<int>(g_.ny), 1};
  gi.spacing = {g_.h, g_.h, g_.h};
  return gi;
}

template <class T>
double Adi2D<T>::reduce(ReduceOp op, const Field<T>& a, const Field<T>* b) const {
  ReduceArgs r;
  r.prec = precision_of<T>();
  r.op = op;
  r.cfg = cfg_.adi.reduce;
  r.a = &a.buffer();
  r.b = b ? &b->buffer() : nullptr;
  r.n = a.size();
  return global_reduce(be_, comm_, r);
}

template <class T>
Adi2DPhaseState Adi2D<T>::phase_state() const {
  return {&p_.buffer(), &sw_.buffer(), &so_.buffer(), &sg_.buffer(), &co3_.buffer(), &cg3_.buffer(), &props_.buffer()};
}

template <class T>
Adi2DWells Adi2D<T>::wells() const {
  return {&inj_.buffer(), &prod_.buffer(), cfg_.producer_bhp};
}

template <class T>
void Adi2D<T>::flash() {
  Adi2DFlashArgs f;
  f.prec = precision_of<T>();
  f.g = g_;
  f.prm = &prm_.buffer();
  for (int c = 0; c < 4; ++c) f.mass[c] = &m_[c].buffer();
  f.p = &p_.buffer();
  f.sw = &sw_.buffer();
  f.so = &so_.buffer();
  f.sg = &sg_.buffer();
  f.co3 = &co3_.buffer();
  f.cg3 = &cg3_.buffer();
  f.vol = &vol_.buffer();
  f.props = &props_.buffer();
  be_.adi2d().flash(f);
}

template <class T>
void Adi2D<T>::check_state(const char* where) const {
  // negative or non-finite masses mean the step was unstable
  for (int c = 0; c < 4; ++c) {
    double lo = reduce(ReduceOp::Min, m_[c]);
    double sum = reduce(ReduceOp::Sum, m_[c]);
    if (std::isfinite(sum) && lo >= -1e-12 * std::fabs(sum)) continue;
    auto v = m_[c].download();
    for (std::size_t k = 0; k < v.size(); ++k)
      if (!std::isfinite(double(v[k])) || v[k] < T(-1e-12 * std::fabs(sum))) {
        std::ostringstream o;
        o << "step " << steps() + 1 << " (t = " << time() << "), " << where << ": mass of component " << c + 1 << " is " << v[k]
          << " at node (" << k % g_.nx << ", " << k / g_.nx << ")";
        throw NumericalError(o.str());
      }
  }
}

template <class T>
void Adi2D<T>::step(double t_stop) {
  clock_.advance(t_stop, [this](double dt) {
    advance(dt);
    TimeController::Outcome out;
    out.ok = true;
    return out;
  });
}

// One step of dt: a failure stops the run (NumericalError naming the step and the node).
template <class T>
void Adi2D<T>::advance(double dt) {
  be_.sync();
  const PartTimer pressure;
  // 1. the pressure equation from the current state, solved by ADI from the current pressure
  Adi2DCoeffArgs ca;
  ca.prec = precision_of<T>();
  ca.g = g_;
  ca.prm = &prm_.buffer();
  ca.dt = dt;
  ca.st = phase_state();
  ca.vol = &vol_.buffer();
  for (int c = 0; c < 4; ++c) ca.mass[c] = &m_[c].buffer();
  ca.wells = wells();
  ca.aw = &adi_.aw.buffer();
  ca.ae = &adi_.ae.buffer();
  ca.as = &adi_.as.buffer();
  ca.an = &adi_.an.buffer();
  ca.d0 = &adi_.d0.buffer();
  ca.rhs = &adi_.rhs.buffer();
  for (int pass = 0; pass < cfg_.pressure_passes; ++pass) {
    if (pass > 0) flash();  // volumes, densities and phase split at the new pressure, same masses
    be_.adi2d().coefficients(ca);
    // solve for the increment, then add it. With one pass the last step's increment is the first
    // guess: the pressure changes smoothly from step to step, and this halves the iterations at
    // 65 to 257 points. With several, dp_ holds the last pass's small correction: start from 0.
    if (pass > 0 || cfg_.pressure_passes > 1) dp_.fill(T(0));
    last_adi_ = adi_.solve(dp_);
    be_.blas().axpy({precision_of<T>(), nn_, 1.0, &dp_.buffer(), &p_.buffer()});
    adi_total_ += last_adi_.iterations;
    adi_reads_ += adi_.control_reads();
    adi_enqueued_ += adi_.iterations_enqueued();
  }
  flash();
  // the total flux of every face, held over the substeps: what the pressure equation balanced
  Adi2DVelocityArgs va{precision_of<T>(), g_, &prm_.buffer(), phase_state(), &ux_.buffer(), &uy_.buffer()};
  be_.adi2d().total_velocity(va);
  if (last_adi_.stagnated && last_adi_.residual > 1e-3)
    spdlog::warn("step {}: ADI stagnated at a volume imbalance of {:.3g}: the pressure is that inaccurate (try another "
                 "pressure.algorithm or --precision double)",
                 steps() + 1, last_adi_.residual);
  else if (last_adi_.stagnated)
    spdlog::debug("step {}: ADI stagnated at a volume imbalance of {:.3g} (the limit of {} here)", steps() + 1,
                  last_adi_.residual, to_string(precision_of<T>()));
  else if (!last_adi_.converged)
    spdlog::warn("step {}: ADI stopped at pressure.max_iterations = {} with a volume imbalance of {:.3g}", steps() + 1,
                 cfg_.adi.max_iterations, last_adi_.residual);

  be_.sync();
  seconds_pressure_ += pressure.seconds();
  const PartTimer transport;

  // 2. explicit transport of every component in CFL-limited substeps; the phase state follows
  double done = 0;
  int subs = 0;
  while (done < dt * (1 - 1e-12)) {
    Adi2DRateArgs ra{precision_of<T>(), g_, &prm_.buffer(), phase_state(), &ux_.buffer(), &uy_.buffer(),
                     &vol_.buffer(), wells(), &rate_.buffer()};
    be_.adi2d().rate(ra);
    double rmax = reduce(ReduceOp::Max, rate_);
    if (!std::isfinite(rmax)) {
      check_state("transport");
      // masses are fine: name the node where the rate (or the pressure behind it) is not finite
      auto r = rate_.download();
      auto pv = p_.download();
      for (std::size_t k = 0; k < r.size(); ++k)
        if (!std::isfinite(double(r[k]))) {
          std::ostringstream o;
          o << "step " << steps() + 1 << " (t = " << time() << "): the outflow rate is " << r[k] << " at node (" << k % g_.nx
            << ", " << k / g_.nx << "), pressure " << pv[k] << ", saturations " << sw_.download()[k] << " "
            << so_.download()[k] << " " << sg_.download()[k] << ", pressure range [" << reduce(ReduceOp::Min, p_) << ", "
            << reduce(ReduceOp::Max, p_) << "], neighbours " << (k >= 1 ? pv[k - 1] : 0) << " " << (k + 1 < pv.size() ? pv[k + 1] : 0)
            << " " << (k >= g_.nx ? pv[k - g_.nx] : 0) << " " << (k + g_.nx < pv.size() ? pv[k + g_.nx] : 0) << ", ADI residual " << last_adi_.residual
            << (precision_of<T>() == Precision::Float ? " (float: try --precision double)" : "");
          throw NumericalError(o.str());
        }
      throw NumericalError("step " + std::to_string(steps() + 1) + ": the outflow rate is not finite");
    }
    double h = dt - done;
    if (rmax > 0) h = std::min(h, cfg_.cfl / rmax);
    // the smallest substep: below it the step cannot end within time.max_substeps (the rate at
    // 1e300 times the case's would run them all first)
    const double h_min = cfg_.dt / double(cfg_.max_substeps);
    if (h < h_min && h < dt - done) {
      std::ostringstream o;
      o << "step " << steps() + 1 << " (t = " << time() << "): the CFL limit of the transport (time.cfl = " << cfg_.cfl
        << ", outflow rate " << rmax << ") allows substeps of " << h << ", below the smallest substep time.dt / time.max_substeps = "
        << h_min << "; the run stops";
      throw NumericalError(o.str());
    }
    Adi2DTransportArgs ta;
    ta.prec = precision_of<T>();
    ta.g = g_;
    ta.prm = &prm_.buffer();
    ta.dt = h;
    ta.st = phase_state();
    ta.ux = &ux_.buffer();
    ta.uy = &uy_.buffer();
    ta.wells = wells();
    for (int c = 0; c < 4; ++c) {
      ta.mass_in[c] = &m_[c].buffer();
      ta.mass_out[c] = &m_next_[c].buffer();
      ta.acc[c] = &acc_[c].buffer();
    }
    be_.adi2d().transport(ta);
    for (int c = 0; c < 4; ++c) m_[c].swap(m_next_[c]);
    flash();
    done += h;
    if (++subs > cfg_.max_substeps)
      throw NumericalError("step " + std::to_string(steps() + 1) + ": more than time.max_substeps = " +
                           std::to_string(cfg_.max_substeps) + " transport substeps (outflow rate " +
                           num_text(rmax) + ")");
  }
  check_state("after transport");
  seconds_transport_ += transport.seconds();
  last_substeps_ = subs;
  substeps_total_ += subs;
  last_volume_error_ = reduce(ReduceOp::MaxAbsDiff, vol_, &one_);
}

template <class T>
std::string Adi2D<T>::progress() const {
  std::ostringstream o;
  o.precision(3);
  o << "ADI " << last_adi_.iterations << " it (residual " << last_adi_.residual << "), " << last_substeps_
    << " transport substeps, volume error " << last_volume_error_;
  return o.str();
}

template <class T>
std::array<double, 4> Adi2D<T>::masses() const {
  std::array<double, 4> r{};
  for (int c = 0; c < 4; ++c) r[c] = reduce(ReduceOp::Sum, m_[c]);
  return r;
}

template <class T>
std::array<double, 4> Adi2D<T>::well_net() const {
  std::array<double, 4> r{};
  for (int c = 0; c < 4; ++c) r[c] = reduce(ReduceOp::Sum, acc_[c]);
  return r;
}

template <class T>
std::vector<NamedField> Adi2D<T>::fields() const {
  auto d = [](const Field<T>& f) {
    auto v = f.download();
    return std::vector<double>(v.begin(), v.end());
  };
  return {{"pressure", d(p_)}, {"sw", d(sw_)}, {"so", d(so_)}, {"sg", d(sg_)}, {"c_o3", d(co3_)}, {"c_g3", d(cg3_)},
          {"volume", d(vol_)}};
}

template <class T>
std::vector<std::string> Adi2D<T>::series_columns() const {
  return {"time", "step", "m1", "m2", "m3", "m4", "net_well1", "net_well2", "net_well3", "net_well4",
          "injected_water", "produced_water", "produced_oil_gas2", "produced3", "produced4",
          "adi_iterations", "adi_residual", "substeps", "volume_error"};
}

template <class T>
std::vector<double> Adi2D<T>::series_row() const {
  auto m = masses();
  auto w = well_net();
  double injected = cfg_.injection_rate * time();
  return {time(), double(steps()),         m[0],   m[1],   m[2],  m[3], w[0], w[1], w[2], w[3], injected,
          injected - w[0], -w[1], -w[2], -w[3], double(last_adi_.iterations), last_adi_.residual, double(last_substeps_),
          last_volume_error_};
}

// per component: the change in place = the wells' net mass (injected - produced), relative to the
// mass in place
template <class T>
std::vector<Balance> Adi2D<T>::balance() const {
  const auto m = masses(), w = well_net();
  std::vector<Balance> b;
  for (int c = 0; c < 4; ++c)
    b.push_back({"component " + std::to_string(c + 1), m[c] - m0_[c], w[c], std::max(std::fabs(m0_[c]), std::fabs(m[c])),
                 balance_tolerance(precision_of<T>())});
  return b;
}

template <class T>
std::map<std::string, double> Adi2D<T>::final_stats() const {
  std::map<std::string, double> s;
  const auto b = balance();
  for (int c = 0; c < 4; ++c) s["mass_balance_rel_error_" + std::to_string(c + 1)] = b[std::size_t(c)].rel_error();
  s["adi_iterations_total"] = double(adi_total_);
  s["adi_control_reads_total"] = double(adi_reads_);  // host waits for ADI's convergence control
  s["adi_iterations_enqueued_total"] = double(adi_enqueued_);  // those past a stop return at once
  s["seconds_pressure"] = seconds_pressure_;
  s["seconds_transport"] = seconds_transport_;
  s["transport_substeps_total"] = double(substeps_total_);
  s["volume_error_last"] = last_volume_error_;
  s["min_saturation"] = std::min({reduce(ReduceOp::Min, sw_), reduce(ReduceOp::Min, so_), reduce(ReduceOp::Min, sg_)});
  s["max_saturation"] = std::max({reduce(ReduceOp::Max, sw_), reduce(ReduceOp::Max, so_), reduce(ReduceOp::Max, sg_)});
  return s;
}

// The masses and the pressure are the state; dp is the next ADI solve's first guess; the phase
// state (saturations, compositions, volumes, properties) is what the last flash left, which the
// next step's coefficients read; acc holds the wells' cumulative masses. Velocities, rates and the
// ADI coefficients are recomputed every step.
template <class T>
void Adi2D<T>::bind_state() {
  state_.field("pressure", p_);
  state_.field("pressure_increment", dp_);
  for (int c = 0; c < 4; ++c) {
    state_.field("mass" + std::to_string(c + 1), m_[c]);
    state_.field("well_mass" + std::to_string(c + 1), acc_[c]);
  }
  state_.field("sw", sw_);
  state_.field("so", so_);
  state_.field("sg", sg_);
  state_.field("c_o3", co3_);
  state_.field("c_g3", cg3_);
  state_.field("volume", vol_);
  state_.field("properties", props_);
  clock_.bind(state_);
  state_.value("transport_substeps_total", substeps_total_);
  state_.value("adi_iterations_total", adi_total_);
  state_.value("adi_control_reads_total", adi_reads_);
  state_.value("adi_iterations_enqueued_total", adi_enqueued_);
  state_.value("transport_substeps_last", last_substeps_);
  state_.value("adi_last_iterations", last_adi_.iterations);
  state_.value("adi_last_residual", last_adi_.residual);
  state_.value("adi_last_initial_residual", last_adi_.initial_residual);
  state_.value("adi_last_converged", last_adi_.converged);
  state_.value("adi_last_stagnated", last_adi_.stagnated);
  state_.value("last_volume_error", last_volume_error_);
  state_.value("seconds_pressure", seconds_pressure_);
  state_.value("seconds_transport", seconds_transport_);
  state_.doubles(
      "initial_masses", 4, [this] { return std::vector<double>(m0_.begin(), m0_.end()); },
      [this](const std::vector<double>& v) { std::copy(v.begin(), v.end(), m0_.begin()); });
  state_.longs(
      "adi_recent_iterations", 3, [this] { return adi_.recent_iterations(); },
      [this](const std::vector<long>& v) { adi_.set_recent_iterations(v); });
}

template class Adi2D<float>;
template class Adi2D<double>;

}  // namespace poreflow
