#include "core/models/impes3d.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <sstream>

#include "core/error.hpp"
#include "core/io/eclipse/deck.hpp"
#include "core/io/png_plot.hpp"
#include "core/kernels/blas.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/reduce.hpp"
#include "core/models/state.hpp"
#include "core/solvers/convergence.hpp"

namespace poreflow {

namespace {


double word_value(unsigned long long w, Precision prec) {
  return prec == Precision::Float ? double(phys::pf_from_word<float>(w)) : phys::pf_from_word<double>(w);
}

}  // namespace

ImpesMemory impes3d_memory(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec) {
  const Box3 box = Box3::standalone(g.nx, g.ny, g.nz, 1);
  const std::size_t E = box.extent(), v = size_of(prec);
  ImpesMemory m;
  // cell arrays: tx ty tz depth pv0 p p_old dp dp_prev mw mo mw2 mo2 sw (14) and zline's scratch
  // (3), props, coefficients, ccell
  const std::size_t props = IMP_NPROPS * E * v, coef = sor3d_coef_values(box) * v;
  m.total = 17 * E * v + props + coef + E * sizeof(int) + completions * (IMP_NCP + 2) * v + completions * 2 * 8 +
            wells * IMP_NWP * v + impes3d_words(static_cast<long>(wells)) * 8 + kControlBytes;
  m.largest = std::max(props, coef);
  return m;
}

MemoryNeed impes3d_need(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec, bool host) {
  const ImpesMemory m = impes3d_memory(g, completions, wells, prec);
  MemoryNeed need;
  need.what = "the " + std::to_string(g.nx) + " x " + std::to_string(g.ny) + " x " + std::to_string(g.nz) + " grid (" +
              std::to_string(static_cast<std::size_t>(g.nx) * g.ny * g.nz) + " cells)";
  need.total = m.total;
  need.largest = m.largest;
  // on the host backends the input's own per-cell arrays (double) share the memory
  if (host) need.total += 20 * sizeof(double) * static_cast<std::size_t>(g.nx) * g.ny * g.nz;
  return need;
}

void check_impes3d_memory(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec, const Backend& be) {
  check_memory(impes3d_need(g, completions, wells, prec, be.is_host()), prec, be);
}

template <class T>
Impes3D<T>::Impes3D(Backend& be, const Impes3DConfig& cfg) : be_(be), cfg_(cfg) {
  const Precision prec = precision_of<T>();
  check_precision(be, prec, "impes3d");
  const auto& in = cfg_.input;
  const auto& g = in.grid;
  std::size_t ncomp = 0;
  for (const auto& w : in.wells) ncomp += w.completions.size();
  check_impes3d_memory(g, ncomp, in.wells.size(), prec, be);  // the need, before anything is allocated

  geo_ = build_geometry(g);
  if (geo_.active == 0) throw ConfigError("case '" + in.source + "': the grid has no active cell");
  wa_ = build_wells(in, geo_);
  prm_host_ = build_prm(in.fluid);
  E_ = geo_.box.extent();
  auto up = [&](const std::vector<double>& v) {
    Field<T> f(be, v.size());
    if (!v.empty()) f.upload(std::vector<T>(v.begin(), v.end()));
    return f;
  };
  tx_ = up(geo_.tx);
  ty_ = up(geo_.ty);
  tz_ = up(geo_.tz);
  depth_ = up(geo_.depth);
  pv0_ = up(geo_.pv0);
  prm_ = up(prm_host_);
  const ImpesState st = initial_state(in, geo_, prm_host_);
  p_ = up(st.p);
  mw_ = up(st.mw);
  mo_ = up(st.mo);
  sw_ = up(st.sw);
  for (Field<T>* f : {&p_old_, &dp_, &dp_prev_, &mw2_, &mo2_}) {
    *f = Field<T>(be, E_);
    f->fill(T(0));  // the halo stays 0: read next to the boundary, times a zero coefficient
  }
  props_ = Field<T>(be, IMP_NPROPS * E_);
  props_.fill(T(0));
  coef_ = Field<T>(be, sor3d_coef_values(geo_.box));
  coef_.fill(T(0));
  const std::size_t nc = std::max<std::size_t>(ncomp, 1), nw = std::max<std::size_t>(in.wells.size(), 1);
  cwi_ = up(wa_.cwi.empty() ? std::vector<double>(1, 0.0) : wa_.cwi);
  cdepth_ = up(wa_.cdepth.empty() ? std::vector<double>(1, 0.0) : wa_.cdepth);
  comp_ = Field<T>(be, IMP_NCP * nc);
  comp_.fill(T(0));
  cidx_ = be.alloc(2 * nc * sizeof(long));
  if (!wa_.cidx.empty()) be.upload(*cidx_, wa_.cidx.data(), wa_.cidx.size() * sizeof(long));
  ccell_ = be.alloc(E_ * sizeof(int));
  be.upload(*ccell_, wa_.ccell.data(), E_ * sizeof(int));
  words_ = be.alloc(impes3d_words(static_cast<long>(nw)) * 8);
  ctrl_ = be.alloc(kControlBytes);
  std::vector<double> wp;
  for (std::size_t w = 0; w < in.wells.size(); ++w) {
    settings_.push_back(in.wells[w].initial);
    const auto x = well_params(in.wells[w], in.wells[w].initial, wa_, w);
    wp.insert(wp.end(), x.begin(), x.end());
  }
  if (wp.empty()) wp.assign(IMP_NWP, 0.0);
  wp_ = up(wp);
  wells_.assign(in.wells.size(), ImpesWellResult{});
  stopped_.assign(in.wells.size(), 0);
  h_bhp_.assign(in.wells.size(), {});
  h_wct_.assign(in.wells.size(), {});

  grid_ = {geo_.box, &tx_.buffer(), &ty_.buffer(), &tz_.buffer(), &depth_.buffer(), &pv0_.buffer()};
  tables_ = {&prm_.buffer(), prm_host_.size(), cfg_.numerics.tables};
  dt_next_ = std::min(cfg_.numerics.dt_init, injection_dt());

  // the couplings of the pressure equation at the initial state, for the design and omega = auto:
  // means over the active cells of the accumulation term C and, per direction, of the sum over the
  // cell's two faces of T (k_rw / mu_w + k_ro / mu_o)
  {
    double s_sum[3] = {0, 0, 0}, c_sum = 0;
    for (long k = 0; k < g.nz; ++k)
      for (long j = 0; j < g.ny; ++j)
        for (long i = 0; i < g.nx; ++i) {
          const long L = geo_.at(i, j, k);
          if (!(geo_.pv0[L] > 0)) continue;
          const auto v = phys::imp_pvt_at<double>(prm_host_.data(), st.p[L]);
          const auto sat = phys::imp_sat_at<double>(prm_host_.data(), st.sw[L]);
          double dfdp;
          phys::imp_pore_factor<double>(prm_host_.data(), st.p[L], &dfdp);
          const double lt = sat.krw / v.muw + sat.kro / v.muo;
          s_sum[0] += (geo_.tx[L] + geo_.tx[L - 1]) * lt;
          s_sum[1] += (geo_.ty[L] + geo_.ty[L - geo_.box.sy]) * lt;
          s_sum[2] += (geo_.tz[L] + geo_.tz[L - geo_.box.sz]) * lt;
          c_sum += geo_.pv0[L] * dfdp - (v.dbw * st.mw[L] + v.dbo * st.mo[L]);
        }
    for (int d = 0; d < 3; ++d) coupling_[d] = s_sum[d] / double(geo_.active);
    compress_c_ = c_sum / double(geo_.active);
  }
  // the design: lines along k where the vertical coupling dominates (thin layers), points otherwise
  auto& nm = cfg_.numerics;
  if (nm.design_auto) nm.design = coupling_[2] > 2 * (coupling_[0] + coupling_[1]) ? SorDesign::Zline : SorDesign::Simple;
  if (!nm.sor_shape_given)
    nm.sor_shape = parse_box_shape(nm.design == SorDesign::Simple ? "march:32x8" : nm.design == SorDesign::Tiled ? "march:32x8" : "march:32x4");
  if (nm.design == SorDesign::Zline) {
    scratch_ = Field<T>(be, 3 * E_);
    scratch_.fill(T(0));
  }
  omega_ = omega_for(dt_next_);
  mw0_ = sum(mw_);
  mo0_ = sum(mo_);
  apply_schedule();  // events at t = 0
}

template <class T>
double Impes3D<T>::omega_for(double dt) const {
  if (cfg_.numerics.omega > 0) return cfg_.numerics.omega;
  // Young's optimum 2 / (1 + sqrt(1 - rho^2)) for the Jacobi spectral radius rho of the smoothest
  // mode, estimated by the ratio of the mean couplings the sweep leaves to the mean diagonal,
  // dt S / (C + dt S) (S: the couplings in x, y and z for point SOR, in x and y for lines along k,
  // which solve the z couplings exactly). Heterogeneity pushes the true rho above this mean: with
  // 1 - rho halved the estimate meets the measured optimum of case 2 at dt = 0.1, 1 and 5 days
  // within 0.01 (docs/impes3d.md).
  const double s = dt * (coupling_[0] + coupling_[1] + (cfg_.numerics.design == SorDesign::Zline ? 0.0 : coupling_[2]));
  const double c = std::max(compress_c_, 1e-300);
  const double rho = 1.0 - 0.5 * (c / (c + s));
  const double w = 2.0 / (1.0 + std::sqrt(std::max(0.0, 1.0 - rho * rho)));
  return std::clamp(w, 1.0, 1.99);
}

template <class T>
std::string Impes3D<T>::summary() const {
  const auto& g = cfg_.input.grid;
  const auto& nm = cfg_.numerics;
  std::ostringstream o;
  o << "impes3d: " << g.nx << " x " << g.ny << " x " << g.nz << " cells (" << geo_.active << " active, pore volume "
    << geo_.pore_volume << " m3), " << cfg_.input.wells.size() << " wells, " << cfg_.input.report_times.size()
    << " reports to " << end_time() << " days; SOR " << to_string(nm.design) << " " << to_string(nm.sor_shape) << ", omega "
    << (nm.omega > 0 ? std::to_string(nm.omega) : "auto") << ", to a volume error of " << nm.tolerance_for(precision_of<T>())
    << "; precision "
    << to_string(precision_of<T>());
  return o.str();
}

template <class T>
GridInfo Impes3D<T>::grid() const {
  GridInfo gi;
  const auto& g = cfg_.input.grid;
  gi.points = {g.nx, g.ny, g.nz};
  return gi;
}

template <class T>
double Impes3D<T>::sum(const Field<T>& f) const {
  ReduceArgs r;
  r.prec = precision_of<T>();
  r.op = ReduceOp::Sum;
  r.cfg = {be_.reduce().default_variant()};
  r.a = &f.buffer();
  r.n = f.size();
  return be_.reduce().run(r);
}

template <class T>
double Impes3D<T>::water_in_place() const {
  return sum(mw_);
}
template <class T>
double Impes3D<T>::oil_in_place() const {
  return sum(mo_);
}

// FPR: the pore-volume weighted pressure (reads the pressure back: report times only)
template <class T>
double Impes3D<T>::mean_pressure() const {
  const auto p = p_.download();
  double pv = 0, pp = 0;
  for (std::size_t L = 0; L < E_; ++L)
    if (geo_.pv0[L] > 0) {
      pv += geo_.pv0[L];
      pp += geo_.pv0[L] * double(p[L]);
    }
  return pv > 0 ? pp / pv : 0;
}

template <class T>
void Impes3D<T>::apply_schedule() {
  const auto& ev = cfg_.input.schedule;
  while (next_event_ < ev.size() && ev[next_event_].time <= t_ + 1e-9 * std::max(1.0, t_)) {
    const auto& e = ev[next_event_++];
    std::size_t w = 0;
    while (cfg_.input.wells[w].name != e.well) ++w;
    settings_[w] = e.setting;
    upload_well(w);  // only the changed well's parameters go to the device
    spdlog::info("t = {:g} days: well {} {} ({}, rate {:g}, BHP {:g})", t_, e.well, e.setting.open ? "open" : "shut",
                 to_string(e.setting.control), e.setting.rate, e.setting.bhp);
    // the flow changes abruptly: the steps start again from the first step's size and grow
    if (t_ > 0) dt_next_ = std::min({dt_next_, cfg_.numerics.dt_init, injection_dt()});
  }
}

template <class T>
void Impes3D<T>::upload_well(std::size_t w) {
  WellSetting st = settings_[w];
  if (stopped_[w]) st.open = false;
  const auto x = well_params(cfg_.input.wells[w], st, wa_, w);
  const std::vector<T> xt(x.begin(), x.end());
  be_.upload(wp_.buffer(), xt.data(), xt.size() * sizeof(T), w * IMP_NWP * sizeof(T));
}

// A first step's bound from the injectors: a completion's share of its well's rate (by well index)
// fills at most time.ds_max of its cell's pore volume. Before water moves, an injected cell's
// water cannot leave it (k_rw(S_wc) = 0): a thin cell by a strong injector (case 1 as 960 x 960 x 1)
// would otherwise overfill in the first step at any dt the halvings reach.
template <class T>
double Impes3D<T>::injection_dt() const {
  double bound = std::numeric_limits<double>::infinity();
  const auto& wells = cfg_.input.wells;
  for (std::size_t w = 0; w < wells.size(); ++w) {
    const WellSetting& st = settings_[w];
    if (wells[w].kind != WellKind::Injector || !st.open || !(st.rate > 0)) continue;
    double wi = 0;
    for (long c = wa_.first[w]; c < wa_.first[w] + wa_.count[w]; ++c) wi += wa_.cwi[c];
    for (long c = wa_.first[w]; c < wa_.first[w] + wa_.count[w]; ++c) {
      const double share = wi > 0 ? wa_.cwi[c] / wi : 1.0 / double(wa_.count[w]);
      const double pv = geo_.pv0[static_cast<std::size_t>(wa_.cidx[2 * c])];
      if (share > 0 && pv > 0) bound = std::min(bound, cfg_.numerics.ds_max * pv / (st.rate * share));
    }
  }
  return std::max(bound, cfg_.numerics.dt_min);
}

template <class T>
typename Impes3D<T>::Attempt Impes3D<T>::try_step(double dt) {
  const Precision prec = precision_of<T>();
  const auto& nm = cfg_.numerics;
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  Attempt at;
  be_.copy(p_.buffer(), p_old_.buffer(), E_ * sizeof(T));
  be_.fill(*words_, Precision::Double, 0.0, impes3d_words(std::max<long>(long(cfg_.input.wells.size()), 1)));
  auto k = be_.impes3d();
  k.props({prec, grid_, tables_, &p_old_.buffer(), &mw_.buffer(), &mo_.buffer(), &props_.buffer(), nm.cell_shape});
  k.assemble({prec, grid_, dt, &p_old_.buffer(), &props_.buffer(), &coef_.buffer(), nm.cell_shape});
  Impes3DWellArgs w;
  w.prec = prec;
  w.grid = grid_;
  w.tables = tables_;
  w.wells = static_cast<long>(cfg_.input.wells.size());
  w.completions = static_cast<long>(wa_.cwi.size());
  w.wp = &wp_.buffer();
  w.cidx = cidx_.get();
  w.cwi = &cwi_.buffer();
  w.cdepth = &cdepth_.buffer();
  w.comp = &comp_.buffer();
  w.props = &props_.buffer();
  w.p = &p_old_.buffer();
  w.dt = dt;
  w.coef = &coef_.buffer();
  w.words = words_.get();
  k.wells_prepare(w);

  // the pressure increment: from the last one scaled by the steps (it changes smoothly), or 0
  if (nm.extrapolate && prev_dt_ > 0) {
    dp_.fill(T(0));
    be_.blas().axpy({prec, E_, std::min(dt / prev_dt_, 4.0), &dp_prev_.buffer(), &dp_.buffer()});
  } else {
    dp_.fill(T(0));
  }
  Sor3DArgs sa;
  sa.prec = prec;
  sa.box = geo_.box;
  sa.p = &dp_.buffer();
  sa.coef = &coef_.buffer();
  omega_ = omega_for(dt);
  sa.omega = omega_;
  sa.threshold = nm.tolerance_for(prec);
  sa.check_every = nm.check_every;
  sa.design = nm.design;
  sa.shape = nm.sor_shape;
  sa.zline_lanes = nm.zline_lanes;
  sa.ctrl = ctrl_.get();
  sa.scratch = nm.design == SorDesign::Zline ? &scratch_.buffer() : nullptr;
  auto sor = be_.sor3d();
  sor.reset(sa);
  const long ce = nm.check_every;
  auto round_up = [&](long x) { return std::max(ce, (x + ce - 1) / ce * ce); };
  BatchSizes bs;
  bs.first = round_up(last_sor_ > 0 ? last_sor_ : 16);
  bs.then = round_up(std::max<long>(bs.first / 4, 8));
  bs.max = 4096;
  FusedStatus st;
  run_batches(
      nm.max_iterations, bs, [&](long first, long count) { sor.iterate(sa, first, count); },
      [&](long next) {
        st = sor.status(sa, next);
        return st.converged || st.non_finite;
      });
  last_sor_ = st.iterations;
  sor_total_ += st.iterations;
  last_residual_ = st.last_metric;
  const auto t1 = clock::now();
  seconds_pressure_ += std::chrono::duration<double>(t1 - t0).count();
  if (st.non_finite) {
    at.why = "the pressure solve produced a non-finite residual";
    return at;
  }
  if (!st.converged) {
    std::ostringstream o;
    o << "the pressure solve did not converge in pressure.max_iterations = " << nm.max_iterations << " iterations (volume error "
      << st.last_metric << ", tolerance " << nm.tolerance_for(prec) << ")";
    at.why = o.str();
    return at;
  }
  be_.blas().axpy({prec, E_, 1.0, &dp_.buffer(), &p_.buffer()});  // p = p^n + dp
  w.p = &p_.buffer();
  k.wells_finish(w);
  Impes3DUpdateArgs u;
  u.prec = prec;
  u.grid = grid_;
  u.tables = tables_;
  u.dt = dt;
  u.p_old = &p_old_.buffer();
  u.p_new = &p_.buffer();
  u.props = &props_.buffer();
  u.mw_in = &mw_.buffer();
  u.mo_in = &mo_.buffer();
  u.ccell = ccell_.get();
  u.comp = &comp_.buffer();
  u.completions = w.completions;
  u.mw_out = &mw2_.buffer();
  u.mo_out = &mo2_.buffer();
  u.sw = &sw_.buffer();
  u.words = words_.get();
  u.shape = nm.cell_shape;
  k.update(u);
  const std::size_t nwords = impes3d_words(long(cfg_.input.wells.size()));
  std::vector<unsigned long long> words(nwords);
  be_.download(*words_, words.data(), nwords * 8);
  seconds_other_ += std::chrono::duration<double>(clock::now() - t1).count();
  // A well at its BHP that flows the wrong way as a whole (a producer pushing oil and water it never
  // took in into the reservoir, an injector producing) is stopped and the step solved again, as
  // Eclipse and OPM Flow stop a well that cannot flow at its BHP; the next step tries it again.
  // Its rates are implicit: the solved ones decide.
  for (std::size_t i = 0; i < wells_.size(); ++i) {
    const unsigned long long* x = words.data() + IMP_NSTAT + i * IMP_NWO;
    if (std::lround(word_value(x[IMP_O_CTRL], prec)) != IMP_CTRL_BHP) continue;
    const double into = word_value(x[IMP_O_QW], prec) + word_value(x[IMP_O_QO], prec);  // surface liquid
    if (cfg_.input.wells[i].kind == WellKind::Injector ? into < 0 : into > 0) {
      stopped_[i] = 1;
      upload_well(i);
      at.redo = true;
    }
  }
  if (at.redo) return at;
  double s[IMP_NSTAT];
  for (int i = 0; i < IMP_NSTAT; ++i) s[i] = word_value(words[i], prec);
  std::ostringstream o;
  o.precision(4);
  if (std::isnan(s[IMP_S_DSW]) || std::isnan(s[IMP_S_DP]) || std::isnan(s[IMP_S_CFL])) {
    o << "the update produced NaN";
  } else if (s[IMP_S_SWLO] > nm.sw_tolerance || s[IMP_S_SWHI] > nm.sw_tolerance) {
    // name the cell (a copy only on this path)
    const auto sw = cells_of(sw_);
    std::size_t worst = 0;
    auto off = [](double x) { return std::max(-x, x - 1); };
    for (std::size_t c = 0; c < sw.size(); ++c)
      if (off(sw[c]) > off(sw[worst])) worst = c;
    const auto& g = cfg_.input.grid;
    o << "S_w left [0, 1] by " << std::max(s[IMP_S_SWLO], s[IMP_S_SWHI]) << " (S_w = " << sw[worst] << " in cell ("
      << worst % g.nx + 1 << ", " << (worst / g.nx) % g.ny + 1 << ", " << worst / (std::size_t(g.nx) * g.ny) + 1 << "))";
  } else if (s[IMP_S_NEG] > nm.sw_tolerance) {
    // both masses of a cell can go negative together with S_w still in [0, 1]: never accepted
    o << "a cell's phase mass went negative (by " << s[IMP_S_NEG] << " of its pore volume)";
  } else if (fail_at_ >= 0 && t_ + dt >= fail_at_) {
    o << "a failure asked for by the test at t = " << fail_at_;
    fail_at_ = -1;
  }
  if (!o.str().empty()) {
    at.why = o.str();
    return at;
  }
  // accepted: masses, rates, the next step's size
  mw_.swap(mw2_);
  mo_.swap(mo2_);
  dp_.swap(dp_prev_);
  prev_dt_ = dt;
  for (std::size_t i = 0; i < wells_.size(); ++i) {
    const unsigned long long* x = words.data() + IMP_NSTAT + i * IMP_NWO;
    auto& r = wells_[i];
    const double qw = word_value(x[IMP_O_QW], prec), qo = word_value(x[IMP_O_QO], prec);
    const bool inj = cfg_.input.wells[i].kind == WellKind::Injector;
    r.water_injection = inj ? qw : 0;
    r.water_rate = inj ? 0 : -qw;
    r.oil_rate = -qo;
    r.bhp = word_value(x[IMP_O_BHP], prec);
    r.control = static_cast<int>(std::lround(word_value(x[IMP_O_CTRL], prec)));
    // cumulatives in double from the rates the device added to the masses (crossflow included)
    r.water_injected += inj ? dt * qw : 0;
    r.water_total += inj ? 0 : -dt * qw;
    r.oil_total += -dt * qo;
  }
  max_cfl_ = std::max(max_cfl_, dt * s[IMP_S_CFL]);
  // what the last step allows the next: the CFL limit, and the S_w and pressure changes scaled
  const double tiny = 1e-30;
  dt_limit_ = std::min({nm.cfl / std::max(s[IMP_S_CFL], tiny), dt * nm.ds_max / std::max(s[IMP_S_DSW], tiny),
                        dt * nm.dp_max / std::max(s[IMP_S_DP], tiny)});
  at.ok = true;
  return at;
}

template <class T>
void Impes3D<T>::step(double t_stop) {
  apply_schedule();
  const auto& nm = cfg_.numerics;
  double limit = t_stop;
  const auto& ev = cfg_.input.schedule;
  if (next_event_ < ev.size()) limit = std::min(limit, ev[next_event_].time);
  const double left = limit - t_;
  double dt = std::min(dt_next_, left);
  bool truncated = dt < dt_next_;
  if (!truncated && left < 2 * dt) {  // no sliver of a step before the stop: two even ones
    dt = left <= dt * (1 + 1e-9) ? left : 0.5 * left;
  }
  const double planned = dt_next_;
  bool failed = false;
  for (int cut = 0;; ++cut) {
    Attempt a = try_step(dt);
    while (a.redo) {  // a well is now stopped: the same step again (each redo stops one more)
      be_.copy(p_old_.buffer(), p_.buffer(), E_ * sizeof(T));
      a = try_step(dt);
    }
    if (a.ok) break;
    ++cuts_total_;
    std::ostringstream o;
    o << "step " << steps_ + 1 << " (t = " << t_ << " days, dt = " << dt << "): " << a.why;
    if (cut >= nm.max_cuts || dt * 0.5 < nm.dt_min) {
      // name the worst cell of the last attempt
      const auto p = cells_of(p_), s = cells_of(sw_);
      const auto& g = cfg_.input.grid;
      long worst = -1;
      for (std::size_t c = 0; c < p.size(); ++c)
        if (!std::isfinite(p[c]) || !std::isfinite(s[c]) || s[c] < -nm.sw_tolerance || s[c] > 1 + nm.sw_tolerance) {
          worst = static_cast<long>(c);
          break;
        }
      if (worst >= 0) {
        const long i = worst % g.nx, j = (worst / g.nx) % g.ny, kk = worst / (long(g.nx) * g.ny);
        o << "; at cell (" << i + 1 << ", " << j + 1 << ", " << kk + 1 << "): p = " << p[worst] << ", S_w = " << s[worst];
      }
      o << "; no step of at least time.dt_min = " << nm.dt_min << " within time.max_cuts = " << nm.max_cuts
        << " halvings succeeded";
      throw NumericalError(o.str());
    }
    dt *= 0.5;
    failed = true;
    spdlog::warn("{}; retrying with dt = {:g}", o.str(), dt);
    be_.copy(p_old_.buffer(), p_.buffer(), E_ * sizeof(T));  // the start of the step again
  }
  // the stopped wells are tried again in the next step
  for (std::size_t w = 0; w < stopped_.size(); ++w)
    if (stopped_[w]) {
      stopped_[w] = 0;
      upload_well(w);
    }
  t_ = (dt == left) ? limit : t_ + dt;
  last_dt_ = dt;
  ++steps_;
  // the next step grows from this one (from the planned size when a stop shortened it, from the
  // size that worked after a retry) within what this step's changes allow
  const double base = failed ? dt : (truncated ? planned : dt);
  dt_next_ = std::clamp(std::min(nm.growth * base, dt_limit_), nm.dt_min, nm.dt_max);
  // a report time reached: its row of the history
  const auto& rt = cfg_.input.report_times;
  while (next_report_ < rt.size() && t_ >= rt[next_report_] * (1 - 1e-12)) {
    record_report();
    ++next_report_;
  }
  if (summary_) write_summary(false);
  apply_schedule();
}

template <class T>
void Impes3D<T>::open_outputs(const std::filesystem::path& dir) {
  if (!cfg_.deck) return;
  // a restarted run writes its own summary files (Eclipse's restart convention), so the first
  // run's files stay whole
  std::string stem = cfg_.deck->basename();
  if (steps_ > 0) {
    stem += "_R" + std::to_string(steps_);
    spdlog::info("restarted deck: summary files {} from t = {:g} days on ({} holds the run before)", stem, t_,
                 cfg_.deck->basename());
  }
  summary_ = cfg_.deck->summary(dir, stem);
  if (steps_ > 0) {
    // the totals go on from the checkpoint's, as Eclipse's do in a restarted run's files
    if (!summary_resume_)
      spdlog::warn("the checkpoint holds no summary totals (its run wrote no summary files): {}'s totals start from 0 at "
                   "t = {:g} days", stem, t_);
    summary_->resume({summary_keys_, summary_values_}, t_);
  }
  write_summary(true);
}

template <class T>
void Impes3D<T>::write_summary(bool start) {
  eclipse::SummaryStep s;
  s.time = t_;
  const auto& rt = cfg_.input.report_times;
  const bool at_report = next_report_ > 0 && std::abs(t_ - rt[next_report_ - 1]) <= 1e-12 * std::max(1.0, t_);
  const auto every = static_cast<std::size_t>(cfg_.report_every);
  s.report = start || (at_report && (next_report_ % every == 0 || next_report_ == rt.size()));
  for (std::size_t w = 0; w < wells_.size(); ++w) {
    const auto& r = wells_[w];
    eclipse::WellStep x;
    x.oil_rate = r.oil_rate;
    x.water_rate = r.water_rate;
    x.water_injection = r.water_injection;
    x.bhp = r.bhp;
    x.open = settings_[w].open && r.control != IMP_CTRL_SHUT;
    x.control = settings_[w].control;
    x.bhp_controlled = r.control == IMP_CTRL_BHP;
    s.wells.push_back(x);
  }
  if (s.report) summary_fpr_ = mean_pressure();
  s.pressure = summary_fpr_;
  // start: the in-place volumes of time 0, also in a restarted run (opm's recovery factors)
  s.oil_in_place = start ? mo0_ : oil_in_place();
  s.water_in_place = start ? mw0_ : water_in_place();
  if (start) summary_->start(s);
  else summary_->step(s);
}

template <class T>
void Impes3D<T>::record_report() {
  double fopr = 0, fwpr = 0, fwir = 0;
  for (std::size_t w = 0; w < wells_.size(); ++w) {
    fopr += wells_[w].oil_rate;
    fwpr += wells_[w].water_rate;
    fwir += wells_[w].water_injection;
    h_bhp_[w].push_back(wells_[w].control == IMP_CTRL_SHUT ? NAN : wells_[w].bhp);
    const double l = wells_[w].oil_rate + wells_[w].water_rate;
    h_wct_[w].push_back(cfg_.input.wells[w].kind == WellKind::Producer && l > 0 ? wells_[w].water_rate / l : NAN);
  }
  h_time_.push_back(t_);
  h_fopr_.push_back(fopr);
  h_fwpr_.push_back(fwpr);
  h_fwir_.push_back(fwir);
  h_fwct_.push_back(fopr + fwpr > 0 ? fwpr / (fopr + fwpr) : 0.0);
}

template <class T>
std::string Impes3D<T>::progress() const {
  std::ostringstream o;
  o.precision(3);
  o << "dt " << last_dt_ << " d, SOR " << last_sor_ << " it (omega " << omega_ << ", error " << last_residual_ << "), "
    << cuts_total_ << " retries";
  return o.str();
}

template <class T>
std::vector<double> Impes3D<T>::cells_of(const Field<T>& f) const {
  const auto v = f.download();
  const auto& g = cfg_.input.grid;
  std::vector<double> out(g.cells(), 0.0);
  for (long k = 0; k < g.nz; ++k)
    for (long j = 0; j < g.ny; ++j)
      for (long i = 0; i < g.nx; ++i) out[g.index(i, j, k)] = double(v[geo_.at(i, j, k)]);
  return out;
}

template <class T>
std::vector<double> Impes3D<T>::pressure() const {
  return cells_of(p_);
}
template <class T>
std::vector<double> Impes3D<T>::saturation() const {
  return cells_of(sw_);
}

template <class T>
std::vector<NamedField> Impes3D<T>::fields() const {
  return {{"pressure", pressure()}, {"sw", saturation()}};
}

template <class T>
std::vector<std::string> Impes3D<T>::series_columns() const {
  std::vector<std::string> c = {"TIME", "STEPS", "DT",   "FOPR", "FWPR", "FLPR", "FWIR",  "FOPT", "FWPT", "FWIT",
                                "FWCT", "FPR",   "FOIP", "FWIP", "SOR_ITERATIONS", "RETRIES"};
  for (const auto& w : cfg_.input.wells)
    for (const char* v : {"WOPR", "WWPR", "WWIR", "WBHP", "WWCT", "WOPT", "WWPT", "WWIT", "WCTRL"}) c.push_back(std::string(v) + ":" + w.name);
  return c;
}

template <class T>
std::vector<double> Impes3D<T>::series_row() const {
  double fopr = 0, fwpr = 0, fwir = 0, fopt = 0, fwpt = 0, fwit = 0;
  for (const auto& w : wells_) {
    fopr += w.oil_rate;
    fwpr += w.water_rate;
    fwir += w.water_injection;
    fopt += w.oil_total;
    fwpt += w.water_total;
    fwit += w.water_injected;
  }
  std::vector<double> r = {t_,   double(steps_), last_dt_, fopr, fwpr, fopr + fwpr, fwir, fopt, fwpt, fwit,
                           fopr + fwpr > 0 ? fwpr / (fopr + fwpr) : 0.0, mean_pressure(), oil_in_place(), water_in_place(),
                           double(sor_total_), double(cuts_total_)};
  for (std::size_t i = 0; i < wells_.size(); ++i) {
    const auto& w = wells_[i];
    const double l = w.oil_rate + w.water_rate;
    r.insert(r.end(), {w.oil_rate, w.water_rate, w.water_injection, w.bhp, l > 0 ? w.water_rate / l : 0.0, w.oil_total,
                       w.water_total, w.water_injected, double(w.control)});
  }
  return r;
}

template <class T>
void Impes3D<T>::write_plot(const std::filesystem::path& png) const {
  const auto stem = (png.parent_path() / png.stem()).string();
  // rates, water cut and BHP against time
  if (!h_time_.empty()) {
    using io::Series;
    std::vector<io::Panel> panels(3);
    panels[0] = {"field rates", "time (days)", "sm3/day", {}};
    panels[0].series.push_back(Series{"oil production", h_time_, h_fopr_, {20, 20, 20}});
    panels[0].series.push_back(Series{"water production", h_time_, h_fwpr_, {30, 100, 220}});
    panels[0].series.push_back(Series{"water injection", h_time_, h_fwir_, {30, 160, 60}, true});
    panels[1] = {"water cut", "time (days)", "", {}};
    panels[1].ymin = 0;
    panels[1].ymax = 1;
    panels[1].series.push_back(Series{"field", h_time_, h_fwct_, {0, 0, 0}});
    panels[2] = {"bottom-hole pressure", "time (days)", "bar", {}};
    static const std::array<std::array<unsigned char, 3>, 6> colors{
        {{200, 40, 40}, {40, 90, 200}, {30, 150, 60}, {180, 120, 20}, {130, 50, 170}, {20, 150, 150}}};
    for (std::size_t w = 0; w < wells_.size(); ++w) {
      const auto col = colors[w % colors.size()];
      if (cfg_.input.wells[w].kind == WellKind::Producer)
        panels[1].series.push_back(Series{cfg_.input.wells[w].name, h_time_, h_wct_[w], col, true});
      panels[2].series.push_back(Series{cfg_.input.wells[w].name, h_time_, h_bhp_[w], col});
    }
    io::write_plot_png(stem + "_wells.png", panels);
  }
  // S_w in the chosen layer
  const auto& g = cfg_.input.grid;
  const auto s = saturation();
  const int k = cfg_.map_layer;
  std::vector<double> layer(static_cast<std::size_t>(g.nx) * g.ny);
  for (long j = 0; j < g.ny; ++j)
    for (long i = 0; i < g.nx; ++i) {
      const std::size_t c = g.index(i, j, k);
      layer[static_cast<std::size_t>(j) * g.nx + i] = geo_.pv0[geo_.at(i, j, k)] > 0 ? s[c] : NAN;
    }
  std::ostringstream t;
  t.precision(4);
  t << "water saturation, layer " << k + 1 << ", t = " << t_ << " days";
  io::write_map_png(stem + "_sw_layer" + std::to_string(k + 1) + ".png", g.nx, g.ny, layer, 0, 1, t.str());
}

template <class T>
std::string Impes3D<T>::write_snapshot(const std::filesystem::path& dir, const std::string& stem) const {
  const auto& g = cfg_.input.grid;
  if (!hex_) {
    std::vector<int> active(g.cells());
    for (long k = 0; k < g.nz; ++k)
      for (long j = 0; j < g.ny; ++j)
        for (long i = 0; i < g.nx; ++i) active[g.index(i, j, k)] = geo_.pv0[geo_.at(i, j, k)] > 0;
    hex_ = std::make_unique<io::HexGrid>(io::hex_grid_cartesian(g.nx, g.ny, g.nz, g.dx, g.dy, g.dz, g.tops, active));
  }
  const auto p = pressure(), s = saturation();
  std::vector<double> pa, sa, pe, po;
  for (auto c : hex_->cell_index) {
    pa.push_back(p[c]);
    sa.push_back(s[c]);
    pe.push_back(g.permx[c]);
    po.push_back(g.poro[c]);
  }
  const std::string file = stem + ".vtu";
  io::write_vtu(dir / file, *hex_, {{"pressure", pa}, {"sw", sa}, {"permx", pe}, {"poro", po}}, t_);
  return file;
}

template <class T>
std::map<std::string, double> Impes3D<T>::final_stats() const {
  std::map<std::string, double> s;
  double inj = 0, wprod = 0, oprod = 0;
  for (const auto& w : wells_) {
    inj += w.water_injected;
    wprod += w.water_total;
    oprod += w.oil_total;
  }
  const double mw = water_in_place(), mo = oil_in_place();
  // (in place now - in place at the start) = injected - produced, per phase
  // relative to the largest volume involved (a reservoir may start without water)
  s["mass_balance_water_rel"] = std::fabs((mw - mw0_) - (inj - wprod)) / std::max({mw0_, mw, inj, wprod, 1e-300});
  s["mass_balance_oil_rel"] = std::fabs((mo - mo0_) + oprod) / std::max({mo0_, mo, oprod, 1e-300});
  s["water_injected_sm3"] = inj;
  s["water_produced_sm3"] = wprod;
  s["oil_produced_sm3"] = oprod;
  s["oil_in_place_sm3"] = mo;
  s["water_in_place_sm3"] = mw;
  s["retried_steps"] = double(cuts_total_);
  s["sor_iterations_total"] = double(sor_total_);
  s["sor_iterations_per_step"] = steps_ ? double(sor_total_) / double(steps_) : 0.0;
  s["seconds_pressure"] = seconds_pressure_;
  s["seconds_transport_and_wells"] = seconds_other_;
  s["cfl_max"] = max_cfl_;
  s["omega_last"] = omega_;
  return s;
}

// The cells' pressure, masses and S_w; the last accepted pressure increment (the next solve's
// first guess, scaled by the steps); the wells' parameters as the schedule left them. Properties,
// coefficients, completion rates and the control block are recomputed every step. On the host: the
// step sizes (the next one, the last, the limits), the schedule's and the reports' positions, the
// wells' last results and cumulatives (the CSV), the report history (the plots), the counters and
// a deck's summary totals (opm-common's summary state).
template <class T>
void Impes3D<T>::save_state(ModelState& s) const {
  s.put("pressure", p_);
  s.put("water_mass", mw_);
  s.put("oil_mass", mo_);
  s.put("sw", sw_);
  s.put("last_pressure_increment", dp_prev_);
  s.put("well_parameters", wp_);
  s.set("time", t_);
  s.set_int("steps", steps_);
  s.put("dt", std::vector<double>{dt_next_, last_dt_, prev_dt_, dt_limit_});
  s.put("counters", std::vector<long>{cuts_total_, sor_total_, last_sor_, static_cast<long>(next_event_),
                                      static_cast<long>(next_report_)});
  s.put("solver", std::vector<double>{last_residual_, omega_, max_cfl_});
  s.put("seconds", std::vector<double>{seconds_pressure_, seconds_other_});
  s.put("initial_in_place", std::vector<double>{mw0_, mo0_});
  std::vector<double> w;
  for (const auto& r : wells_)
    w.insert(w.end(), {r.oil_rate, r.water_rate, r.water_injection, r.bhp, double(r.control), r.oil_total, r.water_total,
                       r.water_injected});
  s.put("wells", w);
  s.put("history_time", h_time_);
  s.put("history_fopr", h_fopr_);
  s.put("history_fwpr", h_fwpr_);
  s.put("history_fwir", h_fwir_);
  s.put("history_fwct", h_fwct_);
  std::vector<double> bhp, wct;
  for (std::size_t i = 0; i < wells_.size(); ++i) {
    bhp.insert(bhp.end(), h_bhp_[i].begin(), h_bhp_[i].end());
    wct.insert(wct.end(), h_wct_[i].begin(), h_wct_[i].end());
  }
  s.put("history_bhp", bhp);  // well after well, one value per report
  s.put("history_wct", wct);
  // a deck's summary totals, which a restarted run's summary files continue
  if (summary_) {
    const auto t = summary_->totals();
    std::string keys;
    for (const auto& k : t.keys) keys += k + '\n';
    s.set_text("summary_keys", keys);
    s.put("summary_values", t.values);
  }
}

template <class T>
void Impes3D<T>::load_state(const ModelState& s) {
  s.get("pressure", p_);
  s.get("water_mass", mw_);
  s.get("oil_mass", mo_);
  s.get("sw", sw_);
  s.get("last_pressure_increment", dp_prev_);
  s.get("well_parameters", wp_);
  t_ = s.scalar("time");
  steps_ = s.integer("steps");
  const auto dt = s.doubles("dt", 4);
  dt_next_ = dt[0];
  last_dt_ = dt[1];
  prev_dt_ = dt[2];
  dt_limit_ = dt[3];
  const auto n = s.ints("counters", 5);
  cuts_total_ = n[0];
  sor_total_ = n[1];
  last_sor_ = n[2];
  const auto& ev = cfg_.input.schedule;
  if (n[3] < 0 || std::size_t(n[3]) > ev.size() || n[4] < 0 || std::size_t(n[4]) > cfg_.input.report_times.size())
    throw ConfigError("the checkpoint's schedule or report position does not fit this case");
  next_event_ = std::size_t(n[3]);
  next_report_ = std::size_t(n[4]);
  // the wells' settings are the schedule's events so far (their parameters came with the state)
  for (std::size_t w = 0; w < settings_.size(); ++w) settings_[w] = cfg_.input.wells[w].initial;
  for (std::size_t e = 0; e < next_event_; ++e)
    for (std::size_t w = 0; w < settings_.size(); ++w)
      if (cfg_.input.wells[w].name == ev[e].well) settings_[w] = ev[e].setting;
  const auto sv = s.doubles("solver", 3);
  last_residual_ = sv[0];
  omega_ = sv[1];
  max_cfl_ = sv[2];
  const auto sec = s.doubles("seconds", 2);
  seconds_pressure_ = sec[0];
  seconds_other_ = sec[1];
  const auto ip = s.doubles("initial_in_place", 2);
  mw0_ = ip[0];
  mo0_ = ip[1];
  const auto w = s.doubles("wells", 8 * wells_.size());
  for (std::size_t i = 0; i < wells_.size(); ++i) {
    const double* x = w.data() + 8 * i;
    wells_[i] = {x[0], x[1], x[2], x[3], static_cast<int>(x[4]), x[5], x[6], x[7]};
  }
  const std::size_t nr = s.doubles("history_time").size();
  h_time_ = s.doubles("history_time", nr);
  h_fopr_ = s.doubles("history_fopr", nr);
  h_fwpr_ = s.doubles("history_fwpr", nr);
  h_fwir_ = s.doubles("history_fwir", nr);
  h_fwct_ = s.doubles("history_fwct", nr);
  const auto bhp = s.doubles("history_bhp", nr * wells_.size()), wct = s.doubles("history_wct", nr * wells_.size());
  for (std::size_t i = 0; i < wells_.size(); ++i) {
    h_bhp_[i].assign(bhp.begin() + std::ptrdiff_t(i * nr), bhp.begin() + std::ptrdiff_t((i + 1) * nr));
    h_wct_[i].assign(wct.begin() + std::ptrdiff_t(i * nr), wct.begin() + std::ptrdiff_t((i + 1) * nr));
  }
  summary_resume_ = s.has("summary_keys");
  summary_keys_.clear();
  summary_values_.clear();
  if (summary_resume_) {
    std::istringstream keys(s.text("summary_keys"));
    for (std::string k; std::getline(keys, k);) summary_keys_.push_back(k);
    summary_values_ = s.doubles("summary_values", summary_keys_.size());
  }
}

template class Impes3D<float>;
template class Impes3D<double>;

}  // namespace poreflow
