#include "core/models/fim_step.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <span>
#include <sstream>

#include "core/base/error.hpp"
#include "core/comm/global_reduce.hpp"
#include "core/kernels/program_builds.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/vec.hpp"
#include "core/models/impes3d_setup.hpp"
#include "core/models/state.hpp"
#include "core/physics/fim.h"

namespace poreflow {

template <class T>
void FimSchurOperator<T>::apply(const Field<T>& x, Field<T>& y, linalg::Guard g) const {
  a_.apply(x, y, g);
  if (coupled_)
    backend().fim().schur({precision_of<T>(), w_, dt_, a_.matrix().extent(), 1.0, &x.buffer(), &y.buffer(), g.ctrl});
}

template <class T>
void FimSchurOperator<T>::residual(const Field<T>& b, const Field<T>& x, Field<T>& r, linalg::Guard g) const {
  a_.residual(b, x, r, g);
  if (coupled_)
    backend().fim().schur({precision_of<T>(), w_, dt_, a_.matrix().extent(), -1.0, &x.buffer(), &r.buffer(), g.ctrl});
}

namespace {

template <class T>
Field<T> zeros(Backend& be, std::size_t n) {
  Field<T> f(be, std::max<std::size_t>(n, 1));
  f.fill(T(0));
  return f;
}

bool injector(const ImpesWell& w) { return w.kind == WellKind::Injector; }

// the weights of a producer's controlled rate (ORAT, WRAT, else the liquid), as well_params sets them
void rate_weights(const ImpesWell& w, const WellSetting& s, double* ao, double* aw) {
  *ao = injector(w) ? 0 : (s.control == WellControl::Wrat ? 0 : 1);
  *aw = injector(w) ? 1 : (s.control == WellControl::Orat ? 0 : 1);
}

// CPR's pressure AMG with a small coarsest level: it is inverted on the host at every refresh
// (a Newton iteration), O(n^3)
linalg::CprOptions cpr_options(const FimNumerics& nm) {
  linalg::CprOptions o;
  o.amg.setup.coarse_size = static_cast<std::size_t>(nm.coarse_size);
  o.amg.degree = nm.amg_degree;
  o.amg.w_cycle = nm.amg_w_cycle;
  o.amg.tail_rows = nm.amg_tail_rows;
  o.amg.setup.strength = nm.amg_strength;
  o.amg.setup.fallback = nm.amg_fallback;
  o.amg.setup.keys = "linear";
  o.amg.across = nm.amg_across;
  o.amg.across_rows = static_cast<std::size_t>(nm.across_rows);
  o.float_pressure = nm.amg_float;
  return o;
}

linalg::KrylovOptions krylov_options(const FimNumerics& nm) {
  linalg::KrylovOptions o;
  o.method = nm.fgmres ? linalg::KrylovMethod::FGMRES : linalg::KrylovMethod::BiCGSTAB;
  o.tolerance = nm.linear_tolerance;
  o.max_iterations = nm.linear_max_iterations;
  o.record = nm.cuda_graphs;
  o.batches.then = nm.linear_batch;
  o.adapt_batches = nm.linear_batch == 0;  // the backend's choice
  return o;
}

}  // namespace

template <class T>
FimStep<T>::FimStep(Backend& be, const Communicator& comm, ReservoirArrays<T>& a, const ImpesNumerics& nm, const ImpesInput& in,
                    const ImpesGeometry& geo, const ImpesWellArrays& wa)
    : be_(be),
      comm_(comm),
      a_(a),
      nm_(nm.fim),
      in_(in),
      E_(a.extent()),
      pid_(nm.control == StepControl::PidNewton),
      x_(zeros<T>(be, 2 * E_)),
      x_n_(zeros<T>(be, 2 * E_)),
      dx_(zeros<T>(be, 2 * E_)),
      dx_damped_(zeros<T>(be, 2 * E_)),
      res_(zeros<T>(be, 2 * E_)),
      cnv_(zeros<T>(be, 2 * E_)),
      cnv_oil_(zeros<T>(be, E_)),
      mbw_(zeros<T>(be, E_)),
      mbo_(zeros<T>(be, E_)),
      viol_(zeros<T>(be, E_)),
      mw2_(zeros<T>(be, E_)),
      mo2_(zeros<T>(be, E_)),
      dp_(zeros<T>(be, E_)),
      ds_(zeros<T>(be, E_)),
      ws_(zeros<T>(be, std::max<std::size_t>(std::size_t(a.wells), 1) * FIM_NWS)),  // a run without wells too
      ws_n_(zeros<T>(be, std::max<std::size_t>(std::size_t(a.wells), 1) * FIM_NWS)),
      cq_(zeros<T>(be, std::max<std::size_t>(std::size_t(a.completions), 1) * FIM_NCQ)),
      amg_setup_p_(zeros<T>(be, 7 * E_)),
      amg_refresh_p_(zeros<T>(be, 7 * E_)),
      on_(zeros<T>(be, E_)),
      p_on_(zeros<T>(be, E_)),
      sw_on_(zeros<T>(be, E_)),
      sums_(zeros<T>(be, 5)),
      jac_(be, geo.box, 2),
      jop_(jac_),
      op_(jop_, wells_, dt_),
      cpr_(cpr_options(nm.fim), comm),
      relax_(nm.fim.min_relaxation) {
  // per completion its well; per box entry whether it is an unknown
  std::vector<int> cwell(std::max<std::size_t>(wa.cwi.size(), 1), 0);
  for (std::size_t w = 0; w < wa.first.size(); ++w)
    for (long c = wa.first[w]; c < wa.first[w] + wa.count[w]; ++c) cwell[std::size_t(c)] = static_cast<int>(w);
  cwell_ = be.alloc(cwell.size() * sizeof(int));
  be.upload(*cwell_, cwell.data(), cwell.size() * sizeof(int));
  std::vector<int> active(E_, 0);
  double pv = 0, pp = 0;
  for (std::size_t L = 0; L < E_; ++L)
    if (geo.pv0[L] > 0) {
      active[L] = 1;
      pv += geo.pv0[L];
    }
  be.upload(*jac_.active, active.data(), E_ * sizeof(int));
  on_.upload(std::vector<T>(active.begin(), active.end()));
  for (int on : active) active_cells_ += on;
  wells_ = well_arrays();
  // decomposed (docs/mpi.md): the Jacobian's products fill the Krylov vectors' ghosts from the
  // neighbours; its preconditioners (ILU0, the pressure AMG) see this process's rows alone
  jop_.set_exchange(a_.halo);
  // the state: (p, S_w) from the arrays, and the masses of that state by this scheme's physics
  be.fim().pack({precision_of<T>(), a_.grid, &a_.p.buffer(), &a_.sw.buffer(), &x_.buffer()});
  be.fim().masses({precision_of<T>(), a_.grid, &a_.prm.buffer(), a_.prm.size(), &x_.buffer(), &a_.mw.buffer(), &a_.mo.buffer()});
  // the MB measure's scale: the pore volume and the B's at the mean initial pressure (as OPM Flow's
  // B_avg, fixed here)
  const auto p = a_.p.download();
  for (std::size_t L = 0; L < E_; ++L)
    if (active[L]) pp += geo.pv0[L] * double(p[L]);
  double both[2] = {pv, pp};
  comm_.sum(both);
  pv_total_ = both[0];
  const auto prm = build_prm(in.fluid);
  const auto c = phys::fim_cell_at<double>(prm.data(), 1.0, both[0] > 0 ? both[1] / both[0] : 100.0, 0.5);
  bw_ref_ = 1 / c.ibw;
  bo_ref_ = 1 / c.ibo;
  // the wells: their controls as the input starts them, their BHPs set by the first step
  ws_host_.assign(std::size_t(std::max<long>(a.wells, 1)) * FIM_NWS, T(0));
  for (std::size_t w = 0; w < in.wells.size(); ++w) {
    const WellSetting& s = in.wells[w].initial;
    ws_host_[w * FIM_NWS + FIM_WS_CTRL] = T(!s.open ? IMP_CTRL_SHUT : s.control == WellControl::Bhp ? IMP_CTRL_BHP : IMP_CTRL_RATE);
    ws_host_[w * FIM_NWS + FIM_WS_INIT] = T(1);
  }
  ws_.upload(ws_host_);
  settings_.clear();
  for (const auto& w : in.wells) settings_.push_back(w.initial);
  open_.assign(in.wells.size(), 1);
  for (std::size_t w = 0; w < in.wells.size(); ++w) open_[w] = in.wells[w].initial.open ? 1 : 0;
  result_.well.assign(std::size_t(IMP_NWO) * std::size_t(a.wells), 0.0);
  krylov_ = std::make_unique<linalg::KrylovSolver<T>>(op_, krylov_options(nm_), comm);
}

template <class T>
FimStep<T>::~FimStep() = default;

template <class T>
FimWells FimStep<T>::well_arrays() {
  return {a_.wells, a_.completions, &a_.wp.buffer(), a_.cidx.get(), &a_.cwi.buffer(), &a_.cdepth.buffer(),
          a_.ccell.get(), cwell_.get(), &ws_.buffer(), &cq_.buffer()};
}

template <class T>
void FimStep<T>::assemble(double dt) {
  const Precision prec = precision_of<T>();
  if (a_.halo) a_.halo->exchange(x_.buffer());  // the faces across a cut read the neighbours' (p, S_w)
  auto k = be_.fim();
  k.assemble({prec, a_.grid, &a_.prm.buffer(), a_.prm.size(), dt, &x_.buffer(), &a_.mw.buffer(), &a_.mo.buffer(), wells_,
              &jac_.coef.buffer(), &res_.buffer(), &cnv_.buffer(), &mbw_.buffer(), &mbo_.buffer(), nm_.cnv,
              &viol_.buffer()});
  k.well_equation({prec, wells_, dt, E_, &jac_.coef.buffer(), &res_.buffer()});
}

template <class T>
typename FimStep<T>::Measures FimStep<T>::measure() {
  Measures m;
  // each phase's worst CNV (the stabilization's history): the water half of cnv_ in place, the oil
  // half copied out first
  ReduceArgs water;
  water.prec = precision_of<T>();
  water.op = ReduceOp::Max;
  water.cfg = {be_.reduce().default_variant()};
  water.a = &cnv_.buffer();
  water.n = E_;
  be_.copy(cnv_.buffer(), cnv_oil_.buffer(), E_ * sizeof(T), E_ * sizeof(T));
  m.cnv_phase = {global_reduce(be_, comm_, water), global_reduce(be_, comm_, ReduceOp::Max, cnv_oil_)};
  m.cnv = std::isnan(m.cnv_phase[0]) || std::isnan(m.cnv_phase[1]) ? std::numeric_limits<double>::quiet_NaN()
                                                                     : std::max(m.cnv_phase[0], m.cnv_phase[1]);
  m.sum_w = global_reduce(be_, comm_, ReduceOp::Sum, mbw_);
  m.sum_o = global_reduce(be_, comm_, ReduceOp::Sum, mbo_);
  // the pore volume over the strict CNV, only where it decides (the strict test failed, the relaxed
  // one would pass): one more reduction in those iterations
  if (m.cnv > nm_.cnv && m.cnv <= nm_.cnv_relaxed && nm_.relaxed_pv_fraction > 0)
    m.over = global_reduce(be_, comm_, ReduceOp::Sum, viol_) / std::max(pv_total_, 1e-300);
  else
    m.over = m.cnv > nm_.cnv ? 1.0 : 0.0;
  m.mb_w = std::fabs(m.sum_w) * bw_ref_ / std::max(pv_total_, 1e-300);
  m.mb_o = std::fabs(m.sum_o) * bo_ref_ / std::max(pv_total_, 1e-300);
  m.finite = std::isfinite(m.cnv) && std::isfinite(m.sum_w) && std::isfinite(m.sum_o);
  if (a_.wells > 0) ws_host_ = ws_.download();
  for (std::size_t w = 0; w < settings_.size(); ++w) {
    const double r = well_residual(w);
    if (std::isinf(r)) m.finite = false;
    else m.well = std::max(m.well, r);
  }
  // decomposed: a well lives on one process (shut on the others), and every process decides alike
  // (one combine for both; a NaN anywhere is non-finite everywhere)
  double v[2] = {m.well, m.finite ? 0.0 : 1.0};
  comm_.max(std::span<double>(v));
  m.well = v[0];
  m.finite = v[1] == 0;
  return m;
}

// A rate-controlled well past its BHP limit goes to BHP control at the limit, always; a
// BHP-controlled well that makes more than its rate limit goes to rate control (OPM Flow's
// switching), until the well has switched max_switches times in the step (then it stays at its
// BHP limit: the limit is never crossed). Returns whether a control changed (then uploaded).
template <class T>
bool FimStep<T>::switch_controls() {
  bool any = false;
  for (std::size_t w = 0; w < settings_.size(); ++w) {
    if (!open_[w]) continue;
    T* s = ws_host_.data() + w * FIM_NWS;
    const WellSetting& st = settings_[w];
    const bool inj = injector(in_.wells[w]);
    const int ctrl = static_cast<int>(std::lround(double(s[FIM_WS_CTRL])));
    const double bhp = double(s[FIM_WS_BHP]);
    if (ctrl == IMP_CTRL_RATE && (inj ? bhp > st.bhp : bhp < st.bhp)) {
      s[FIM_WS_CTRL] = T(IMP_CTRL_BHP);
      s[FIM_WS_BHP] = T(st.bhp);
    } else if (ctrl == IMP_CTRL_BHP && st.rate > 0 && switches_[w] < nm_.max_switches) {
      double ao, aw;
      rate_weights(in_.wells[w], st, &ao, &aw);
      const double qw = double(s[FIM_WS_QW]), qo = double(s[FIM_WS_QO]);
      const double rate = inj ? qw : -(ao * qo + aw * qw);
      if (!(rate > st.rate * (1 + 1e-9))) continue;
      s[FIM_WS_CTRL] = T(IMP_CTRL_RATE);
    } else {
      continue;
    }
    ++switches_[w];
    ++switches_total_;
    any = true;
  }
  if (any) ws_.upload(ws_host_);
  return comm_.any(any);  // every process assembles again when one switched
}

namespace {

// On every process, the text of the process whose `mine` is the largest (the lowest rank of equals),
// and that largest value in `top`: collective, every process calls it alike
std::string text_of_top(const Communicator& comm, double mine, std::string text, double& top) {
  top = comm.max(mine);
  const int n = comm.size();
  const int from = n - static_cast<int>(comm.max(mine == top ? double(n - comm.rank()) : 0.0));
  broadcast_bytes(comm, text, from);
  return text;
}

}  // namespace

// The cell of the largest CNV (NaN first) over every process, named by the grid's indices: the
// process that holds it (the lowest of equals) describes it to the others.
template <class T>
std::string FimStep<T>::worst_cell() const {
  const auto c = cnv_.download();
  std::size_t worst = 0;
  for (std::size_t i = 0; i < c.size(); ++i)
    if (!(double(c[i]) <= double(c[worst]))) worst = i;  // NaN wins
  const std::size_t L = worst % E_;
  const Box3& b = a_.geo_box;
  const long rel = static_cast<long>(L) - b.off;
  const long k = rel / b.sz, j = (rel % b.sz) / b.sy, i = rel % b.sy;
  const auto x = x_.download();
  std::ostringstream o;
  o.precision(4);
  o << "; the worst cell (" << a_.origin[0] + i + 1 << ", " << a_.origin[1] + j + 1 << ", " << a_.origin[2] + k + 1
    << "): " << (worst < E_ ? "water" : "oil") << " CNV " << double(c[worst]) << " at p = " << double(x[2 * L])
    << " bar, S_w = " << double(x[2 * L + 1]);
  if (comm_.single()) return o.str();
  const double mine = std::isnan(double(c[worst])) ? std::numeric_limits<double>::infinity() : double(c[worst]);
  double top = 0;
  return text_of_top(comm_, mine, o.str(), top);
}

// Well w's newton.wells measure from the last download of the wells' state: |R_w| / max(target,
// 1 sm3/day) under rate control, 0 under BHP control (its equation holds after each update),
// infinity when its BHP or residual is not finite.
template <class T>
double FimStep<T>::well_residual(std::size_t w) const {
  const T* s = ws_host_.data() + w * FIM_NWS;
  if (!std::isfinite(double(s[FIM_WS_BHP])) || !std::isfinite(double(s[FIM_WS_RES])))
    return std::numeric_limits<double>::infinity();
  if (std::lround(double(s[FIM_WS_CTRL])) != IMP_CTRL_RATE) return 0.0;
  return std::fabs(double(s[FIM_WS_RES])) / std::max(settings_[w].rate, 1.0);
}

// The well whose control equation is furthest from holding after the last measure() (the largest
// well_residual). Empty when every well's holds. Decomposed, the owner's text, as worst_cell().
template <class T>
std::string FimStep<T>::worst_well() const {
  double mine = -1;
  std::ostringstream o;
  o.precision(4);
  for (std::size_t w = 0; w < settings_.size() && (w + 1) * FIM_NWS <= ws_host_.size(); ++w) {
    const T* s = ws_host_.data() + w * FIM_NWS;
    const double bhp = double(s[FIM_WS_BHP]), res = double(s[FIM_WS_RES]);
    const bool rate = std::lround(double(s[FIM_WS_CTRL])) == IMP_CTRL_RATE;
    const double v = well_residual(w);
    if (!(v > mine) || v <= 0) continue;
    mine = v;
    o.str("");
    o << "; the worst well '" << in_.wells[w].name << "' (" << (rate ? "rate" : "BHP") << " control): residual " << res;
    if (rate) o << " sm3/day against its target " << settings_[w].rate << " sm3/day";
    else o << " bar";
    o << ", BHP " << bhp << " bar";
  }
  if (comm_.single()) return o.str();
  double top = 0;
  std::string text = text_of_top(comm_, mine, o.str(), top);
  return top > 0 ? text : std::string();
}

// CPR for the Jacobian of this Newton iteration; with `refresh` the pressure AMG's values too
template <class T>
void FimStep<T>::update_preconditioner(bool refresh) {
  const PartTimer timer;
  cpr_.update(jop_, refresh);
  since_refresh_ = refresh ? 0 : since_refresh_ + 1;
  if (refresh) {
    // the values the AMG was set up from and last refreshed with: state, so that a restart
    // preconditions alike (bit-identical)
    const Field<T>& pv = cpr_.pressure_values();
    if (refreshes_ == 0) be_.copy(pv.buffer(), amg_setup_p_.buffer(), pv.size() * sizeof(T));
    be_.copy(pv.buffer(), amg_refresh_p_.buffer(), pv.size() * sizeof(T));
    ++refreshes_;
  }
  be_.sync();
  const double seconds = timer.seconds();
  seconds_precond_ += seconds;
  seconds_linear_ += seconds;  // the linear time holds the preconditioner's
}

// the Newton update dx from the residual of Newton iteration `newton`, counted and recorded
template <class T>
linalg::KrylovResult FimStep<T>::linear_solve(int newton) {
  const PartTimer timer;
  dx_.fill(T(0));
  const auto r = krylov_->solve(res_, dx_, cpr_);
  log_.add(newton, r.converged, r.history);
  linear_last_ = r.iterations;
  linear_total_ += r.iterations;
  replayed_ += 2 * r.replays;
  enqueued_ += r.enqueued;
  if (since_refresh_ == 0) linear_fresh_ = r.iterations;
  seconds_linear_ += timer.seconds();
  return r;
}

template <class T>
typename FimStep<T>::Attempt FimStep<T>::solve(double dt, double /*prev_dt*/) {
  const Precision prec = precision_of<T>();
  Attempt at;
  dt_ = dt;
  log_.start_attempt();
  be_.copy(x_.buffer(), x_n_.buffer(), x_.size() * sizeof(T));
  be_.copy(ws_.buffer(), ws_n_.buffer(), ws_.size() * sizeof(T));
  switches_.assign(settings_.size(), 0);
  auto k = be_.fim();
  k.well_start({prec, &a_.prm.buffer(), a_.prm.size(), wells_, &x_.buffer(), a_.grid.pv0, E_});
  int it = 0;
  cnv_history_.clear();
  phase_history_.clear();
  update_factors_.clear();
  relax_.reset();
  for (;; ++it) {
    const PartTimer timer;
    assemble(dt);
    Measures m = measure();
    const double assembled = timer.seconds();
    // the wells' control switching, with the assembly it makes again (the wells' equations and
    // their Schur complement are launched inside the assembly and the linear solve, not timed apart)
    if (m.finite && switch_controls()) {
      assemble(dt);
      m = measure();
    }
    seconds_assemble_ += assembled;
    seconds_wells_ += timer.seconds() - assembled;
    last_ = m;
    cnv_history_.push_back(m.cnv);
    phase_history_.push_back(m.cnv_phase);
    std::ostringstream o;
    o.precision(3);
    if (!m.finite) {
      ++cuts_nonfinite_;
      o << "Newton iteration " << it << " gave a non-finite residual or well" << worst_cell() << worst_well();
      at.why = o.str();
      return at;
    }
    // CNV as OPM Flow: strict, or relaxed where the cells over the strict tolerance hold at most
    // newton.relaxed_pv_fraction of the pore volume
    const bool cnv_ok = m.cnv <= nm_.cnv || (m.cnv <= nm_.cnv_relaxed && m.over <= nm_.relaxed_pv_fraction);
    if (cnv_ok && m.mb_w <= nm_.mb && m.mb_o <= nm_.mb && m.well <= nm_.wells) break;
    if (it >= nm_.max_iterations) {
      ++cuts_newton_;
      o << "Newton did not converge in newton.max_iterations = " << nm_.max_iterations << " iterations (CNV " << m.cnv << ", MB "
        << std::max(m.mb_w, m.mb_o) << ", wells " << m.well << ")" << worst_cell() << worst_well();
      at.why = o.str();
      return at;
    }
    // the linear solve: CPR on A', the operator with the wells' couplings where a well is under rate control
    bool coupled = false;
    for (std::size_t w = 0; w < settings_.size(); ++w)
      coupled = coupled || std::lround(double(ws_host_[w * FIM_NWS + FIM_WS_CTRL])) == IMP_CTRL_RATE;
    op_.set_coupled(coupled);
    // the pressure AMG is refreshed every linear.amg_reuse Newton iterations, or sooner when the
    // solves slow down against the first after the last refresh
    const bool refresh = since_refresh_ + 1 >= nm_.amg_reuse || linear_last_ > 2 * linear_fresh_ + 4;
    update_preconditioner(refresh);
    auto r = linear_solve(it);
    const auto failed = [](const linalg::KrylovResult& x) {
      return x.reason == linalg::KrylovStop::NonFinite || !(x.converged || x.true_relative_residual < 0.5);
    };
    if (failed(r) && !refresh && r.reason != linalg::KrylovStop::NonFinite) {
      // a reused AMG may no longer fit the matrix (a longer step, a front moved): solved again
      // once with a fresh one before the step is cut
      ++linear_retries_;
      update_preconditioner(true);
      r = linear_solve(it);
    }
    if (failed(r)) {
      ++cuts_linear_;
      o << "the linear solve of Newton iteration " << it << " failed: " << r.describe();
      at.why = o.str();
      return at;
    }
    // OPM Flow's update stabilization: a step whose CNV oscillates takes factor x dx in its cells
    // from then on (into dx_damped_); the wells' BHP steps follow from dx as solved, as OPM Flow's
    const Field<T>* step = &dx_;
    if (nm_.stabilize) {
      if (relax_.observe(phase_history_, std::size_t(it))) ++oscillations_;
      update_factors_.push_back(relax_.factor());
      if (relax_.factor() < 1) {
        ++damped_;
        be_.vec().axpby({prec, 2 * E_, VecCoef::constant(relax_.factor()), VecCoef::constant(0), &dx_.buffer(), &dx_damped_.buffer()});
        step = &dx_damped_;
      }
    }
    k.update({prec, a_.grid, wells_, &step->buffer(), &x_.buffer(), nm_.dp_max, nm_.ds_max, nm_.dbhp_max, &dx_.buffer()});
    ++newton_total_;
  }
  last_newton_ = it;
  // the new state: p and S_w into the arrays (restore() undoes it), the masses aside until commit()
  k.masses({prec, a_.grid, &a_.prm.buffer(), a_.prm.size(), &x_.buffer(), &mw2_.buffer(), &mo2_.buffer()});
  k.unpack({prec, a_.grid, &x_.buffer(), &a_.p.buffer(), &a_.sw.buffer(), &dp_.buffer(), &ds_.buffer()});
  for (double& v : result_.stat) v = 0;
  result_.stat[IMP_S_DSW] = global_reduce(be_, comm_, ReduceOp::Max, ds_);
  result_.stat[IMP_S_DP] = global_reduce(be_, comm_, ReduceOp::Max, dp_);
  result_.relative_change = pid_ ? relative_change() : -1.0;
  for (std::size_t w = 0; w < settings_.size(); ++w) {
    const T* s = ws_host_.data() + w * FIM_NWS;
    double* o = result_.well.data() + w * IMP_NWO;
    const int ctrl = static_cast<int>(std::lround(double(s[FIM_WS_CTRL])));
    o[IMP_O_QW] = double(s[FIM_WS_QW]);
    o[IMP_O_QO] = double(s[FIM_WS_QO]);
    o[IMP_O_BHP] = ctrl == IMP_CTRL_SHUT ? 0.0 : double(s[FIM_WS_BHP]);
    o[IMP_O_CTRL] = ctrl;
    o[IMP_O_RHO] = double(s[FIM_WS_RHO]);
  }
  a_.combine_wells(comm_, result_.well);
  at.ok = true;
  at.newton = it;
  return at;
}

// Σ (Δp² + ΔS_w² + ΔS_o²) / Σ (p² + S_w² + S_o²) over the active cells, p in Pa, as OPM Flow's
// BlackoilModel::relativeChange: from the changes unpack left (dp_ in bar, ds_; 0 where inactive)
// and the new p and S_w masked to the active cells (a ghost or an inactive cell may hold a value).
// ΔS_o = -ΔS_w and S_o = 1 - S_w. Five launches and one read a step.
template <class T>
double FimStep<T>::relative_change() {
  const Precision prec = precision_of<T>();
  VecKernels v = be_.vec();
  v.diag({prec, E_, 1, &on_.buffer(), &a_.p.buffer(), &p_on_.buffer()});
  v.diag({prec, E_, 1, &on_.buffer(), &a_.sw.buffer(), &sw_on_.buffer()});
  v.dot({prec, E_, &dp_.buffer(), &dp_.buffer(), 0, &ds_.buffer(), &ds_.buffer(), 1, &sums_.buffer()});
  v.dot({prec, E_, &p_on_.buffer(), &p_on_.buffer(), 2, &sw_on_.buffer(), &sw_on_.buffer(), 3, &sums_.buffer()});
  v.dot({prec, E_, &sw_on_.buffer(), &on_.buffer(), 4, nullptr, nullptr, -1, &sums_.buffer()});
  const std::vector<T> s = sums_.download();
  double d[6] = {double(s[0]), double(s[1]), double(s[2]), double(s[3]), double(s[4]), active_cells_};
  comm_.sum(d);
  const double pa2 = 1e10;  // bar² in Pa²
  const double delta = pa2 * d[0] + 2 * d[1];
  const double denom = pa2 * d[2] + d[3] + (d[5] - 2 * d[4] + d[3]);
  return denom > 0 ? delta / denom : 0.0;
}

template <class T>
typename FimStep<T>::Attempt FimStep<T>::check() const {
  Attempt at;  // S_w stays in [0, 1] by the update's clamp, the masses >= 0 with it
  at.ok = true;
  at.newton = last_newton_;
  return at;
}

template <class T>
void FimStep<T>::commit() {
  a_.mw.swap(mw2_);
  a_.mo.swap(mo2_);
  residual_w_ += last_.sum_w;
  residual_o_ += last_.sum_o;
}

template <class T>
void FimStep<T>::restore() {
  be_.copy(x_n_.buffer(), x_.buffer(), x_.size() * sizeof(T));
  be_.copy(ws_n_.buffer(), ws_.buffer(), ws_.size() * sizeof(T));
  be_.fim().unpack({precision_of<T>(), a_.grid, &x_.buffer(), &a_.p.buffer(), &a_.sw.buffer(), &dp_.buffer(), &ds_.buffer()});
}

template <class T>
void FimStep<T>::well_setting(std::size_t w, const WellSetting& s, bool open) {
  settings_[w] = s;
  open_[w] = open ? 1 : 0;
}

template <class T>
void FimStep<T>::well_changed(std::size_t w, const WellSetting& s, bool open) {
  well_setting(w, s, open);
  ws_host_ = ws_.download();
  T* x = ws_host_.data() + w * FIM_NWS;
  x[FIM_WS_CTRL] = T(!open ? IMP_CTRL_SHUT : s.control == WellControl::Bhp ? IMP_CTRL_BHP : IMP_CTRL_RATE);
  x[FIM_WS_INIT] = T(1);
  ws_.upload(ws_host_);
}

template <class T>
void FimStep<T>::bind(State& s) {
  s.field("fim_well_state", ws_);
  s.value("newton_iterations_total", newton_total_);
  s.value("linear_iterations_total", linear_total_);
  s.value("well_switches_total", switches_total_);
  s.value("newton_residual_water", residual_w_);
  s.value("newton_residual_oil", residual_o_);
  s.value("seconds_assemble", seconds_assemble_);
  s.value("seconds_linear", seconds_linear_);
  s.value("seconds_preconditioner_refresh", seconds_precond_);
  s.field("amg_setup_pressure", amg_setup_p_);
  s.field("amg_refresh_pressure", amg_refresh_p_);
  s.value("pressure_amg_refreshes", refreshes_);
  s.value("amg_since_refresh", since_refresh_);
  s.value("linear_iterations_fresh", linear_fresh_);
  s.value("linear_iterations_last", linear_last_);
  s.value("cuts_newton_not_converged", cuts_newton_);
  s.value("cuts_linear_solve_failed", cuts_linear_);
  s.value("linear_solves_retried", linear_retries_);
  s.value("cuts_non_finite", cuts_nonfinite_);
  s.value("newton_oscillations", oscillations_);
  s.value("newton_updates_damped", damped_);
  s.after_load([this] {
    be_.fim().pack({precision_of<T>(), a_.grid, &a_.p.buffer(), &a_.sw.buffer(), &x_.buffer()});
    if (refreshes_ > 0) cpr_.restore_pressure_stage(jop_, amg_setup_p_, amg_refresh_p_);
    return std::string();
  });
}

template <class T>
std::string FimStep<T>::describe() const {
  std::ostringstream o;
  o << "fully implicit, Newton to CNV " << nm_.cnv << ", MB " << nm_.mb << " (at most " << nm_.max_iterations
    << " iterations";
  if (nm_.stabilize) o << ", updates damped down to " << nm_.min_relaxation << " on oscillation";
  o << "), linear " << krylov_->describe() << " with CPR (pressure: AMG, " << (nm_.amg_w_cycle ? "W" : "V") << "-cycle, Chebyshev degree " << nm_.amg_degree
    << (nm_.amg_float && sizeof(T) == 8 ? ", in float" : "") << ", coarsest level of at most " << nm_.coarse_size << " rows, reused until the solves slow down; whole system: ILU(0)) to "
    << nm_.linear_tolerance;
  return o.str();
}

template <class T>
std::string FimStep<T>::progress() const {
  std::ostringstream o;
  o << "Newton " << last_newton_ << " it, linear " << linear_last_ << " it (last)";
  return o.str();
}

template <class T>
void FimStep<T>::add_stats(std::map<std::string, double>& s, long steps) const {
  s["newton_iterations_total"] = double(newton_total_);
  s["newton_iterations_per_step"] = steps ? double(newton_total_) / double(steps) : 0.0;
  s["linear_iterations_total"] = double(linear_total_);
  s["linear_iterations_per_newton"] = newton_total_ ? double(linear_total_) / double(newton_total_) : 0.0;
  s["linear_iterations_per_step"] = steps ? double(linear_total_) / double(steps) : 0.0;
  // enqueued as pairs replayed from a recording (CUDA Graphs), some past a solve's stop (empty)
  s["linear_iterations_replayed"] = double(replayed_);
  // every linear iteration enqueued, those past a solve's stop (empty) included
  s["linear_iterations_enqueued"] = double(enqueued_);
  s["well_control_switches"] = double(switches_total_);
  s["seconds_assemble"] = seconds_assemble_;
  s["seconds_linear"] = seconds_linear_;
  s["seconds_preconditioner_refresh"] = seconds_precond_;
  s["seconds_well_switching"] = seconds_wells_;
  s["pressure_amg_refreshes"] = double(refreshes_);
  // the causes of the steps cut (retried_steps counts them all, with the model's own checks)
  s["cuts_newton_not_converged"] = double(cuts_newton_);
  s["cuts_linear_solve_failed"] = double(cuts_linear_);
  s["linear_solves_retried"] = double(linear_retries_);
  s["cuts_non_finite"] = double(cuts_nonfinite_);
  // OPM Flow's update stabilization: the oscillations it detected, the updates it scaled down
  s["newton_oscillations"] = double(oscillations_);
  s["newton_updates_damped"] = double(damped_);
}

template class FimSchurOperator<float>;
template class FimSchurOperator<double>;
template class FimStep<float>;
template class FimStep<double>;

}  // namespace poreflow
