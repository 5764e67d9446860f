#include "core/models/impes3d_step.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <span>
#include <sstream>

#include "core/base/error.hpp"
#include "core/comm/sor_split.hpp"
#include "core/kernels/blas.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/program_builds.hpp"
#include "core/kernels/sor3d.hpp"
#include "core/models/state.hpp"
#include "core/solvers/convergence.hpp"

namespace poreflow {

namespace {

double word_value(unsigned long long w, Precision prec) {
  return prec == Precision::Float ? double(phys::pf_from_word<float>(w)) : phys::pf_from_word<double>(w);
}

template <class T>
Field<T> upload(Backend& be, const std::vector<double>& v) {
  Field<T> f(be, v.size());
  if (!v.empty()) f.upload(std::vector<T>(v.begin(), v.end()));
  return f;
}

}  // namespace

template <class T>
ReservoirArrays<T>::ReservoirArrays(Backend& be, const ImpesInput& in, const ImpesGeometry& geo, const ImpesWellArrays& wa,
                                    const std::vector<double>& prm_host, const ImpesState& st, TableSpace space)
    : geo_box(geo.box),
      tx(upload<T>(be, geo.tx)),
      ty(upload<T>(be, geo.ty)),
      tz(upload<T>(be, geo.tz)),
      depth(upload<T>(be, geo.depth)),
      pv0(upload<T>(be, geo.pv0)),
      prm(upload<T>(be, prm_host)),
      p(upload<T>(be, st.p)),
      mw(upload<T>(be, st.mw)),
      mo(upload<T>(be, st.mo)),
      sw(upload<T>(be, st.sw)),
      cwi(upload<T>(be, wa.cwi.empty() ? std::vector<double>(1, 0.0) : wa.cwi)),
      cdepth(upload<T>(be, wa.cdepth.empty() ? std::vector<double>(1, 0.0) : wa.cdepth)),
      wells(static_cast<long>(in.wells.size())),
      completions(static_cast<long>(wa.cwi.size())) {
  const std::size_t E = geo.box.extent();
  const std::size_t nc = std::max<std::size_t>(wa.cwi.size(), 1);
  cidx = be.alloc(2 * nc * sizeof(long));
  if (!wa.cidx.empty()) be.upload(*cidx, wa.cidx.data(), wa.cidx.size() * sizeof(long));
  ccell = be.alloc(E * sizeof(int));
  be.upload(*ccell, wa.ccell.data(), E * sizeof(int));
  std::vector<double> w;
  for (std::size_t i = 0; i < in.wells.size(); ++i) {
    const auto x = well_params(in.wells[i], in.wells[i].initial, wa, i);
    w.insert(w.end(), x.begin(), x.end());
  }
  if (w.empty()) w.assign(IMP_NWP, 0.0);
  wp = upload<T>(be, w);
  grid = {geo.box, &tx.buffer(), &ty.buffer(), &tz.buffer(), &depth.buffer(), &pv0.buffer()};
  tables = {&prm.buffer(), prm_host.size(), space};
}

template <class T>
void ReservoirArrays<T>::combine_wells(const Communicator& comm, std::vector<double>& words) const {
  if (own_well.empty()) return;
  for (std::size_t w = 0; w < own_well.size(); ++w)
    if (!own_well[w]) std::fill_n(words.begin() + static_cast<long>(w) * IMP_NWO, IMP_NWO, 0.0);
  comm.sum(words);
}

template <class T>
ImpesStep<T>::ImpesStep(Backend& be, const Communicator& comm, ReservoirArrays<T>& a, ImpesNumerics& nm, const ImpesInput& in, const ImpesGeometry& geo,
                        const std::vector<double>& prm_host, const ImpesState& st, double dt_first)
    : be_(be), comm_(comm), a_(a), nm_(nm), E_(a.extent()) {
  for (Field<T>* f : {&p_old_, &dp_, &dp_prev_, &mw2_, &mo2_}) {
    *f = Field<T>(be, E_);
    f->fill(T(0));  // the halo stays 0: read next to the boundary, times a zero coefficient
  }
  props_ = Field<T>(be, IMP_NPROPS * E_);
  props_.fill(T(0));
  coef_ = Field<T>(be, sor3d_coef_values(geo.box));
  coef_.fill(T(0));
  const std::size_t nc = std::max<std::size_t>(static_cast<std::size_t>(a.completions), 1);
  const long nw = std::max<long>(a.wells, 1);
  comp_ = Field<T>(be, IMP_NCP * nc);
  comp_.fill(T(0));
  words_ = be.alloc(impes3d_words(nw) * 8);
  ctrl_ = be.alloc(kControlBytes);
  result_.well.assign(static_cast<std::size_t>(IMP_NWO) * static_cast<std::size_t>(a.wells), 0.0);

  // the couplings of the pressure equation at the initial state, for the design and omega = auto:
  // means over the active cells of the accumulation term C and, per direction, of the sum over the
  // cell's two faces of T (k_rw / mu_w + k_ro / mu_o)
  // (over every process's cells: the design and omega are the same everywhere)
  double s_sum[3] = {0, 0, 0}, c_sum = 0;
  for (long k = 0; k < geo.box.nz; ++k)
    for (long j = 0; j < geo.box.ny; ++j)
      for (long i = 0; i < geo.box.nx; ++i) {
        const long L = geo.at(i, j, k);
        if (!(geo.pv0[L] > 0)) continue;
        const auto v = phys::imp_pvt_at<double>(prm_host.data(), st.p[L]);
        const auto sat = phys::imp_sat_at<double>(prm_host.data(), st.sw[L]);
        double dfdp;
        phys::imp_pore_factor<double>(prm_host.data(), st.p[L], &dfdp);
        const double lt = sat.krw / v.muw + sat.kro / v.muo;
        s_sum[0] += (geo.tx[L] + geo.tx[L - 1]) * lt;
        s_sum[1] += (geo.ty[L] + geo.ty[L - geo.box.sy]) * lt;
        s_sum[2] += (geo.tz[L] + geo.tz[L - geo.box.sz]) * lt;
        c_sum += geo.pv0[L] * dfdp - (v.dbw * st.mw[L] + v.dbo * st.mo[L]);
      }
  double sums[5] = {s_sum[0], s_sum[1], s_sum[2], c_sum, double(geo.active)};
  comm.sum(sums);
  for (int d = 0; d < 3; ++d) coupling_[d] = sums[d] / sums[4];
  compress_c_ = sums[3] / sums[4];
  // the design: lines along k where the vertical coupling dominates (thin layers), points otherwise
  if (nm.design_auto) nm.design = coupling_[2] > 2 * (coupling_[0] + coupling_[1]) ? SorDesign::Zline : SorDesign::Simple;
  if (!nm.sor_shape_given)
    nm.sor_shape = parse_box_shape(nm.design == SorDesign::Simple ? "march:32x8" : nm.design == SorDesign::Tiled ? "march:32x8" : "march:32x4");
  if (nm.design == SorDesign::Zline) {
    scratch_ = Field<T>(be, 3 * E_);
    scratch_.fill(T(0));
  }
  omega_ = omega_for(dt_first);
  if (a.halo && nm.solver == PressureSolver::Sor) split_ = std::make_unique<HaloSorSplit>(be, *a.halo, comm);
  if (nm.solver != PressureSolver::Sor) krylov_ = std::make_unique<ImpesKrylovPressure<T>>(be, comm, geo.box, a.pv0, nm, amg_counts_, a.halo);
}

template <class T>
std::string ImpesStep<T>::describe_solver() const {
  if (krylov_) return krylov_->describe();
  return std::string("red-black SOR (") + to_string(nm_.design) + ")";
}

template <class T>
std::string ImpesStep<T>::describe() const {
  std::ostringstream o;
  o << "IMPES, ";
  if (nm_.solver == PressureSolver::Sor)
    o << "SOR " << to_string(nm_.design) << " " << to_string(nm_.sor_shape) << ", omega "
      << (nm_.omega > 0 ? std::to_string(nm_.omega) : "auto") << ", to a volume error of " << nm_.tolerance_for(precision_of<T>());
  else
    o << "pressure by " << describe_solver() << ", to a pore-volume-weighted RMS volume error of "
      << nm_.tolerance_for(precision_of<T>());
  return o.str();
}

template <class T>
std::string ImpesStep<T>::progress() const {
  std::ostringstream o;
  o.precision(3);
  if (nm_.solver == PressureSolver::Sor)
    o << "SOR " << last_sor_ << " it (omega " << omega_ << ", error " << last_residual_ << ")";
  else
    o << to_string(nm_.solver) << " " << last_sor_ << " it (error " << last_residual_ << ")";
  return o.str();
}

template <class T>
void ImpesStep<T>::add_stats(std::map<std::string, double>& s, long steps) const {
  s["sor_iterations_total"] = double(sor_total_);
  s["sor_iterations_per_step"] = steps ? double(sor_total_) / double(steps) : 0.0;
  // the same counts under the solver's own name when it is not SOR (the sor_* keys stay: scripts read them)
  if (nm_.solver != PressureSolver::Sor) {
    s["pressure_iterations_total"] = double(sor_total_);
    s["pressure_iterations_per_step"] = steps ? double(sor_total_) / double(steps) : 0.0;
  }
  s["seconds_pressure"] = seconds_pressure_;
  // of which the preconditioner's setup (AMG: its hierarchy, on the host, at the first step) and refreshes
  if (krylov_) krylov_->add_stats(s);
  s["seconds_transport_and_wells"] = seconds_other_;
  s["omega_last"] = omega_;
}

template <class T>
double ImpesStep<T>::omega_for(double dt) const {
  if (nm_.omega > 0) return nm_.omega;
  // Young's optimum 2 / (1 + sqrt(1 - rho^2)) for the Jacobi spectral radius rho of the smoothest
  // mode, estimated by the ratio of the mean couplings the sweep leaves to the mean diagonal,
  // dt S / (C + dt S) (S: the couplings in x, y and z for point SOR, in x and y for lines along k,
  // which solve the z couplings exactly). Heterogeneity pushes the true rho above this mean: with
  // 1 - rho halved the estimate meets the measured optimum of case 2 at dt = 0.1, 1 and 5 days
  // within 0.01 (docs/impes3d.md).
  const double s = dt * (coupling_[0] + coupling_[1] + (nm_.design == SorDesign::Zline ? 0.0 : coupling_[2]));
  const double c = std::max(compress_c_, 1e-300);
  const double rho = 1.0 - 0.5 * (c / (c + s));
  const double w = 2.0 / (1.0 + std::sqrt(std::max(0.0, 1.0 - rho * rho)));
  return std::clamp(w, 1.0, 1.99);
}

// The step's pressure rows into coef_ (props, assemble, and the wells' terms at the BHPs the step
// starts from), and the wells' arguments of the rest of the step
template <class T>
Impes3DWellArgs ImpesStep<T>::prepare(double dt) {
  const Precision prec = precision_of<T>();
  be_.copy(a_.p.buffer(), p_old_.buffer(), E_ * sizeof(T));
  be_.fill(*words_, Precision::Double, 0.0, impes3d_words(std::max<long>(a_.wells, 1)));
  auto k = be_.impes3d();
  k.props({prec, a_.grid, a_.tables, &p_old_.buffer(), &a_.mw.buffer(), &a_.mo.buffer(), &props_.buffer(), nm_.cell_shape});
  // the neighbours' properties across a shared face (their mobilities and densities; p_old's
  // ghosts came with the last step's pressure)
  if (a_.halo) a_.halo->exchange(props_.buffer(), IMP_NPROPS, E_);
  k.assemble({prec, a_.grid, dt, &p_old_.buffer(), &props_.buffer(), &coef_.buffer(), nm_.cell_shape});
  Impes3DWellArgs w;
  w.prec = prec;
  w.grid = a_.grid;
  w.tables = a_.tables;
  w.wells = a_.wells;
  w.completions = a_.completions;
  w.wp = &a_.wp.buffer();
  w.cidx = a_.cidx.get();
  w.cwi = &a_.cwi.buffer();
  w.cdepth = &a_.cdepth.buffer();
  w.comp = &comp_.buffer();
  w.props = &props_.buffer();
  w.p = &p_old_.buffer();
  w.dt = dt;
  w.coef = &coef_.buffer();
  w.words = words_.get();
  k.wells_prepare(w);
  return w;
}

template <class T>
ImpesPressureRows ImpesStep<T>::pressure_rows(double dt) {
  prepare(dt);
  ImpesPressureRows r;
  r.box = a_.geo_box;
  for (T v : coef_.download()) r.sor.push_back(double(v));
  for (T v : a_.pv0.download()) r.pv.push_back(double(v));
  return r;
}

template <class T>
typename ImpesStep<T>::Attempt ImpesStep<T>::solve(double dt, double prev_dt) {
  const Precision prec = precision_of<T>();
  const PartTimer pressure;
  Attempt at;
  log_.start_attempt();
  Impes3DWellArgs w = prepare(dt);
  auto k = be_.impes3d();

  // the pressure increment: from the last one scaled by the steps (it changes smoothly), or 0
  dp_.fill(T(0));
  if (nm_.extrapolate && prev_dt > 0) be_.blas().axpy({prec, E_, std::min(dt / prev_dt, 4.0), &dp_prev_.buffer(), &dp_.buffer()});
  w.dp = &dp_.buffer();
  const Attempt ps = solve_pressure(dt, w);
  seconds_pressure_ += pressure.seconds();
  const PartTimer other;
  if (!ps.ok) return ps;
  be_.blas().axpy({prec, E_, 1.0, &dp_.buffer(), &a_.p.buffer()});  // p = p^n + dp
  if (a_.halo) a_.halo->exchange(a_.p.buffer());  // the update's fluxes read the neighbours' new pressure
  w.p = &a_.p.buffer();
  k.wells_finish(w);
  Impes3DUpdateArgs u;
  u.prec = prec;
  u.grid = a_.grid;
  u.tables = a_.tables;
  u.dt = dt;
  u.p_old = &p_old_.buffer();
  u.p_new = &a_.p.buffer();
  u.props = &props_.buffer();
  u.mw_in = &a_.mw.buffer();
  u.mo_in = &a_.mo.buffer();
  u.ccell = a_.ccell.get();
  u.comp = &comp_.buffer();
  u.completions = w.completions;
  u.mw_out = &mw2_.buffer();
  u.mo_out = &mo2_.buffer();
  u.sw = &a_.sw.buffer();
  u.words = words_.get();
  u.shape = nm_.cell_shape;
  k.update(u);
  const std::size_t nwords = impes3d_words(a_.wells);
  std::vector<std::uint64_t> words(nwords);
  be_.download(*words_, words.data(), nwords * 8);
  // the step's statistics are maxima over the cells: over every process's cells before any
  // decision, as words (non-negative numbers' bits, NaN above all: a NaN anywhere wins)
  comm_.max(std::span<std::uint64_t>(words.data(), IMP_NSTAT));
  seconds_other_ += other.seconds();
  for (int i = 0; i < IMP_NSTAT; ++i) result_.stat[i] = word_value(words[i], prec);
  for (std::size_t i = 0; i < result_.well.size(); ++i) result_.well[i] = word_value(words[IMP_NSTAT + i], prec);
  a_.combine_wells(comm_, result_.well);  // a well's words count where its completions are
  at.ok = true;
  return at;
}

template <class T>
typename ImpesStep<T>::Attempt ImpesStep<T>::solve_pressure(double dt, const Impes3DWellArgs& wells) {
  const Precision prec = precision_of<T>();
  Attempt at;
  if (krylov_) {
    const auto tries = krylov_->solve(coef_, dp_, nm_.tolerance_for(prec), wells);
    for (const auto& t : tries) {  // a solve made again counts and logs both
      log_.add(0, t.converged, t.history);
      sor_total_ += t.iterations;
    }
    const auto& r = tries.back();
    last_sor_ = r.iterations;
    last_residual_ = r.relative_residual;
    if (r.reason == linalg::KrylovStop::NonFinite) {
      at.why = "the pressure solve produced a non-finite residual";
      return at;
    }
    if (!r.converged) {
      std::ostringstream o;
      o << "the pressure solve (" << krylov_->describe() << ") did not converge: " << r.describe();
      if (tries.size() > 1) o << "; made again with every AMG level fresh, after the kept coarse levels' solve failed";
      at.why = o.str();
      return at;
    }
    at.ok = true;
    return at;
  }
  Sor3DArgs sa;
  sa.prec = prec;
  sa.box = a_.geo_box;
  sa.p = &dp_.buffer();
  sa.coef = &coef_.buffer();
  omega_ = omega_for(dt);
  sa.omega = omega_;
  sa.threshold = nm_.tolerance_for(prec);
  sa.check_every = nm_.check_every;
  sa.design = nm_.design;
  sa.shape = nm_.sor_shape;
  sa.zline_lanes = nm_.zline_lanes;
  sa.ctrl = ctrl_.get();
  sa.scratch = nm_.design == SorDesign::Zline ? &scratch_.buffer() : nullptr;
  sa.split = split_.get();
  auto sor = be_.sor3d();
  sor.reset(sa);
  const long ce = nm_.check_every;
  auto round_up = [&](long x) { return std::max(ce, (x + ce - 1) / ce * ce); };
  BatchSizes bs;
  bs.first = round_up(last_sor_ > 0 ? last_sor_ : 16);
  bs.then = round_up(std::max<long>(bs.first / 4, 8));
  bs.max = 4096;
  FusedStatus st;
  // a rate well's BHP is an unknown of the solve: updated before every kCoupleEvery-th iteration's
  // sweeps (block Gauss-Seidel over the cells and the wells), so its cells' rows see the BHP of the
  // iterate. Every 4th rather than every iteration: SOR iterations a step on case 2 51.0 -> 51.6,
  // on THIN (IMPES, 100 days) 433 -> 442, while the launches of an iteration go from 3 to 2.25
  // (case 2 on cuda is launch-bound: 0.64 s before the coupling, 0.99 s coupling every iteration)
  constexpr long kCoupleEvery = 4;
  auto k = be_.impes3d();
  auto iterate = [&](long first, long count) {
    if (a_.wells == 0) return sor.iterate(sa, first, count);
    for (long it = first; it < first + count; ++it) {
      if (it % kCoupleEvery == 0) k.wells_couple(wells);
      sor.iterate(sa, it, 1);
    }
  };
  run_batches(
      nm_.max_iterations, bs, iterate,
      [&](long next) {
        st = sor.status(sa, next);
        return st.converged || st.non_finite;
      });
  last_sor_ = st.iterations;
  sor_total_ += st.iterations;
  last_residual_ = st.last_metric;
  if (st.non_finite) {
    at.why = "the pressure solve produced a non-finite residual";
    return at;
  }
  if (!st.converged) {
    std::ostringstream o;
    o << "the pressure solve did not converge in pressure.max_iterations = " << nm_.max_iterations << " iterations (volume error "
      << st.last_metric << ", tolerance " << nm_.tolerance_for(prec) << ")";
    at.why = o.str();
    return at;
  }
  at.ok = true;
  return at;
}

template <class T>
typename ImpesStep<T>::Attempt ImpesStep<T>::check() const {
  Attempt at;
  const double* s = result_.stat;
  std::ostringstream o;
  o.precision(4);
  if (std::isnan(s[IMP_S_DSW]) || std::isnan(s[IMP_S_DP]) || std::isnan(s[IMP_S_CFL])) {
    o << "the update produced NaN";
  } else if (s[IMP_S_SWLO] > nm_.sw_tolerance || s[IMP_S_SWHI] > nm_.sw_tolerance) {
    o << "S_w left [0, 1] by " << std::max(s[IMP_S_SWLO], s[IMP_S_SWHI]);
    at.why = o.str();
    at.sw_out = true;
    return at;
  } else if (s[IMP_S_NEG] > nm_.sw_tolerance) {
    // both masses of a cell can go negative together with S_w still in [0, 1]: never accepted
    o << "a cell's phase mass went negative (by " << s[IMP_S_NEG] << " of its pore volume)";
  }
  at.why = o.str();
  at.ok = at.why.empty();
  return at;
}

template <class T>
void ImpesStep<T>::commit() {
  a_.mw.swap(mw2_);
  a_.mo.swap(mo2_);
  dp_.swap(dp_prev_);
}

template <class T>
void ImpesStep<T>::restore() {
  be_.copy(p_old_.buffer(), a_.p.buffer(), E_ * sizeof(T));  // the start of the step again
}

template <class T>
void ImpesStep<T>::bind(State& s) {
  s.field("last_pressure_increment", dp_prev_);
  s.value("sor_iterations_total", sor_total_);
  s.value("sor_iterations_last", last_sor_);
  s.value("sor_last_residual", last_residual_);
  s.value("sor_omega", omega_);
  s.value("seconds_pressure", seconds_pressure_);
  s.value("seconds_transport_and_wells", seconds_other_);
  amg_counts_.bind(s);
}

template struct ReservoirArrays<float>;
template struct ReservoirArrays<double>;
template class ImpesStep<float>;
template class ImpesStep<double>;

}  // namespace poreflow
