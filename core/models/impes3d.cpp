#include "core/models/impes3d.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/base/error.hpp"
#include "core/base/limits.hpp"
#include "core/comm/gather_plane.hpp"
#include "core/comm/global_reduce.hpp"
#include "core/kernels/control.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/sor3d.hpp"
#include "core/kernels/vec.hpp"
#include "core/comm/halo_exchange.hpp"
#include "core/models/fim_step.hpp"
#include "core/physics/fim.h"

namespace poreflow {

ImpesMemory impes3d_memory(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec,
                           ReservoirSchemeKind scheme, PressureSolver solver, PressurePreconditioner pc) {
  const Box3 box = Box3::standalone(g.nx, g.ny, g.nz, 1);
  const std::size_t E = box.extent(), v = size_of(prec);
  ImpesMemory m;
  if (scheme == ReservoirSchemeKind::Fim) {
    // an estimate by counting the arrays, values per entry of the box: the model's arrays (9),
    // the Newton's state and work vectors (16), the Jacobian's 7 planes of 2 x 2 blocks (28), the
    // reused AMG's setup and refresh matrices (14), CPR's weights and pressure matrix (9), its
    // ILU(0) factor and diagonal inverses (32), BiCGSTAB's vectors (16), the AMG hierarchy and its
    // host setup (about 36: the finest level as CSR with its int32 columns, the coarser levels and
    // transfers); HETERO's run on serial measured 160 values an entry (its resident memory)
    const std::size_t jac = 28 * E * v;
    m.total = 160 * E * v + completions * (FIM_NCQ + 2) * v + completions * 2 * 8 + wells * (IMP_NWP + 2 * FIM_NWS) * v;
    m.largest = jac;
    return m;
  }
  // cell arrays: tx ty tz depth pv0 p p_old dp dp_prev mw mo mw2 mo2 sw (14) and zline's scratch
  // (3), props, coefficients, ccell
  const std::size_t props = IMP_NPROPS * E * v, coef = sor3d_coef_values(box) * v;
  m.total = 17 * E * v + props + coef + E * sizeof(int) + completions * (IMP_NCP + 2) * v + completions * 2 * 8 +
            wells * IMP_NWP * v + impes3d_words(static_cast<long>(wells)) * 8 + kControlBytes;
  if (solver != PressureSolver::Sor) {
    // a Krylov pressure solve: the 7-point operator's planes and right-hand side (8) and its int32
    // activity, the method's vectors (CG 4, BiCGSTAB 7), the preconditioner: Jacobi's inverse
    // diagonal (1), ILU(0)'s factor (8), AMG's hierarchy on the device (about 16: the finest
    // level as CSR with int32 columns, the coarser levels, the transfers; estimated, not measured).
    // CG + Jacobi measured 417 B a cell in double against SOR's 307 (bench/results/
    // 2026-11-26_h100_impes3d_memory_db323a3/): 13.5 values here
    const std::size_t method = solver == PressureSolver::Cg ? 4 : 7;
    const std::size_t pre = pc == PressurePreconditioner::Jacobi ? 1 : pc == PressurePreconditioner::Ilu0 ? 8 : 16;
    m.total += (8 + method + pre) * E * v + E * sizeof(int);
  }
  m.largest = std::max(props, coef);
  return m;
}

MemoryNeed impes3d_need(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec, bool host,
                        ReservoirSchemeKind scheme, int processes, PressureSolver solver, PressurePreconditioner pc) {
  // a deck's DIMENS comes here unchecked: the count must be exact before anything is counted in bytes
  if (g.nx < 1 || g.ny < 1 || g.nz < 1 || !product_within({std::uint64_t(g.nx), std::uint64_t(g.ny), std::uint64_t(g.nz)}))
    throw ConfigError("the grid of " + impes_grid_text(g) + " is past the limits: every axis at least 1, at most 2^48 cells (" +
                      std::to_string(kMaxArrayValues) + ", the most values of one array)");
  const ImpesMemory m = impes3d_memory(g, completions, wells, prec, scheme, solver, pc);
  MemoryNeed need;
  need.what = "the " + impes_grid_text(g);
  need.total = m.total;
  need.largest = m.largest;
  // on the host backends the input's own per-cell arrays (double) share the memory
  if (host) need.total += 20 * sizeof(double) * static_cast<std::size_t>(g.nx) * g.ny * g.nz;
  if (processes > 1) {
    need.what += " cut between " + std::to_string(processes) + " processes";
    need.total = static_cast<std::size_t>(double(need.total) * 1.1 / processes);
    need.largest = static_cast<std::size_t>(double(need.largest) * 1.1 / processes);
  }
  return need;
}

void check_impes3d_memory(const ImpesGrid& g, std::size_t completions, std::size_t wells, Precision prec, const Backend& be,
                          ReservoirSchemeKind scheme, int processes, PressureSolver solver, PressurePreconditioner pc) {
  check_memory(impes3d_need(g, completions, wells, prec, be.is_host(), scheme, processes, solver, pc), prec, be);
}

namespace {

// the controller of an impes3d run: steps that grow by time.growth within what the last step allows
// (Impes3D::attempt), cut on a failure, ending exactly on report times and schedule events (two
// even steps rather than a sliver before them; with time.control = "newton" OPM Flow's thresholds)
TimeStepOptions impes_time_options(const ImpesNumerics& nm, double end) {
  TimeStepOptions o;
  o.dt_init = nm.dt_init;
  o.dt_min = nm.dt_min;
  o.dt_max = nm.dt_max;
  o.growth = nm.growth;
  o.growth_after_cut = nm.growth_after_cut;
  o.max_cuts = nm.max_cuts;
  o.cut = nm.cut;
  o.even_split = true;
  if (newton_rule(nm.control)) {  // AdaptiveSimulatorTimer::provideTimeStepEstimate's rule
    o.whole_within = 1.05;
    o.split_below = 1.5;
  }
  o.land_on_stop = true;
  o.unit = "days";
  o.max_steps = nm.max_steps;
  o.end = end;
  return o;
}

// the configuration, once the backend takes its precision and the grid fits (before anything is
// allocated)
const Impes3DConfig& checked(const Impes3DConfig& cfg, Backend& be, Precision prec, int processes) {
  check_precision(be, prec, "impes3d");
  std::size_t ncomp = 0;
  for (const auto& w : cfg.input.wells) ncomp += w.completions.size();
  check_impes3d_memory(cfg.input.grid, ncomp, cfg.input.wells.size(), prec, be, cfg.numerics.scheme, processes,
                       cfg.numerics.solver, cfg.numerics.preconditioner);
  return cfg;
}

ImpesGeometry geometry_of(const ImpesInput& in) {
  ImpesGeometry geo = build_geometry(in.grid);
  if (geo.active == 0) throw ConfigError("case '" + in.source + "': the grid has no active cell");
  return geo;
}

template <class T>
std::unique_ptr<ReservoirScheme<T>> make_scheme(Backend& be, const Communicator& comm, ReservoirArrays<T>& a, ImpesNumerics& nm,
                                                const ImpesInput& in, const ImpesGeometry& geo, const ImpesWellArrays& wa,
                                                const std::vector<double>& prm, const ImpesState& st, double dt_first) {
  if (nm.scheme == ReservoirSchemeKind::Fim) return std::make_unique<FimStep<T>>(be, comm, a, nm, in, geo, wa);
  return std::make_unique<ImpesStep<T>>(be, comm, a, nm, in, geo, prm, st, dt_first);
}

// this process's part of a run over several processes (null in one process)
std::unique_ptr<ImpesPart> part_of(const Communicator& comm, const Impes3DConfig& cfg, const ImpesGeometry& geo,
                                   const ImpesWellArrays& wa) {
  if (comm.single()) return nullptr;
  // SOR's red-black colours are the grid's when every box starts at an even index
  const bool sor = cfg.numerics.scheme == ReservoirSchemeKind::Impes && cfg.numerics.solver == PressureSolver::Sor;
  const Decomposition d = decompose_impes(cfg.input, geo, comm.size(), sor);
  return std::make_unique<ImpesPart>(make_impes_part(cfg.input, geo, wa, d, comm.rank()));
}

// the exchange of the box's ghosts (null in one process): IMPES moves one value a cell (its property
// planes, the pressure), the fully implicit scheme two ((p, S_w) and its Newton systems' vectors)
std::unique_ptr<HaloExchange> halo_of(const Communicator& comm, const Impes3DConfig& cfg, const ImpesPart* part, Backend& be,
                                      Precision prec) {
  if (!part) return nullptr;
  const int block = cfg.numerics.scheme == ReservoirSchemeKind::Fim ? 2 : 1;
  return std::make_unique<HaloExchange>(comm, part->dec, be, part->geo.box, prec, cfg.numerics.cell_shape, block);
}

ImpesState local_state(const ImpesState& whole, const ImpesGeometry& geo, const ImpesPart* part) {
  return part ? slice_state(whole, geo, *part) : whole;
}

template <class T>
ReservoirArrays<T>& with_part(ReservoirArrays<T>& a, const HaloExchange* halo, const ImpesPart* part, std::size_t wells) {
  a.halo = halo;
  if (part) {
    for (std::size_t w = 0; w < wells; ++w) a.own_well.push_back(part->owns(w) ? 1 : 0);
    a.origin[0] = part->box.i0;
    a.origin[1] = part->box.j0;
    a.origin[2] = part->box.k0;
  }
  return a;
}

std::vector<WellSetting> initial_settings(const ImpesInput& in) {
  std::vector<WellSetting> s;
  for (const auto& w : in.wells) s.push_back(w.initial);
  return s;
}

}  // namespace

template <class T>
Impes3D<T>::Impes3D(Backend& be, const Impes3DConfig& cfg, const Communicator& comm)
    : be_(be),
      comm_(comm),
      cfg_(checked(cfg, be, precision_of<T>(), comm.size())),
      geo_(geometry_of(cfg_.input)),
      wa_(build_wells(cfg_.input, geo_)),
      prm_host_(build_prm(cfg_.input.fluid)),
      part_(part_of(comm, cfg_, geo_, wa_)),
      halo_(halo_of(comm, cfg_, part_.get(), be, precision_of<T>())),
      initial_(std::make_unique<ImpesState>(local_state(initial_state(cfg_.input, geo_, prm_host_), geo_, part_.get()))),
      settings_(initial_settings(cfg_.input)),
      step_settings_(settings_),
      stopped_(settings_.size(), 0),
      wells_(cfg_.input.wells.size()),
      clock_(impes_time_options(cfg_.numerics, cfg_.input.report_times.empty() ? 0.0 : cfg_.input.report_times.back())),
      arrays_(be, cfg_.input, local_geo(), local_wa(), prm_host_, *initial_, cfg_.numerics.tables),
      scheme_(make_scheme<T>(be, comm, with_part(arrays_, halo_.get(), part_.get(), cfg_.input.wells.size()), cfg_.numerics,
                             cfg_.input, local_geo(), local_wa(), prm_host_, *initial_, first_dt())),
      pid_(cfg_.numerics.pid_tolerance) {
  initial_.reset();
  if (part_) {
    // the first line of a run over several processes: it names the scheme, as the backend's line does alone
    if (comm.rank() == 0) spdlog::info("impes3d, scheme {}, over {}", scheme_name(), describe_part(*part_));
    for (std::size_t w = 0; w < settings_.size(); ++w)
      if (!part_->owns(w)) upload_well(w);  // shut here: another process holds it
  }
  clock_.set_next_dt(first_dt());
  mw0_ = sum(arrays_.mw);
  mo0_ = sum(arrays_.mo);
  bind_state();
  apply_schedule();  // events at t = 0
  step_settings_ = settings_;
  totals_.slot = Field<T>(be_, 1);
  if (part_) refresh_totals(true);
}

// Decomposed: the in-place volumes after every step, the mean pressure where asked (the CSV's
// rows, a deck summary's reports and fully implicit ministeps), summed over the processes once for
// all of them.
template <class T>
void Impes3D<T>::refresh_totals(bool pressure) {
  ReduceArgs r;
  r.prec = precision_of<T>();
  r.op = ReduceOp::Sum;
  r.cfg = {be_.reduce().default_variant()};
  r.n = arrays_.extent();
  double v[4] = {0, 0, 0, 0};
  r.a = &arrays_.mw.buffer();
  v[0] = be_.reduce().run(r);
  r.a = &arrays_.mo.buffer();
  v[1] = be_.reduce().run(r);
  if (pressure) {
    v[2] = local_geo().pore_volume;
    v[3] = local_pv_pressure();
  }
  comm_.sum(v);
  totals_.mw = v[0];
  totals_.mo = v[1];
  if (pressure) totals_.fpr = v[2] > 0 ? v[3] / v[2] : 0;
}

// this process's sum of pv0 p, on the device (pv0 is 0 in inactive cells and the halo): one value
// comes back, not the field
template <class T>
double Impes3D<T>::local_pv_pressure() const {
  be_.vec().dot({precision_of<T>(), arrays_.extent(), &arrays_.pv0.buffer(), &arrays_.p.buffer(), 0, nullptr, nullptr, -1,
                 &totals_.slot.buffer(), nullptr});
  T pp = 0;
  be_.download(totals_.slot.buffer(), &pp, sizeof(T));
  return double(pp);
}

template <class T>
void Impes3D<T>::before_output(bool fields, Gather gather) {
  if (!part_) return;
  refresh_totals(true);
  if (!fields) return;
  // not gathered: empty on process 0 too, rather than an older snapshot's (a snapshot's pieces
  // read each process's own device)
  const bool whole = gather == Gather::Whole;
  totals_.p = whole ? cells_of(arrays_.p) : std::vector<double>{};
  totals_.sw = whole ? cells_of(arrays_.sw) : std::vector<double>{};
  totals_.sw_layer = gather == Gather::Maps ? gather_plane(comm_, part_->dec, 2, cfg_.map_layer, box_values(arrays_.sw))
                                            : std::vector<double>{};
}

// The cells' pressure, masses and S_w; the last accepted pressure increment (the next solve's
// first guess, scaled by the steps); the wells' parameters as the schedule left them. Properties,
// coefficients, completion rates and the control block are recomputed every step. On the host: the
// time control (the next step's size, the last, the limit, the counters), the schedule's position
// (the wells' settings follow from it), the wells' last results and cumulatives (the CSV), the
// pressure solver's counters.
template <class T>
void Impes3D<T>::bind_state() {
  state_.field("pressure", arrays_.p);
  state_.field("water_mass", arrays_.mw);
  state_.field("oil_mass", arrays_.mo);
  state_.field("sw", arrays_.sw);
  state_.field("well_parameters", arrays_.wp);
  clock_.bind(state_);
  scheme_->bind(state_);
  state_.value("schedule_position", next_event_);
  state_.value("cfl_max", max_cfl_);
  state_.doubles("pid_changes", 3, [this] { return pid_.errors(); }, [this](const std::vector<double>& v) { pid_.set_errors(v); });
  state_.value("water_in_place_initial", mw0_);
  state_.value("oil_in_place_initial", mo0_);
  const std::size_t nw = wells_.size();
  auto column = [&](const char* name, auto member) {
    state_.doubles(
        std::string("well_") + name, nw,
        [this, member] {
          std::vector<double> v;
          for (const auto& r : wells_) v.push_back(double(r.*member));
          return v;
        },
        [this, member](const std::vector<double>& v) {
          for (std::size_t i = 0; i < wells_.size(); ++i) wells_[i].*member = static_cast<std::remove_reference_t<decltype(wells_[i].*member)>>(v[i]);
        });
  };
  column("oil_rate", &ImpesWellResult::oil_rate);
  column("water_rate", &ImpesWellResult::water_rate);
  column("water_injection", &ImpesWellResult::water_injection);
  column("bhp", &ImpesWellResult::bhp);
  column("control", &ImpesWellResult::control);
  column("oil_total", &ImpesWellResult::oil_total);
  column("water_total", &ImpesWellResult::water_total);
  column("water_injected", &ImpesWellResult::water_injected);
  // the wells' settings are the schedule's events so far (their parameters came with the state)
  state_.after_load([this] {
    const auto& ev = cfg_.input.schedule;
    if (next_event_ > ev.size()) return std::string("the schedule position is past the schedule's events");
    for (std::size_t w = 0; w < settings_.size(); ++w) settings_[w] = cfg_.input.wells[w].initial;
    for (std::size_t e = 0; e < next_event_; ++e)
      for (std::size_t w = 0; w < settings_.size(); ++w)
        if (cfg_.input.wells[w].name == ev[e].well) settings_[w] = ev[e].setting;
    step_settings_ = settings_;
    for (std::size_t w = 0; w < settings_.size(); ++w) scheme_->well_setting(w, settings_[w], settings_[w].open);
    if (part_) refresh_totals(true);  // every process loads its part together: the totals of the loaded state
    return std::string();
  });
}

template <class T>
std::string Impes3D<T>::summary() const {
  const auto& g = cfg_.input.grid;
  std::ostringstream o;
  o << "impes3d: " << g.nx << " x " << g.ny << " x " << g.nz << " cells (" << geo_.active << " active, pore volume "
    << geo_.pore_volume << " m3), " << cfg_.input.wells.size() << " wells, " << cfg_.input.report_times.size()
    << " reports to " << end_time() << " days; scheme " << scheme_->describe()
    << (cfg_.numerics.control == StepControl::Newton      ? "; time steps from the Newton iterations (OPM Flow's newtoniterationcount)"
        : cfg_.numerics.control == StepControl::PidNewton ? "; time steps from the Newton iterations and the relative change (OPM Flow's pid+newtoniteration)"
                                                          : "")
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
  return global_reduce(be_, comm_, ReduceOp::Sum, f);
}

// (decomposed: the totals of the last step, which every process computed together)
template <class T>
double Impes3D<T>::water_in_place() const {
  return part_ ? totals_.mw : sum(arrays_.mw);
}
template <class T>
double Impes3D<T>::oil_in_place() const {
  return part_ ? totals_.mo : sum(arrays_.mo);
}

// FPR: the pore-volume weighted pressure (a dot product on the device, where a row or summary step
// is written; decomposed, summed over the processes after each step)
template <class T>
double Impes3D<T>::mean_pressure() const {
  if (part_) return totals_.fpr;
  const double pv = local_geo().pore_volume;
  return pv > 0 ? local_pv_pressure() / pv : 0;
}

template <class T>
void Impes3D<T>::apply_schedule() {
  const auto& ev = cfg_.input.schedule;
  const double t = time();
  while (next_event_ < ev.size() && ev[next_event_].time <= t + 1e-9 * std::max(1.0, t)) {
    const auto& e = ev[next_event_++];
    std::size_t w = 0;
    while (cfg_.input.wells[w].name != e.well) ++w;
    settings_[w] = e.setting;
    upload_well(w);  // only the changed well's parameters go to the device
    spdlog::info("t = {:g} days: well {} {} ({}, rate {:g}, BHP {:g})", t, e.well, e.setting.open ? "open" : "shut",
                 to_string(e.setting.control), e.setting.rate, e.setting.bhp);
    // the flow changes abruptly: the steps start again from the first step's size and grow
    if (t > 0) clock_.restart_from(first_dt());
  }
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
void Impes3D<T>::upload_well(std::size_t w) {
  WellSetting st = settings_[w];
  if (stopped_[w] || (part_ && !part_->owns(w))) st.open = false;
  const auto x = well_params(cfg_.input.wells[w], st, local_wa(), w);
  const std::vector<T> xt(x.begin(), x.end());
  be_.upload(arrays_.wp.buffer(), xt.data(), xt.size() * sizeof(T), w * IMP_NWP * sizeof(T));
  if (scheme_) scheme_->well_changed(w, st, st.open);
}

// A well at its BHP that flows the wrong way as a whole (a producer pushing oil and water it never
// took in into the reservoir, an injector producing) is stopped and the step solved again, as
// Eclipse and OPM Flow stop a well that cannot flow at its BHP; the next step tries it again. Its
// rates are implicit: the solved ones decide. Returns whether a well was stopped.
template <class T>
bool Impes3D<T>::stop_wrong_way_wells() {
  const auto& words = scheme_->result().well;
  bool any = false;
  for (std::size_t i = 0; i < wells_.size(); ++i) {
    const double* x = words.data() + i * IMP_NWO;
    if (std::lround(x[IMP_O_CTRL]) != IMP_CTRL_BHP) continue;
    const double into = x[IMP_O_QW] + x[IMP_O_QO];  // surface liquid
    if (cfg_.input.wells[i].kind == WellKind::Injector ? into < 0 : into > 0) {
      stopped_[i] = 1;
      upload_well(i);
      any = true;
    }
  }
  return any;
}

// One attempt of the IMPES step (solved again while a well it stops flowed the wrong way), its
// checks, then those added to the model; an accepted attempt becomes the state, and its wells'
// rates their results.
template <class T>
TimeController::Outcome Impes3D<T>::attempt(double dt) {
  TimeController::Outcome out;
  auto a = scheme_->solve(dt, clock_.last_dt());
  while (a.ok && stop_wrong_way_wells()) {  // each redo stops one more well at most as often as there are wells
    scheme_->restore();
    a = scheme_->solve(dt, clock_.last_dt());
  }
  if (a.ok) a = scheme_->check();
  if (!a.ok) {
    out.why = a.why;
    if (a.sw_out) {  // name the cell (a copy only on this path)
      const auto sw = cells_of(arrays_.sw);  // decomposed: on process 0 (the others say less)
      if (sw.empty()) return out;
      std::size_t worst = 0;
      auto off = [](double x) { return std::max(-x, x - 1); };
      for (std::size_t c = 0; c < sw.size(); ++c)
        if (off(sw[c]) > off(sw[worst])) worst = c;
      const auto& g = cfg_.input.grid;
      std::ostringstream o;
      o.precision(4);
      o << " (S_w = " << sw[worst] << " in cell (" << worst % g.nx + 1 << ", " << (worst / g.nx) % g.ny + 1 << ", "
        << worst / (std::size_t(g.nx) * g.ny) + 1 << "))";
      out.why += o.str();
    }
    return out;
  }
  for (const auto& check : checks_)
    if (std::string why = check(time(), dt); !why.empty()) {
      out.why = why;
      return out;
    }
  scheme_->commit();
  accept_wells(dt);
  const double* s = scheme_->result().stat;
  const auto& nm = cfg_.numerics;
  max_cfl_ = std::max(max_cfl_, dt * s[IMP_S_CFL]);
  if (newton_rule(nm.control)) {
    // OPM Flow's rule: the next step from this one's Newton iterations, with pid+newton also from
    // its relative change (the smaller), at most time.growth times this step (as its
    // solver-max-growth caps it against the step taken)
    double f = newton_step_factor(a.newton, nm.fim.target_iterations);
    if (nm.control == StepControl::PidNewton) f = std::min(f, pid_.next_factor(scheme_->result().relative_change));
    out.dt_limit = dt * std::min(nm.growth, f);
  } else {
    // what the last step allows the next: the CFL limit (IMPES), and the S_w and pressure changes scaled
    const double tiny = 1e-30;
    out.dt_limit = std::min({nm.cfl / std::max(s[IMP_S_CFL], tiny), dt * nm.ds_max / std::max(s[IMP_S_DSW], tiny),
                             dt * nm.dp_max / std::max(s[IMP_S_DP], tiny)});
    // a Newton that needed more than its target iterations: the next step no larger
    if (a.newton > nm.fim.target_iterations) out.dt_limit = std::min(out.dt_limit, dt);
  }
  out.ok = true;
  return out;
}

// the wells' rates of the accepted step; cumulatives in double from the rates the device added to
// the masses (crossflow included)
template <class T>
void Impes3D<T>::accept_wells(double dt) {
  const auto& words = scheme_->result().well;
  for (std::size_t i = 0; i < wells_.size(); ++i) {
    const double* x = words.data() + i * IMP_NWO;
    auto& r = wells_[i];
    const double qw = x[IMP_O_QW], qo = x[IMP_O_QO];
    const bool inj = cfg_.input.wells[i].kind == WellKind::Injector;
    r.water_injection = inj ? qw : 0;
    r.water_rate = inj ? 0 : -qw;
    r.oil_rate = -qo;
    r.bhp = x[IMP_O_BHP];
    r.control = static_cast<int>(std::lround(x[IMP_O_CTRL]));
    r.water_injected += inj ? dt * qw : 0;
    r.water_total += inj ? 0 : -dt * qw;
    r.oil_total += -dt * qo;
  }
}

// the worst cell of the last attempt, for the message of a run that stops
template <class T>
std::string Impes3D<T>::worst_cell() const {
  const auto& nm = cfg_.numerics;
  const auto p = cells_of(arrays_.p), s = cells_of(arrays_.sw);
  const auto& g = cfg_.input.grid;
  long worst = -1;
  for (std::size_t c = 0; c < p.size(); ++c)
    if (!std::isfinite(p[c]) || !std::isfinite(s[c]) || s[c] < -nm.sw_tolerance || s[c] > 1 + nm.sw_tolerance) {
      worst = static_cast<long>(c);
      break;
    }
  if (worst < 0) return "";
  std::ostringstream o;
  const long i = worst % g.nx, j = (worst / g.nx) % g.ny, kk = worst / (long(g.nx) * g.ny);
  o << "; at cell (" << i + 1 << ", " << j + 1 << ", " << kk + 1 << "): p = " << p[worst] << ", S_w = " << s[worst];
  return o.str();
}

template <class T>
void Impes3D<T>::step(double t_stop) {
  scheme_->clear_solves();
  apply_schedule();
  double limit = t_stop;
  const auto& ev = cfg_.input.schedule;
  if (next_event_ < ev.size()) limit = std::min(limit, ev[next_event_].time);
  step_settings_ = settings_;
  clock_.advance(
      limit, [this](double dt) { return attempt(dt); }, [this] { scheme_->restore(); }, [this] { return worst_cell(); });
  // the stopped wells are tried again in the next step
  for (std::size_t w = 0; w < stopped_.size(); ++w)
    if (stopped_[w]) {
      stopped_[w] = 0;
      upload_well(w);
    }
  apply_schedule();
  if (part_) {
    // a deck summary reads the mean pressure at report times, and the fully implicit scheme's at
    // every step (its ministeps): there it is summed again
    const double t = time();
    bool pressure = cfg_.numerics.scheme == ReservoirSchemeKind::Fim;
    for (double r : cfg_.input.report_times) pressure = pressure || std::abs(t - r) <= 1e-12 * std::max(1.0, t);
    refresh_totals(pressure);
  }
}

template <class T>
double Impes3D<T>::omega() const {
  const auto* impes = dynamic_cast<const ImpesStep<T>*>(scheme_.get());
  return impes ? impes->omega() : 0.0;
}

// the first step's size, and the size the steps start from again after a schedule event: IMPES
// bounds it by the injectors (injection_dt); the fully implicit scheme needs no such bound
template <class T>
double Impes3D<T>::first_dt() const {
  if (cfg_.numerics.scheme == ReservoirSchemeKind::Fim) return cfg_.numerics.dt_init;
  return std::min(cfg_.numerics.dt_init, injection_dt());
}

template <class T>
std::string Impes3D<T>::progress() const {
  std::ostringstream o;
  o.precision(3);
  o << "dt " << clock_.last_dt() << " d, " << scheme_->progress() << ", " << clock_.cuts() << " retries";
  return o.str();
}

template <class T>
std::vector<double> Impes3D<T>::box_values(const Field<T>& f) const {
  const auto v = f.download();
  const auto& geo = part_->geo;
  std::vector<double> mine;
  mine.reserve(part_->cells.size());
  for (long k = 0; k < geo.box.nz; ++k)
    for (long j = 0; j < geo.box.ny; ++j)
      for (long i = 0; i < geo.box.nx; ++i) mine.push_back(double(v[geo.at(i, j, k)]));
  return mine;
}

template <class T>
typename Impes3D<T>::Piece Impes3D<T>::piece() const {
  Piece p;
  if (!part_) return p;
  p.index = comm_.rank();
  p.count = comm_.size();
  p.cells = part_->cells;
  p.pressure = box_values(arrays_.p);
  p.saturation = box_values(arrays_.sw);
  return p;
}

template <class T>
std::vector<double> Impes3D<T>::cells_of(const Field<T>& f) const {
  const auto& g = cfg_.input.grid;
  if (part_) {
    // decomposed: every process's cells to process 0 (collective; empty elsewhere)
    const std::vector<double> mine = box_values(f);
    const int n = comm_.size();
    std::vector<std::size_t> counts(static_cast<std::size_t>(n));
    for (int r = 0; r < n; ++r) counts[static_cast<std::size_t>(r)] = static_cast<std::size_t>(part_->dec.box(r).cells()) * sizeof(double);
    std::vector<double> all(comm_.rank() == 0 ? g.cells() : 0);
    comm_.gather(mine.data(), mine.size() * sizeof(double), all.data(), counts, 0);
    if (comm_.rank() != 0) return {};
    std::vector<double> out(g.cells(), 0.0);
    std::size_t at = 0;
    for (int r = 0; r < n; ++r) {
      const RankBox b = part_->dec.box(r);
      for (long k = 0; k < b.nz; ++k)
        for (long j = 0; j < b.ny; ++j)
          for (long i = 0; i < b.nx; ++i) out[g.index(b.i0 + i, b.j0 + j, b.k0 + k)] = all[at++];
    }
    return out;
  }
  const auto v = f.download();
  std::vector<double> out(g.cells(), 0.0);
  for (long k = 0; k < g.nz; ++k)
    for (long j = 0; j < g.ny; ++j)
      for (long i = 0; i < g.nx; ++i) out[g.index(i, j, k)] = double(v[geo_.at(i, j, k)]);
  return out;
}

// (decomposed: as before_output gathered them on process 0)
template <class T>
std::vector<double> Impes3D<T>::pressure() const {
  return part_ ? totals_.p : cells_of(arrays_.p);
}
template <class T>
std::vector<double> Impes3D<T>::saturation() const {
  return part_ ? totals_.sw : cells_of(arrays_.sw);
}

template <class T>
std::vector<double> Impes3D<T>::map_layer_saturation() const {
  if (part_) return totals_.sw_layer;
  const auto& g = cfg_.input.grid;
  return plane_of({g.nx, g.ny, g.nz}, 2, cfg_.map_layer, cells_of(arrays_.sw));
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
  std::vector<double> r = {time(), double(steps()), clock_.last_dt(), fopr, fwpr, fopr + fwpr, fwir, fopt, fwpt, fwit,
                           fopr + fwpr > 0 ? fwpr / (fopr + fwpr) : 0.0, mean_pressure(), oil_in_place(), water_in_place(),
                           double(scheme_->linear_total()), double(clock_.cuts())};
  for (std::size_t i = 0; i < wells_.size(); ++i) {
    const auto& w = wells_[i];
    const double l = w.oil_rate + w.water_rate;
    r.insert(r.end(), {w.oil_rate, w.water_rate, w.water_injection, w.bhp, l > 0 ? w.water_rate / l : 0.0, w.oil_total,
                       w.water_total, w.water_injected, double(w.control)});
  }
  return r;
}

// (in place now - in place at the start) = injected - produced, per phase, relative to the largest
// volume involved (a reservoir may start without water)
template <class T>
std::vector<Balance> Impes3D<T>::balance() const {
  double inj = 0, wprod = 0, oprod = 0;
  for (const auto& w : wells_) {
    inj += w.water_injected;
    wprod += w.water_total;
    oprod += w.oil_total;
  }
  const double mw = water_in_place(), mo = oil_in_place(), tol = balance_tolerance(precision_of<T>());
  // a Newton's converged residuals leave at most their sum unbalanced: the tolerance adds it
  const double sw = std::max({mw0_, mw, inj, wprod}), so = std::max({mo0_, mo, oprod});
  return {{"water (sm3)", mw - mw0_, inj - wprod, sw, tol + std::fabs(scheme_->balance_residual(0)) / std::max(sw, 1e-300)},
          {"oil (sm3)", mo - mo0_, -oprod, so, tol + std::fabs(scheme_->balance_residual(1)) / std::max(so, 1e-300)}};
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
  const auto b = balance();
  const double mw = water_in_place(), mo = oil_in_place();
  s["mass_balance_water_rel"] = b[0].rel_error();
  s["mass_balance_oil_rel"] = b[1].rel_error();
  s["water_injected_sm3"] = inj;
  s["water_produced_sm3"] = wprod;
  s["oil_produced_sm3"] = oprod;
  s["oil_in_place_sm3"] = mo;
  s["water_in_place_sm3"] = mw;
  s["retried_steps"] = double(clock_.cuts());
  scheme_->add_stats(s, steps());
  s["cfl_max"] = max_cfl_;
  return s;
}

template class Impes3D<float>;
template class Impes3D<double>;

}  // namespace poreflow
