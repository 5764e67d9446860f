#pragma once
// adi2d: 2D three-phase, four-component filtration (papers 002/004). Each time step assembles the
// pressure equation from the volume balance, solves it by Peaceman-Rachford ADI with the batched
// tridiagonal solver, moves every component mass by explicit upwind substeps within the CFL
// limit, then finds the phase equilibrium and the saturations. See docs/adi2d.md.
#include <array>
#include <string>
#include <vector>

#include "core/base/limits.hpp"
#include "core/kernels/field.hpp"
#include "core/models/memory.hpp"
#include "core/models/model.hpp"
#include "core/physics/adi2d.h"
#include "core/solvers/adi.hpp"

namespace poreflow {

struct Adi2DWell {
  double x = 0, y = 0;  // centre
  bool injector = true;
};

// grid.points: N x N nodes of at most kMaxArrayValues (core/base/limits.hpp)
constexpr long kAdi2dMaxPoints = 1L << 24;
static_assert(product_within({kAdi2dMaxPoints, kAdi2dMaxPoints}) != 0);

struct Adi2DConfig {
  long points = 65;  // N x N nodes on [0, L]^2
  double length = 1.0;
  std::array<double, ADI_NPARAMS> prm{};
  double p_init = 1.0, sw0 = 0.2, so0 = 0.75, sg0 = 0.05, co3_0 = 0.3;
  double dt = 0.001, end_time = 0.1, cfl = 0.9;
  long max_substeps = 100000;
  long max_steps = 10'000'000;  // time.end / time.dt steps at most
  // Pressure solves per step: each one re-linearises the volume balance about the last pressure
  // (flash at that pressure, upwinding by its potentials), a Newton step on V(p) = 1.
  int pressure_passes = 1;
  AdiOptions adi;
  // wells: a pattern of injectors and producers, each spread uniformly over the nodes within `radius`
  std::string pattern = "corners";
  double radius = 0.05;
  double injection_rate = 0.02;  // total water mass rate of all injectors (per unit thickness)
  double producer_index = 50;    // J of all producers together (per unit thickness)
  double producer_bhp = 0.9;
  std::vector<Adi2DWell> wells;  // from the pattern
};

// memory a run needs (core/models/memory.hpp), before anything is allocated
MemoryNeed adi2d_need(const Adi2DConfig& cfg, Precision prec, bool host);

template <class T>
class Adi2D final : public Model {
 public:
  Adi2D(Backend& be, const Adi2DConfig& cfg, const Communicator& comm = self_communicator());

  std::string name() const override { return "adi2d"; }
  std::string summary() const override;
  GridInfo grid() const override;
  const TimeController& clock() const override { return clock_; }
  double end_time() const override { return cfg_.end_time; }
  void step(double t_stop) override;
  std::string progress() const override;
  const State& state() const override { return state_; }

  std::vector<NamedField> fields() const override;
  std::vector<std::string> series_columns() const override;
  std::vector<double> series_row() const override;
  std::map<std::string, double> final_stats() const override;
  std::vector<Balance> balance() const override;

  // mass of each component in place, and the net mass the wells added (injected - produced)
  std::array<double, 4> masses() const;
  std::array<double, 4> well_net() const;
  std::array<double, 4> initial_masses() const { return m0_; }

 private:
  double reduce(ReduceOp op, const Field<T>& a, const Field<T>* b = nullptr) const;
  void flash();
  Adi2DPhaseState phase_state() const;
  Adi2DWells wells() const;
  void check_state(const char* where) const;
  void advance(double dt);
  void bind_state();

  Backend& be_;
  const Communicator& comm_;
  Adi2DConfig cfg_;
  Adi2DGeom g_;
  std::size_t nn_;
  Field<T> prm_, p_, dp_, ux_, uy_, props_, sw_, so_, sg_, co3_, cg3_, vol_, rate_, inj_, prod_, one_;
  std::array<Field<T>, 4> m_, m_next_, acc_;
  AdiSolver<T> adi_;
  TimeController clock_;  // steps of time.dt, the last one shortened to meet a stop
  long substeps_total_ = 0, adi_total_ = 0, adi_reads_ = 0, adi_enqueued_ = 0;
  int last_substeps_ = 0;
  AdiResult last_adi_;
  double last_volume_error_ = 0;
  double seconds_pressure_ = 0, seconds_transport_ = 0;  // wall time of the two halves of the steps
  std::array<double, 4> m0_{};
  State state_;
};

}  // namespace poreflow
